"""What the building actions share: paying materials, and judging the ids of new things."""

from __future__ import annotations

from typing import Final

from ..errors import Refusal, shape_of
from ..ids import ID_PATTERN, RESERVED
from ..materials import KINDS
from ..state import GameState, Settler

# the shapes of this module's refusals, made once: a refusal is its shape and its values (no dict on the way)
_BAD_ID: Final = shape_of("bad_id", ("actor", "problem", "id"))
_MISSING: Final = tuple(
    shape_of("missing_materials", ("actor", "build", *(kind for i, kind in enumerate(KINDS) if kinds >> i & 1)))
    for kinds in range(1 << len(KINDS))
)
"""`missing_materials` by the kinds lacking, as bits in the order of `KINDS` (`ice` 1, `iron` 2, …)."""


def needs_of(cost: dict[str, int]) -> tuple[int, ...]:
    """A cost as the units it needs of each kind, in the order of `KINDS` (what `missing` takes)."""
    return tuple(cost.get(kind, 0) for kind in KINDS)


def missing(settler: Settler, needs: tuple[int, ...], build: str) -> Refusal | None:
    """`missing_materials` with the units lacking by kind, or None when the cargo pays for `build` (`needs`:
    `needs_of` its cost)."""
    # one pass in the canonical order, no dict on the way: `Game.choices` asks this for every settler's step
    cargo = settler.cargo
    lacking: list[str | int] = [settler.id, build]
    kinds = 0
    for i in range(len(needs)):
        need = needs[i]
        if need:
            short = need - cargo[KINDS[i]]
            if short > 0:
                lacking.append(short)
                kinds |= 1 << i
    return Refusal(_MISSING[kinds], tuple(lacking)) if kinds else None


def affords(settler: Settler, needs: tuple[int, ...]) -> bool:
    """The cargo pays for `needs` (`needs_of` a cost): what `missing` finds nothing lacking in, without making
    the refusal (a rule's quick `may_accept`)."""
    cargo = settler.cargo
    return all(needs[i] <= cargo[KINDS[i]] for i in range(len(needs)))


def new_id_refusal(state: GameState, settler: Settler, new_id: str | None) -> Refusal | None:
    """`bad_id` when a chosen id cannot name a new thing (malformed, reserved or taken), else None."""
    if new_id is None:
        return None
    if not ID_PATTERN.match(new_id):
        problem = "invalid"
    elif new_id in RESERVED:
        problem = "reserved"
    elif new_id in state.things:
        problem = "taken"
    else:
        return None
    return Refusal(_BAD_ID, (settler.id, problem, new_id))


def pay(state: GameState, settler: Settler, cost: dict[str, int]) -> None:
    """Take the cost out of the settler's cargo."""
    for kind, n in cost.items():
        settler.cargo[kind] -= n
        state.cargo_units[kind] -= n
