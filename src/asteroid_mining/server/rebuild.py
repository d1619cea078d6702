"""Rebuilding a stored game: the one way from a record, a snapshot and a log back to the engine's `Game`.

Live games (loading, resuming after a restart, going back to the store after a failed write) and the replay
endpoint both go through `rebuild`, and it walks the log with the engine's `Game.play_history`, the walk under
`Game.replay` too. So a log is read one way everywhere.

**A command the engine refuses.** The log holds only commands the engine accepted, so a refused (or unreadable)
command means the stored game is not the engine's game any more: a damaged store, or rules that have changed
since it was played. The rebuild stops there with `DamagedGame` naming the command (`commands[12]: refused on
replay: …`, 12 being its `seq`); nothing is skipped, since a game rebuilt past a refused command would be
another game than the one its players were told about. The server answers `500 game_damaged` for such a game
(REST and replay), closes its WebSocket connections with 1011 after an `error` `game_damaged`, and does not
resume it at start-up (it logs why).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..collector import CollectorPaused
from ..maps import MapError, parse_belt
from ..rules import Event, Game, OptionError, Options, RulesError
from ..storage import Command, GameRecord, Snapshot
from .meta import GameMeta, MetaError

Step = Callable[[Command, list[Event]], None]
"""Told of every command as it is played again, with its events."""


class DamagedGame(Exception):
    """A stored game that cannot be rebuilt; the message says which part and why, for operators and clients."""

    code = "game_damaged"

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id} cannot be rebuilt: {reason}")
        self.game_id = game_id
        self.reason = reason


def read_meta(record: GameRecord) -> GameMeta:
    """The record's metadata; DamagedGame when it cannot be read."""
    try:
        return GameMeta.from_json(record.meta)
    except MetaError as bad:
        raise DamagedGame(record.id, str(bad)) from None


def rebuild(record: GameRecord, commands: Iterable[Command], snapshot: Snapshot | None = None,
            on_start: Callable[[Game], None] | None = None, on_step: Step | None = None) -> Game:
    """The game after `commands`, played from `snapshot` (the game after its `seq`) or, without one, from the
    start (`Game.new` of the record's belt, options, seed and settlers). `on_start` is given the game before the
    first command, `on_step` each command with its events as it is played. Raises DamagedGame when a part cannot
    be read or a command is refused (see the module's text)."""
    try:
        with CollectorPaused():  # a stored game loaded in bulk: no garbage, the collector waits (see collector)
            if snapshot is not None:
                game = Game.from_json(snapshot.state)
            else:
                belt = parse_belt(record.belt, source=f"game {record.id}")
                game = Game.new(belt, Options.from_json(record.options), record.seed, record.settlers)
        if on_start is not None:
            on_start(game)
        commands = list(commands)
        played = game.play_history((c.action for c in commands), "commands", commands[0].seq if commands else 1)
        for command, events in zip(commands, played, strict=False):
            if on_step is not None:
                on_step(command, events)
    except (RulesError, MapError, OptionError) as bad:
        raise DamagedGame(record.id, str(bad)) from None
    return game
