"""Every refusal the rules can give (R9a, R11, R13, R16a, E2): its stable code, what it means and the names of
the values a sentence about it needs.

Codes and parameter names are part of the public interface: clients, bots and scenario files match on codes.
The engine words no refusal: a reader words one from its code and parameters alone, in its language — the
browser from its translation files, and the command line, the scenario runner and the server's errors from the
same files (`asteroid_mining.texts.refusal_text`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .materials import KINDS

ParamValue = str | int
"""The value of a refusal's parameter."""


@dataclass(frozen=True, slots=True)
class RefusalKind:
    """One refusal code: what it means, and its parameters (required, then optional)."""

    code: str
    meaning: str
    params: tuple[str, ...]
    optional: tuple[str, ...]


REFUSAL_KINDS: dict[str, RefusalKind] = {
    k.code: k
    for k in (
        RefusalKind("game_over", "the game has been won or lost (R16a)", ("status",), ()),
        RefusalKind("unknown_actor", "no such settler, robot or UFO", ("actor",), ()),
        RefusalKind("not_an_actor", "asteroids and gates do not act", ("actor", "kind"), ()),
        RefusalKind("dead", "the actor is dead or destroyed", ("actor", "kind"), ()),
        RefusalKind("not_your_turn", "strict turns: another settler's step (R9a)", ("actor", "turn"), ()),
        RefusalKind("cannot_do", "this kind of actor cannot do this action (R11, R13, E2)",
                    ("actor", "kind", "action"), ("gate",)),
        RefusalKind("no_such_target", "the target is neither an asteroid nor a gate", ("actor", "target"), ()),
        RefusalKind("exploded", "the target asteroid has exploded", ("actor", "target"), ()),
        RefusalKind("not_neighbour", "the target asteroid is not a neighbour", ("actor", "target", "asteroid"), ()),
        RefusalKind("gate_destroyed", "the gate has been destroyed", ("actor", "gate"), ()),
        RefusalKind("gate_elsewhere", "the gate does not orbit the actor's asteroid", ("actor", "gate", "asteroid"),
                    ()),
        RefusalKind("gate_inactive", "the gate's partner is not placed", ("actor", "gate", "partner"), ()),
        RefusalKind("drilled_through", "the mantle is already 0", ("actor", "asteroid"), ()),
        RefusalKind("mantle_left", "the mantle is not drilled through", ("actor", "asteroid", "mantle"), ("kind",)),
        RefusalKind("core_hollow", "the core is hollow", ("actor", "asteroid"), ()),
        RefusalKind("cargo_full", "the cargo hold is full", ("actor", "limit"), ()),
        RefusalKind("no_such_material", "not a material kind", ("actor", "kind"), ()),
        RefusalKind("core_not_hollow", "the core is not hollow", ("actor", "asteroid", "core"), ()),
        RefusalKind("not_carried", "the settler carries no unit of that kind", ("actor", "kind"), ()),
        RefusalKind("missing_materials", "not enough materials in the cargo: the units lacking, by kind",
                    ("actor", "build"), KINDS),
        RefusalKind("carries_gates", "the settler already carries gates", ("actor", "gates"), ()),
        RefusalKind("bad_id", "a new id is not a valid id, is reserved or taken, or the pair's ids are wrong "
                    "(`problem`: invalid, reserved, taken, unpaired, same)", ("actor", "problem"), ("id",)),
        RefusalKind("gate_not_carried", "the settler does not carry that gate", ("actor", "gate"), ()),
        RefusalKind("partner_here", "the gate's partner already orbits this asteroid",
                    ("actor", "gate", "partner", "asteroid"), ()),
        RefusalKind("turns_strict", "rounds end by themselves in strict turns", (), ()),
    )
}
"""Every refusal code, in the order the rules check them."""

REFUSAL_CODES: dict[str, str] = {code: kind.meaning for code, kind in REFUSAL_KINDS.items()}
"""Every refusal code with what it means."""
