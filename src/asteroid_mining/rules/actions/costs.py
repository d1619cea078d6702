"""What the building actions share: paying materials, and judging the ids of new things."""

from __future__ import annotations

from ..errors import Refusal
from ..ids import ID_PATTERN, RESERVED
from ..materials import KINDS
from ..state import GameState, Settler


def missing(settler: Settler, cost: dict[str, int], build: str) -> Refusal | None:
    """`missing_materials` with the units lacking by kind, or None when the cargo pays for `build`."""
    # one pass in the canonical order, no intermediate dict: `Game.choices` asks this for every settler's step
    cargo = settler.cargo
    params: dict[str, str | int] | None = None
    for kind in KINDS:
        lacking = cost.get(kind, 0) - cargo[kind]
        if lacking > 0:
            if params is None:
                params = {"actor": settler.id, "build": build}
            params[kind] = lacking
    return None if params is None else Refusal("missing_materials", params)


def affords(settler: Settler, cost: dict[str, int]) -> bool:
    """The settler's cargo pays for `cost` (what `missing` finds nothing lacking in)."""
    cargo = settler.cargo
    return all(cargo[kind] >= n for kind, n in cost.items())


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
    return Refusal("bad_id", {"actor": settler.id, "problem": problem, "id": new_id})


def pay(state: GameState, settler: Settler, cost: dict[str, int]) -> None:
    """Take the cost out of the settler's cargo."""
    for kind, n in cost.items():
        settler.cargo[kind] -= n
        state.cargo_units[kind] -= n
