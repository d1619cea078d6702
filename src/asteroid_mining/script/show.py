"""`show [ID]`: the state of the game or of one thing, in lines for people (the format is free)."""

from __future__ import annotations

from typing import Any

from ..rules import Game


def _ids(ids: Any) -> str:
    return ", ".join(ids) if ids else "-"


def _cargo(cargo: dict[str, int]) -> str:
    items = [f"{k} {n}" for k, n in cargo.items() if n]
    return ", ".join(items) if items else "empty"


def describe_game(game: Game) -> list[str]:
    """Every line of `show` without an id: the game, then each thing in creation order."""
    turn = f", turn {game.turn}" if game.turn else ""
    lines = [
        f"game: round {game.round}, {game.status}{turn}, winnable {'yes' if game.winnable else 'no'}, "
        f"turns {game.options.turns}, uranium fuse {game.options.uranium_fuse}"
    ]
    for forecast in getattr(game, "forecasts", ()) or ():
        lines.append(f"  forecast: {forecast}")
    for table in (game.asteroids, game.settlers, game.robots, game.ufos, game.gates):
        for ident in table:
            lines.extend("  " + line for line in describe(game, ident))
    return lines


def describe(game: Game, ident: str) -> list[str]:
    """The lines of `show ID` (or of the whole game for `game`); an unknown id gives one line saying so."""
    if ident == "game":
        return describe_game(game)
    kind = game.kind_of(ident)
    if kind == "asteroid":
        a = game.asteroids[ident]
        if not a.exists:
            return [f"asteroid {ident}: exploded"]
        sun = "near" if game.is_near(ident) else "far"
        how = f"pinned {a.pinned}" if a.pinned else f"orbit {a.orbit}"
        extra = ", shelter" if a.shelter else ""
        return [
            f"asteroid {ident}: mantle {a.mantle}, core {a.core}{extra}, {sun} ({how}), "
            f"exposures {a.exposures}, {'surveyed' if a.surveyed else 'not surveyed'}",
            f"    neighbours {_ids(a.neighbours)}; gates {_ids(a.gates)}; settlers {_ids(a.settlers)}; "
            f"robots {_ids(a.robots)}; ufos {_ids(a.ufos)}",
        ]
    if kind == "settler":
        s = game.settlers[ident]
        if not s.alive:
            return [f"settler {ident}: dead"]
        return [f"settler {ident}: on {s.at}, cargo {_cargo(s.cargo)}, gates {_ids(s.gates)}"]
    if kind in ("robot", "ufo"):
        m: Any = (game.robots if kind == "robot" else game.ufos)[ident]
        if not m.alive:
            return [f"{kind} {ident}: destroyed"]
        hold = f", hold {_cargo(m.cargo)}" if kind == "ufo" else ""
        return [f"{kind} {ident}: on {m.at}, ai {'on' if m.ai else 'off'}{hold}"]
    if kind == "gate":
        g = game.gates[ident]
        if not g.exists:
            return [f"gate {ident}: destroyed"]
        where = f"orbits {g.at}" if g.at else f"carried by {g.carrier}"
        state = "active" if game.gate_active(ident) else "inactive"
        haywire = ", haywire" if g.haywire else ""
        return [f"gate {ident}: {where}, partner {g.partner}, {state}{haywire}"]
    return [f"{ident}: unknown id"]
