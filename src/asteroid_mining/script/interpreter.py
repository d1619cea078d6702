"""Runs statements of the scenario language against the rules engine (SCENARIO.md)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ..collector import CollectorPaused
from ..rules import Action, Game, OptionError, Options, Refused, SetupError, action_from_json
from ..rules.materials import CORES
from ..rules.orbit import Orbit
from ..texts import refusal_text
from . import parser as p
from .checks import evaluate
from .lexer import RESERVED, Line, ScriptError, a_kind, is_id, line_words
from .reporter import Reporter
from .show import describe, describe_game
from .words import choose

_SET_UP = frozenset(("rules", "set", "seed", "asteroid", "link", "settler", "robot", "ufo", "gates"))
"""The statements that build a game: the collector stays paused while a script is only these."""
_LINK_RUN = re.compile(r"(?:link [A-Za-z][A-Za-z0-9_-]* [A-Za-z][A-Za-z0-9_-]*\r?\n){1,10000}")
"""Lines `link A B` of single spaces and ids, up to 10,000 at a time (their words are split at once)."""
_ASTEROID_OPTIONS = frozenset(("mantle", "core", "sun", "orbit"))


class Interpreter:
    """One scripted game (one file): executes statements in order and reports to a Reporter.

    `name` is how the file is named in messages (`-` for standard input).
    """

    def __init__(self, name: str, reporter: Reporter) -> None:
        self.name = name
        self.reporter = reporter
        self.game = Game.empty(options=Options(turns="free"), seed=0)
        self._objects = False
        self._orbits: dict[str, Orbit] = {}  # a belt's asteroids share a few hundred orbits
        self._handlers: dict[type[p.Statement], Callable[[Any], None]] = {
            p.Rules: self._rules,
            p.SetOption: self._set,
            p.Seed: self._seed,
            p.NewAsteroid: self._asteroid,
            p.Link: self._link,
            p.NewSettler: self._settler,
            p.NewMachine: self._machine,
            p.SetAi: self._ai,
            p.NewGates: self._gates,
            p.Do: self._do,
            p.EndRound: self._end_round,
            p.Sun: self._sun,
            p.Storm: self._storm,
            p.Forecast: self._forecast,
            p.Expect: self._expect,
            p.Show: self._show,
        }

    # -- running -------------------------------------------------------------------------------------------

    def run(self, source: str) -> bool:
        """Execute every statement of `source`; stop at the first script error. True when there was none."""
        # The set-up of a big belt is a million new objects and no garbage: the collector, which would walk the
        # growing heap again and again, is paused until the first statement that is not set-up (see collector)
        collector = CollectorPaused()
        collector.__enter__()
        try:
            return self._run(source, collector)
        finally:
            collector.__exit__(None, None, None)

    def _run(self, source: str, collector: CollectorPaused) -> bool:
        building = True
        game = self.game
        asteroids, link, running = game.asteroids, game.link, not self.ended
        size, pos, number = len(source), 0, 1  # `number` is the number of the line starting at `pos`
        while pos <= size:
            if running and source.startswith("link ", pos):
                # A big belt's set-up is mostly `link A B` lines: a run of them, each exactly `link`, an id and
                # an id between single spaces, is linked by the engine at once, pair after pair, up to the first
                # pair that is not two different asteroids still in the belt. That line and what follows it
                # take the usual path below, which says what is wrong with it. (Only other statements can end
                # the game: `running` is read again after each.)
                run = _LINK_RUN.match(source, pos)
                if run is not None:
                    run_words = source[pos:run.end()].split()
                    done = game.link_pairs(run_words[1::3], run_words[2::3])
                    number += done
                    if 3 * done == len(run_words):
                        pos = run.end()
                        continue
                    lines = source[pos:run.end()].split("\n", done)
                    pos += sum(map(len, lines[:done])) + done  # past the lines linked and their newlines
            end = source.find("\n", pos)
            if end < 0:
                end = size
            words = line_words(source[pos:end])
            line, pos, number = number, end + 1, number + 1
            if not words:
                continue
            head = words[0]
            if running and len(words) == 3 and head == "link":
                # a link line of another kind (a comment, tabs): done at once as well when nothing can be wrong
                first, second = words[1], words[2]
                a, b = asteroids.get(first), asteroids.get(second)
                if a is not None and b is not None and first != second and a.exists and b.exists:
                    try:
                        link(first, second)
                        continue
                    except SetupError:  # changed nothing: the full path meets it again and reports it
                        pass
            if running and head == "asteroid":
                try:
                    if self._plain_asteroid(words):
                        running = not self.ended
                        continue
                except Exception as exc:  # reported as for any statement (`run_line`)
                    self._report(line, exc)
                    return False
            if building and head not in _SET_UP:
                building = False
                collector.__exit__(None, None, None)
            if not self.run_line(line, words):
                return False
            running = not self.ended
        return True

    def _plain_asteroid(self, words: tuple[str, ...]) -> bool:
        """Execute an `asteroid` line at once when it is plainly right; False, having changed nothing, when the
        full path must read it (an error to report, or a form not handled here).

        What is done here is exactly what parsing the line and executing its statement do: a belt's set-up has
        as many `asteroid` lines as asteroids.
        """
        if len(words) < 2 or len(words) > 6:
            return False
        options: dict[str, str] = {}
        for word in words[2:]:
            key, _, value = word.partition("=")
            if not value or key in options or key not in _ASTEROID_OPTIONS:
                return False
            options[key] = value
        ident = words[1]
        if not is_id(ident) or ident in RESERVED or self.game.kind_of(ident) is not None:
            return False
        text = options.get("mantle", "3")
        if not text.isascii() or not text.isdigit() or len(text) > 18:
            return False
        core = options.get("core", "hollow")
        sun: str | None = options.get("sun", "far")
        if core not in CORES or sun not in ("near", "far"):
            return False
        orbit = None
        text = options.get("orbit", "")
        if text:
            if "sun" in options:
                return False
            orbit = self._orbits.get(text)
            if orbit is None:
                try:
                    orbit = self._orbits[text] = Orbit.parse(text)
                except ValueError:
                    return False
            sun = None
        self._objects = True
        self._events(self.game.add_asteroid(ident, mantle=int(options.get("mantle", "3")), core=core, sun=sun,
                                            orbit=orbit))
        return True

    def run_line(self, number: int, words: tuple[str, ...]) -> bool:
        """Parse and execute one line; report a script error and return False if there is one."""
        try:
            self.execute(p.parse_line(Line(number, words)))
        except Exception as exc:  # every error becomes one error line (`_report`)
            self._report(number, exc)
            return False
        return True

    def _report(self, number: int, exc: Exception) -> None:
        """Report the error that stopped line `number`."""
        if isinstance(exc, ScriptError):
            self.reporter.error(self.name, exc.line or number, exc.message)
        elif isinstance(exc, Refused):  # the engine gives a code and params: worded from the texts
            self.reporter.error(self.name, number, refusal_text(exc.code, exc.refusal.params))
        elif isinstance(exc, (SetupError, OptionError)):
            self.reporter.error(self.name, number, str(exc))
        else:  # an engine or interpreter bug must still become one error line
            self.reporter.error(self.name, number, f"internal error: {type(exc).__name__}: {exc}")

    def execute(self, statement: p.Statement) -> None:
        """Execute one parsed statement; raises ScriptError (or an engine error) on a script error."""
        self._handlers[type(statement)](statement)

    # -- helpers -------------------------------------------------------------------------------------------

    @property
    def ended(self) -> bool:
        """The game has been won or lost (R16a)."""
        return self.game.status != "running"

    def _events(self, events: Iterable[Any] | None) -> None:
        for event in events or ():
            self.reporter.event(event.text())

    def _fail(self, statement: p.Statement, message: str) -> ScriptError:
        return ScriptError(message, statement.line)

    def _kind(self, statement: p.Statement, ident: str) -> str:
        kind = self.game.kind_of(ident)
        if kind is None:
            raise self._fail(statement, f"unknown id {ident!r}")
        return str(kind)

    def _asteroid_id(self, statement: p.Statement, ident: str) -> str:
        """`ident` if it names an asteroid still in the belt; a script error otherwise."""
        kind = self._kind(statement, ident)
        if kind != "asteroid":
            raise self._fail(statement, f"{ident} is {a_kind(kind)}, not an asteroid")
        if not self.game.asteroids[ident].exists:
            raise self._fail(statement, f"asteroid {ident} has exploded")
        return ident

    def _new_id(self, statement: p.Statement, ident: str) -> str:
        """`ident` if it is free for a new thing; a script error if taken."""
        kind = self.game.kind_of(ident)
        if kind is not None:
            raise self._fail(statement, f"id {ident!r} is already taken (by {a_kind(kind)})")
        return ident

    def _new_object(self, statement: p.Statement, *idents: str) -> None:
        if self.ended:
            raise self._fail(statement, f"the game has ended ({self.game.status}): no new things can be added")
        if len(set(idents)) != len(idents):
            raise self._fail(statement, f"id {idents[0]!r} is given twice")
        for ident in idents:
            self._new_id(statement, ident)
        self._objects = True

    # -- set-up --------------------------------------------------------------------------------------------

    def _rules(self, s: p.Rules) -> None:
        if self._objects:
            raise self._fail(s, "rules must come before the first asteroid, settler, robot, UFO or gate")
        self.game.set_preset(s.preset)

    def _set(self, s: p.SetOption) -> None:
        self._events(self.game.set_option(s.key, s.value))

    def _seed(self, s: p.Seed) -> None:
        self.game.reseed(s.seed)

    def _asteroid(self, s: p.NewAsteroid) -> None:
        self._new_object(s, s.id)
        self._events(self.game.add_asteroid(s.id, mantle=s.mantle, core=s.core, sun=s.sun, orbit=s.orbit))

    def _link(self, s: p.Link) -> None:
        for ident in (s.first, *s.others):
            self._asteroid_id(s, ident)
        if s.first in s.others:
            raise self._fail(s, f"asteroid {s.first} cannot neighbour itself")
        if not self.ended:  # R16a: nothing changes any more once the game has ended
            self.game.link(s.first, *s.others)

    def _settler(self, s: p.NewSettler) -> None:
        self._new_object(s, s.id)
        self._asteroid_id(s, s.at)
        self._events(self.game.add_settler(s.id, s.at, cargo=dict(s.cargo)))

    def _machine(self, s: p.NewMachine) -> None:
        self._new_object(s, s.id)
        self._asteroid_id(s, s.at)
        add = self.game.add_robot if s.kind == "robot" else self.game.add_ufo
        add(s.id, s.at, ai=s.ai)

    def _ai(self, s: p.SetAi) -> None:
        kind = self._kind(s, s.id)
        if kind not in ("robot", "ufo"):
            raise self._fail(s, f"{s.id} is {a_kind(kind)}: only robots and UFOs have an AI")
        self.game.set_ai(s.id, s.on)

    def _gates(self, s: p.NewGates) -> None:
        self._new_object(s, s.first, s.second)
        for where in (s.first_where, s.second_where):
            kind = self._kind(s, where)
            if kind == "asteroid":
                self._asteroid_id(s, where)
            elif kind == "settler":
                if not self.game.settlers[where].alive:
                    raise self._fail(s, f"settler {where} is dead and cannot carry a gate")
            else:
                raise self._fail(
                    s, f"a gate orbits an asteroid or is carried by a settler, and {where} is {a_kind(kind)}"
                )
        self.game.add_gates(s.first, s.first_where, s.second, s.second_where)

    # -- play ----------------------------------------------------------------------------------------------

    def _action(self, s: p.Do) -> Action:
        self._kind(s, s.actor)  # an undeclared actor is a script error; a non-actor is refused by the rules
        chosen = choose(s.action, s.args)
        assert chosen is not None  # the parser has checked the words
        found, values = chosen
        data: dict[str, str] = {"type": found.spec.name, "actor": s.actor}
        for field, word in zip(found.spec.fields, values, strict=False):
            if field.sort == "thing":
                self._kind(s, word)
            elif field.sort == "new":
                self._new_id(s, word)
            data[field.name] = word
        return action_from_json(data)

    def _do(self, s: p.Do) -> None:
        action = self._action(s)
        if not s.reject:
            try:
                events = self.game.apply(action)
            except Refused as exc:
                raise self._fail(s, refusal_text(exc.code, exc.refusal.params)) from None
            self._events(events)
            return
        before = self.game.to_json()
        try:
            events = self.game.apply(action)
        except Refused as exc:
            if self.game.to_json() != before:
                self.reporter.check_failed(self.name, s.line, s.text, "refused, but the state changed")
            elif s.code is not None and exc.code != s.code:
                self.reporter.check_failed(self.name, s.line, s.text, f"was refused: {exc.code}")
            else:
                self.reporter.check_passed()
                self.reporter.event(f"refused as expected: {refusal_text(exc.code, exc.refusal.params)}")
            return
        self._events(events)
        self.reporter.check_failed(self.name, s.line, s.text, "was accepted")

    def _end_round(self, s: p.EndRound) -> None:
        if self.game.options.turns == "strict":
            raise self._fail(s, "end-round is not allowed with strict turns: the round ends by itself")
        if not self.ended:
            self._events(self.game.end_round())

    def _sun(self, s: p.Sun) -> None:
        self._asteroid_id(s, s.asteroid)
        if not self.ended:
            self._events(self.game.pin_sun(s.asteroid, s.near))

    def _storm(self, s: p.Storm) -> None:
        for ident in s.asteroids:
            self._asteroid_id(s, ident)
        if not self.ended:
            self._events(self.game.storm(list(s.asteroids)))

    def _forecast(self, s: p.Forecast) -> None:
        for ident in s.asteroids:
            self._asteroid_id(s, ident)
        if s.round < self.game.round:
            raise self._fail(s, f"round {s.round} is over: a forecast is for round {self.game.round} or later")
        if not self.ended:
            self._events(self.game.forecast(s.round, list(s.asteroids)))

    # -- checks and people ---------------------------------------------------------------------------------

    def _expect(self, s: p.Expect) -> None:
        held, was = evaluate(self.game, s.path, s.op, s.value, s.line)
        if held:
            self.reporter.check_passed()
        else:
            self.reporter.check_failed(self.name, s.line, s.text, f"was {was}")

    def _show(self, s: p.Show) -> None:
        if s.target is not None and s.target != "game":
            self._kind(s, s.target)
        lines = describe_game(self.game) if s.target is None else describe(self.game, s.target)
        for line in lines:
            self.reporter.event(line)
