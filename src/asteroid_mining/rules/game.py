"""`Game`: the engine's face. Build a game, ask what is legal, apply actions, end rounds, save and replay."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from . import setup
from .actions import Action, action_from_json, actor_refusal, check, legal_actions, perform
from .belt import Belt
from .choices import Choices, choices, choices_scope
from .dangers import Reaction, reaction, reacts_at
from .effects import react, winnable
from .errors import GameFormatError, Refusal, Refused, SetupError
from .events import Event
from .json_text import choices_text
from .options import CLASSIC, OptionError, Options
from .orbit import Orbit
from .round import finish_round, first_turn, next_living
from .serialize import state_from_json, state_to_json
from .state import Asteroid, Forecast, GameState, Gate, Robot, Settler, Ufo, history_json
from .storms import index_angles
from .view import forecast_view, player_view, thing_view

END_ROUND = {"type": "end_round"}
"""The history entry of a round ended by `Game.end_round` (free turns)."""


class Game:
    """One game of Asteroid Mining. All randomness comes from the generator seeded at creation (R18)."""

    def __init__(self, state: GameState) -> None:
        """Wrap a state; use `Game.new`, `Game.empty` or `Game.from_json` instead."""
        self._state = state

    # ----- making games -----
    @classmethod
    def new(cls, belt: Belt, options: Options = CLASSIC, seed: int = 0, settlers: int = 3) -> Game:
        """A real game on `belt`: settlers `s1…sN` on the start, UFOs on random asteroids, storms forecast."""
        if settlers < 1:
            raise SetupError("a game needs at least one settler")
        state = GameState(options, random.Random(seed), scripted=False, storm_sector=belt.storm_sector)
        setup.add_asteroids(state, belt.asteroids)
        links = belt.links
        firsts, seconds = [a for a, _ in links], [b for _, b in links]
        done = 0
        while done < len(links):
            # in bulk, as a script's links; a pair it stops at is one `link` refuses, saying why
            done += setup.link_pairs(state, firsts[done:], seconds[done:])
            if done < len(links):
                setup.link(state, firsts[done], [seconds[done]])
                done += 1
        for pair in belt.gates:
            setup.add_gates(state, pair.first, pair.first_at, pair.second, pair.second_at)
        for asteroid in list(state.asteroids.values()):
            if asteroid.exists:
                react(state, asteroid, [])  # a belt laid out with exposed reactive cores near the Sun (R6)
        first = state.asteroids.get(belt.start)
        if first is not None and not first.exists:  # R6: nobody can start on an asteroid that blew up at once
            raise SetupError(f"the start asteroid {belt.start} explodes as the game is set up: its core is exposed "
                             "uranium near the Sun")
        start = setup.existing_asteroid(state, belt.start)
        for sid in state.fresh_ids("s", settlers):  # s1…sN, skipping names the belt already uses
            setup.add_settler(state, sid, start.id)
        places = [a.id for a in state.asteroids.values() if a.exists and a is not start] or [start.id]
        for uid in state.fresh_ids("ufo", options.ufos):
            setup.add_ufo(state, uid, state.rng.choice(places))
        index_angles(state)
        first_turn(state)
        return cls(state)

    @classmethod
    def empty(cls, options: Options | None = None, seed: int = 0) -> Game:
        """An empty scripted game (free turns by default): nothing random happens unless asked."""
        return cls(GameState(options or Options(turns="free"), random.Random(seed), scripted=True))

    @classmethod
    def from_json(cls, doc: Any) -> Game:
        """A game from `to_json`'s document; raises GameFormatError naming the JSON path of a problem."""
        return cls(state_from_json(doc))

    @classmethod
    def replay(cls, belt: Belt, options: Options, seed: int, settlers: int, history: Iterable[Any]) -> Game:
        """Rebuild a game from its belt, options, seed and the history of accepted inputs (`play_history`)."""
        game = cls.new(belt, options, seed, settlers)
        for _ in game.play_history(history):
            pass
        return game

    def play_history(self, history: Iterable[Any], where: str = "history", first: int = 0) -> Iterator[list[Event]]:
        """Play a history (`Game.history`'s entries: actions as JSON and round ends) on this game, one entry at
        a time, yielding each entry's events.

        The one walk over a history that every rebuild goes through (`Game.replay`, the server's stored games
        and its replays). A history holds only inputs the game accepted, so an entry that cannot be read or
        that the rules refuse means it is not this game's history (a damaged log, or rules that have changed):
        GameFormatError naming the entry (`{where}[{first + i}]`), the game left as the entries before it made
        it. Nothing is skipped: a game rebuilt past a refused entry would be another game.
        """
        for i, entry in enumerate(history, start=first):
            path = f"{where}[{i}]"
            try:
                if entry == END_ROUND:
                    yield self.end_round()
                else:
                    yield self.apply(action_from_json(entry, path))
            except Refused as exc:
                raise GameFormatError(path, f"refused on replay: {exc.refusal.code} {exc.refusal.params}") from None

    def to_json(self) -> dict[str, Any]:
        """The whole game as a versioned JSON document; `Game.from_json` restores it exactly."""
        return state_to_json(self._state)

    def view(self, include_asteroids: bool = True) -> dict[str, Any]:
        """The players' view (R17): unsurveyed cores are `unknown`.

        `include_asteroids=False` leaves out the one part that grows with the belt (see `thing_view`).
        """
        return player_view(self._state, include_asteroids)

    def thing_view(self, tid: str, sun: bool = True, frozen: bool = False) -> dict[str, Any]:
        """The view entry of one asteroid, settler, robot, UFO or gate, as `view()` gives it (KeyError if none).

        For an asteroid, `sun=False` leaves out `near` and `next_change` (they follow from `orbit`, `pinned` and
        the round: `rules.sun_state`), and `frozen=True` gives tuples for lists (the same JSON).
        """
        return thing_view(self._state, tid, sun, frozen)

    def forecast_views(self) -> list[dict[str, Any]]:
        """The view's `forecasts`: each storm forecast and not yet hit (R7), as `view()` gives them."""
        return [forecast_view(f) for f in self._state.forecasts]

    def take_touched(self) -> set[str]:
        """The ids of the things whose view entry may have changed since the last call (or since the game was
        made or loaded), and forget them.

        Every change counts: actions, robots and UFOs, the end of a round, reactions and explosions, storms,
        drifting gates and the set-up calls. `near` and `next_change` are not followed: they change with the
        round alone (`rules.sun_state`). The top of the view (`round`, `status`, `turn`, `winnable`,
        `forecasts`) is not a thing: read it from `view(include_asteroids=False)` or the properties.
        """
        touched = self._state.touched
        self._state.touched = set()
        return touched

    # ----- set-up (scripts) -----
    def set_option(self, key: str, value: str) -> list[Event]:
        """Set one rule option from its text (`set KEY VALUE`); SetupError on an unknown key or bad value."""
        try:
            self._state.options = self._state.options.with_value(key, value)
        except OptionError as exc:
            raise SetupError(str(exc)) from None
        if key == "turns":
            first_turn(self._state)
        return []

    def set_preset(self, name: str) -> None:
        """Set every option of a preset (`rules classic|extended`), keeping `turns`; only before any object."""
        if self._state.things:
            raise SetupError("the rules preset can only be chosen before the first object")
        try:
            self._state.options = self._state.options.with_preset(name)
        except OptionError as exc:
            raise SetupError(str(exc)) from None

    def reseed(self, seed: int) -> None:
        """Seed the game's random generator."""
        self._state.rng = random.Random(seed)

    def add_asteroid(self, aid: str, mantle: int = 3, core: str = "hollow", sun: str | None = None,
                     orbit: Orbit | None = None, position: tuple[float, float] | None = None) -> list[Event]:
        """A new asteroid (pinned far by default); it reacts at once if it must (R6)."""
        events = setup.add_asteroid(self._state, aid, mantle, core, sun, orbit, position)
        if position is not None:
            index_angles(self._state)
        return self._after(events)

    def link(self, first: str, *others: str) -> None:
        """Make `first` a neighbour of each of `others` (R2)."""
        setup.link(self._state, first, others)

    def link_pairs(self, firsts: list[str], seconds: list[str]) -> int:
        """Link `firsts[i]` with `seconds[i]` for each i in turn, until a pair that is not two different asteroids
        still in the belt; the number of pairs linked (the rest is left for `link`, which says what is wrong)."""
        return setup.link_pairs(self._state, firsts, seconds)

    def add_settler(self, sid: str, at: str, cargo: Mapping[str, int] | None = None) -> list[Event]:
        """A new settler on `at` with that cargo; may complete a win at once (R14)."""
        events = setup.add_settler(self._state, sid, at, cargo)
        if self._state.turn is None:
            first_turn(self._state)
        return events

    def add_robot(self, rid: str, at: str, ai: bool = True) -> None:
        """A new robot on `at`."""
        setup.add_robot(self._state, rid, at, ai)

    def add_ufo(self, uid: str, at: str, ai: bool = True) -> None:
        """A new UFO on `at` (E2)."""
        setup.add_ufo(self._state, uid, at, ai)

    def set_ai(self, aid: str, on: bool) -> None:
        """Switch the AI of a robot or UFO."""
        setup.set_ai(self._state, aid, on)

    def add_gates(self, first: str, first_where: str, second: str, second_where: str) -> None:
        """A linked gate pair; `where` is an asteroid (the gate orbits it) or a settler (who carries it)."""
        setup.add_gates(self._state, first, first_where, second, second_where)

    def pin_sun(self, aid: str, near: bool) -> list[Event]:
        """Pin an asteroid near or far now; reactions follow at once (R5, R6)."""
        return self._after(setup.pin_sun(self._state, aid, near))

    def storm(self, asteroids: list[str]) -> list[Event]:
        """A storm hits these asteroids now, without forecast (R7)."""
        return self._after(setup.scripted_storm(self._state, asteroids))

    def forecast(self, round_no: int, asteroids: list[str]) -> list[Event]:
        """Schedule a storm over these asteroids for the end-of-round phase of `round_no`."""
        return setup.scripted_forecast(self._state, round_no, asteroids)

    # ----- play -----
    def check(self, action: Action) -> Refusal | None:
        """Why the rules refuse `action` now, or None when they accept it. Changes nothing."""
        return check(self._state, action)

    def legal_actions(self, actor: str) -> list[Action]:
        """Every action `actor` may take now (empty when it cannot act)."""
        return legal_actions(self._state, actor)

    def choices(self, settler: str, brief: bool = False) -> Choices:
        """Every action `settler` could take now, legal or refused with its `Refusal`, and the hints a player
        needs: a drill's danger, the reactions to come here and one move away, the storms ahead (see
        `rules.choices`). A settler that cannot act now gets that reason as `refusal` and every entry refused
        with it, or no entries when `brief`. KeyError when `settler` is not a settler, robot or UFO of this
        game. O(degree)."""
        return choices(self._state, settler, brief)

    def choices_text(self, settler: str) -> str | None:
        """`choices(settler).to_json()` as compact JSON text (exactly as orjson writes it), or
        None when `settler` cannot act now (`actor_refusal`): what the server sends of a settler's choices.
        KeyError as `choices`."""
        return choices_text(self._state, settler)

    def choices_scope(self, settler: str) -> frozenset[str]:
        """The ids whose change (`take_touched`) can change `settler`'s choices but for the round, the turn and
        the game's status: itself and its gates, its asteroid, the neighbours, the gates orbiting there, their
        partners and the partners' asteroids."""
        return choices_scope(self._state, settler)

    def actor_refusal(self, actor: str) -> Refusal | None:
        """Why `actor` cannot act now at all (the game over, not an actor, dead, not its turn), or None: the
        `refusal` of its choices."""
        return actor_refusal(self._state, actor)

    def apply(self, action: Action) -> list[Event]:
        """Carry out an action and return its events; raises Refused (changing nothing) when refused.

        In strict turns the turn passes to the next living settler, and after the last one's step the robots,
        UFOs and the end-of-round phase run at once (their events are returned too).
        """
        state = self._state
        refusal = check(state, action)
        if refusal is not None:
            raise Refused(refusal)
        actor = state.things[action.actor]
        assert isinstance(actor, (Settler, Robot, Ufo))
        events = perform(state, actor, action)
        state.history.append(action)  # frozen: its JSON is written when the history is read
        if isinstance(actor, Settler) and state.options.turns == "strict":
            self._pass_turn(state.settler_order.index(actor.id), events)
            return events
        return self._after(events)

    def end_round(self) -> list[Event]:
        """Free turns: robots and UFOs step, then the end-of-round phase (R9, R12). Nothing once ended."""
        state = self._state
        if state.options.turns == "strict":
            raise Refused(Refusal("turns_strict", {}))
        if not state.running:
            return []
        state.history.append(dict(END_ROUND))
        return finish_round(state)

    def _after(self, events: list[Event]) -> list[Event]:
        """Strict turns: if the settler whose step it is has died, the turn moves on (R9a)."""
        state = self._state
        if state.options.turns == "strict" and state.running and state.turn is not None:
            current = state.settlers[state.turn]
            if not current.alive:
                self._pass_turn(state.settler_order.index(current.id), events)
        return events

    def _pass_turn(self, position: int, events: list[Event]) -> None:
        state = self._state
        if not state.running:
            return
        following = next_living(state, position)
        if following is not None:
            state.turn = following
        else:
            # every settler still to step has stepped or died: the round goes on to the robots (R9a)
            events.extend(finish_round(state))

    # ----- reading -----
    @property
    def status(self) -> str:
        """`running`, `won` or `lost`."""
        return self._state.status

    @property
    def round(self) -> int:
        """The current round (the first is 1)."""
        return self._state.round

    @property
    def turn(self) -> str | None:
        """The settler whose step it is (strict turns), else None."""
        return self._state.turn

    @property
    def winnable(self) -> bool:
        """R16: whether a win is still possible in principle."""
        return winnable(self._state)

    @property
    def options(self) -> Options:
        """The rule options in force."""
        return self._state.options

    @property
    def asteroids(self) -> Mapping[str, Asteroid]:
        """Every asteroid by id, in creation order (exploded ones included)."""
        return self._state.asteroids

    @property
    def settlers(self) -> Mapping[str, Settler]:
        """Every settler by id, in creation order (the dead included)."""
        return self._state.settlers

    @property
    def robots(self) -> Mapping[str, Robot]:
        """Every robot by id, in creation order (destroyed ones included)."""
        return self._state.robots

    @property
    def ufos(self) -> Mapping[str, Ufo]:
        """Every UFO by id, in creation order (destroyed ones included)."""
        return self._state.ufos

    @property
    def gates(self) -> Mapping[str, Gate]:
        """Every gate by id, in creation order (destroyed ones included)."""
        return self._state.gates

    @property
    def forecasts(self) -> list[Forecast]:
        """The storms forecast and not yet hit (R7)."""
        return list(self._state.forecasts)

    @property
    def history(self) -> list[dict[str, object]]:
        """The accepted inputs, in order, for `Game.replay`."""
        return history_json(self._state.history)

    def history_counts(self, kind: str) -> tuple[int, int]:
        """How many entries of `history` have an `actor`, and how many have the `type` `kind`: counted on the
        records as kept, without writing each applied action's JSON object as `history` does (that was a
        twentieth of a random bot's game on `small`, for a simulation's two counts)."""
        actors = of_kind = 0
        for entry in self._state.history:
            if isinstance(entry, Action):  # its JSON: {"type": its name, "actor": …, …}
                actors += 1
                if entry.name == kind:
                    of_kind += 1
                continue
            written = entry if isinstance(entry, dict) else entry.to_json()
            if "actor" in written:
                actors += 1
            if written.get("type") == kind:
                of_kind += 1
        return actors, of_kind

    @property
    def state(self) -> GameState:
        """The engine's own state, for the engine's tests and benchmarks. Other layers read the game through
        the properties and views above (`thing_view`, `take_touched`, `choices`, …)."""
        return self._state

    def kind_of(self, tid: str) -> str | None:
        """`asteroid`, `settler`, `robot`, `ufo` or `gate` for a known id, else None."""
        thing = self._state.things.get(tid)
        return thing.kind if thing else None

    def storm_round(self, aid: str) -> int | None:
        """The first round at whose end a forecast storm hits asteroid `aid`, or None (R7)."""
        return self._state.storm_at.get(aid)

    def reacts_at(self, aid: str) -> int | None:
        """The round at whose end the exposed reactive core of `aid` reacts, or None (R6, E1; `rules.dangers`)."""
        return reacts_at(self._state, self._state.asteroids[aid])

    def reaction(self, aid: str) -> Reaction | None:
        """What the exposed reactive core of `aid` will do and in how many rounds, or None (R6, E1)."""
        return reaction(self._state, self._state.asteroids[aid])

    def is_near(self, aid: str) -> bool:
        """True when the asteroid is near the Sun this round (R5)."""
        return self._state.is_near(self._state.asteroids[aid])

    def gate_active(self, gid: str) -> bool:
        """True when both gates of the pair exist and are placed (R11)."""
        return self._state.gate_active(self._state.gates[gid])
