"""One game played by a learning agent, step by step, with the reward of each step (docs/ai.md).

The reward is shared by the whole team:

- `+1` when the game is won, `-1` when it is lost (every settler dead);
- `-0.2` for each settler that dies;
- shaping: `0.05 ×` the change of Φ, Φ = Σ over kinds of min(units the living settlers carry, 3) — potential-based,
  so it rewards progress towards the base without changing which policies are best;
- `-0.01` for an action the rules refuse (it is replaced by `wait`).

An episode ends (`terminated`) when the game is won or lost, and is cut short (`truncated`) after `max_rounds`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..ai.bot import SettlerBot
from ..ai.observation import Observation
from ..ai.registry import BotError, bot_factory, make_bot
from ..maps.difficulty import difficulty_named
from ..maps.resolve import BeltSource, ResolveError, belt_source
from ..rules import KINDS, Action, Belt, Game, Refused, Wait
from ..rules import PRESETS as RULE_PRESETS
from ..rules.events import Died, Event
from ..rules.materials import WIN_TARGET
from .encoding import FIXED_ACTIONS, Encoder, Mask, Vector
from .hops import Distances, Hops, gate_key
from .table import BeltTable, Floats, Numbers, Refresh

WIN_REWARD = 1.0
LOSS_REWARD = -1.0
DEATH_REWARD = -0.2
SHAPING = 0.05
ILLEGAL_REWARD = -0.01


Storage = Callable[[int], tuple[Floats, Numbers, Distances | None]]
"""Given a game's number of asteroids: where its `BeltTable.features` and `numbers` are kept, and its `Hops`
matrix (None: an array of its own)."""


def carried(game: Game) -> dict[str, int]:
    """Units of each kind the living settlers carry, together."""
    out = dict.fromkeys(KINDS, 0)
    for s in game.settlers.values():
        if s.alive:
            for kind, n in s.cargo.items():
                out[kind] += n
    return out


def potential(game: Game) -> float:
    """Φ: units carried towards the win, at most 3 per kind (living settlers only)."""
    return _potential(carried(game))


def _potential(load: dict[str, int]) -> float:
    return float(sum(min(n, WIN_TARGET) for n in load.values()))


def _needs(load: dict[str, int]) -> dict[str, int]:
    # what `ai.team.team_needs` gives, from the same sums as Φ (one pass over the settlers for both)
    return {k: max(0, WIN_TARGET - n) for k, n in load.items()}


def final_mask(n_actions: int) -> Mask:
    """The action mask of an episode's last observation: `wait` (0) alone. The game is over, so no action
    matters, but a masked policy must have one action to sample (an all-zero mask gives NaN probabilities)."""
    out = np.zeros(n_actions, dtype=np.int8)
    out[0] = 1
    return out


def describe(game: Game, to_play: str | None) -> str:
    """A few lines of text about the game, for the environments' `ansi` rendering."""
    lines = [f"round {game.round}, {game.status}, {to_play} to play"]
    for s in game.settlers.values():
        cargo = ", ".join(f"{n} {k}" for k, n in s.cargo.items() if n) or "nothing"
        lines.append(f"  {s.id}: {'on ' + s.at if s.at else 'dead'}, carrying {cargo}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one step did."""

    reward: float
    illegal: bool
    deaths: tuple[str, ...]
    terminated: bool
    truncated: bool
    events: tuple[Event, ...] = ()
    """What the engine said happened, the bots' turns included."""


class Episode:
    """A game on a belt (a shipped belt's name, a preset, a file, or a `Belt`) with its rules (`maps.resolve`).

    `difficulty`: a difficulty level (`maps.difficulty`) applied to the belt. `bots`: seats played by bots
    (settler id → a bot's name, as `ai.make_bot` knows it), which act by themselves between the learner's
    steps; the learner plays the other seats (`learners`). A step's reward sums what happened up to the
    learner's next step, the bots' turns included.
    """

    def __init__(self, belt: str | Belt | BeltSource = "small", rules: str = "classic", settlers: int = 3,
                 max_rounds: int = 300, slots: int = 16, difficulty: str | None = None,
                 bots: Mapping[str, str] | None = None) -> None:
        if settlers < 1:
            raise ValueError(f"settlers must be at least 1, not {settlers}")
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, not {max_rounds}")
        if slots < 1:
            raise ValueError(f"neighbour_slots must be at least 1, not {slots}")
        try:
            if isinstance(belt, BeltSource):  # already checked (a simulation's): its own difficulty holds
                self.belts = belt
            elif isinstance(belt, Belt):
                self.belts = BeltSource(belt.name, fixed=belt,
                                        difficulty=difficulty_named(difficulty) if difficulty else None)
            else:
                self.belts = belt_source(belt, difficulty, files=True)
        except ResolveError as wrong:
            raise ValueError(str(wrong)) from None
        if rules not in RULE_PRESETS:
            raise ValueError(f"unknown rules {rules!r}: use {' or '.join(RULE_PRESETS)}")
        seats = [f"s{n}" for n in range(1, settlers + 1)]
        self.bot_seats: dict[str, str] = dict(bots or {})
        """Seats played by bots: settler id → bot name."""
        for seat, name in self.bot_seats.items():
            if seat not in seats:
                raise ValueError(f"bots[{seat!r}]: no such seat (the seats are {', '.join(seats)})")
            try:
                bot_factory(name)
            except BotError as unknown:
                raise ValueError(f"bots[{seat!r}]: {unknown}") from None
        self.learners = [s for s in seats if s not in self.bot_seats]
        """The seats the learner plays, in turn order."""
        if not self.learners:
            raise ValueError("bots: every seat is a bot's; leave at least one to the learner")
        self.rules = rules
        self.settlers = settlers
        self.max_rounds = max_rounds
        self.encoder = Encoder(slots, max_rounds)
        self.game: Game | None = None
        self.seed = 0
        """The seed of the game being played."""
        self._bots: dict[str, SettlerBot] = {}
        self._potential = 0.0
        """Φ after the last step (see `potential`)."""
        self.table: BeltTable | None = None
        """The asteroids' columns of the observations, rewritten at each step where the engine touched them."""
        self._need: dict[str, int] = {}
        """What the team still needs (`ai.team.team_needs`), after the last step."""
        self._exits: tuple[str, list[tuple[str, str]]] | None = None
        """The exit slots of one settler in the game as it is (see `exits`)."""
        self._obs: Observation | None = None
        self.hops: Hops | None = None
        """Moves between asteroids (the guidance features), kept until the links change."""
        self.storage: Storage | None = None
        """Where a new game's table and moves are kept (`rl.batch`: views of a batch's arrays), given the
        number of asteroids; None: arrays of their own."""
        self.table_native: Refresh | None = None
        """The C function that fills the rows of a table kept in `storage` (`table.BeltTable.native`), or None."""

    def start(self, seed: int) -> Game:
        """A new game: the belt and the game's dice from `seed` (the bots in seats are seeded with it too); the
        bots play until it is a learner's turn."""
        resolved = self.belts(seed)
        self.seed = seed
        self.game = Game.new(resolved.belt, resolved.options_for(self.rules), seed=seed, settlers=self.settlers)
        obs = self._obs = Observation(self.game)
        if self.storage is None:
            self.table = BeltTable(self.game, obs)
            self.hops = Hops(obs)
        else:
            features, numbers, matrix = self.storage(obs.asteroid_count)
            self.table = BeltTable(self.game, obs, features, numbers, self.table_native)
            self.hops = Hops(obs, matrix)
        self._bots = {seat: make_bot(name, seed) for seat, name in self.bot_seats.items()}
        if self._bots:
            self._play_bots()
        self._moved()
        return self.game

    def _play_bots(self) -> tuple[list[Event], bool]:
        """The bots in seats act until a learner's turn (or the game's end, or the round cap): their events,
        and whether one of their actions was refused (then it waited)."""
        game, obs = self.game, self._obs
        assert game is not None and obs is not None
        events: list[Event] = []
        refused = False
        while game.status == "running" and game.round <= self.max_rounds:
            bot = self._bots.get(game.turn or "")
            if bot is None:
                break
            settler = game.turn
            assert settler is not None
            try:
                events += game.apply(bot.choose(obs, settler))
            except Refused:
                events += game.apply(Wait(settler))
                refused = True
        return events, refused

    def _moved(self, touched: set[str] | None = None) -> None:
        """The game changed: what is worked out once per position is worked out again when next asked for.
        `touched`: the things the engine changed (`Game.take_touched`); the team's sums stay when no settler is
        among them (the engine names every thing whose state changed)."""
        self._exits = None
        game = self.game
        assert game is not None
        if touched is not None and game.settlers.keys().isdisjoint(touched):
            return
        # `carried`, `_potential` and `_needs` in one pass (a step's every game does it)
        load = dict.fromkeys(KINDS, 0)
        for s in game.settlers.values():
            if s.alive:
                for kind, n in s.cargo.items():
                    load[kind] += n
        self._potential = float(sum([n if n < WIN_TARGET else WIN_TARGET for n in load.values()]))
        self._need = {k: WIN_TARGET - n if n < WIN_TARGET else 0 for k, n in load.items()}

    def exits(self, settler: str) -> list[tuple[str, str]]:
        """`settler`'s exit slots now (`Encoder.exits`), worked out once per step and settler: the observation
        after a step and the next step's move both need them, and the game does not change in between."""
        cached = self._exits
        if cached is not None and cached[0] == settler:
            return cached[1]
        exits = self.encoder.exits(self.obs, settler, self._need)
        self._exits = (settler, exits)
        return exits

    def encode(self, settler: str) -> tuple[Vector, Mask]:
        """The observation vector and the action mask of `settler` now (its exits worked out once)."""
        obs = self.obs
        exits = self.exits(settler)
        hops, table = self.hops, self.table
        assert hops is not None and table is not None
        hops.sync((table.gone, gate_key(obs)))  # the links change only with an explosion or a gate (`hops`)
        return (self.encoder.observe(obs, settler, table, exits, self._need, hops),
                self.encoder.mask(obs, settler, exits))

    @property
    def obs(self) -> Observation:
        """The players' observation of the game (a live view)."""
        obs = self._obs
        assert obs is not None, "call start() first"
        return obs

    def step(self, settler: str, index: int) -> Outcome:
        """`settler` takes the action at `index` (refused ones become `wait`); the game moves on."""
        game = self.game
        assert game is not None, "call start() first"
        index = int(index)
        exits = self.exits(settler) if index >= FIXED_ACTIONS else None
        return self.apply(settler, self.encoder.action(self.obs, settler, index, exits))

    def apply(self, settler: str, action: Action) -> Outcome:
        """`settler` takes `action` (a refused one becomes `wait`); the game moves on. What `step` does with an
        index, for an action given as the engine's (a bot's, which may move beyond the exit slots)."""
        before = self._potential
        events, illegal = self._act(settler, action)
        deaths = tuple(e.actor for e in events if isinstance(e, Died))
        reward, terminated, truncated = self._judged(before, len(deaths), illegal)
        return Outcome(reward, illegal, deaths, terminated, truncated, tuple(events))

    def advance(self, settler: str, index: int) -> tuple[float, bool, bool]:
        """`step` for a caller that keeps only the reward, `terminated` and `truncated` (`rl.batch`): the same
        game and reward, without the step's record (`Outcome`)."""
        before = self._potential
        exits = self.exits(settler) if index >= FIXED_ACTIONS else None
        events, illegal = self._act(settler, self.encoder.action(self.obs, settler, index, exits))
        return self._judged(before, sum(1 for e in events if isinstance(e, Died)), illegal)

    def _act(self, settler: str, action: Action) -> tuple[list[Event], bool]:
        """The action (`wait` when refused) and the bots' turns after it: their events, and whether it was
        refused; the table and the team's sums brought up to date."""
        game = self.game
        assert game is not None, "call start() first"
        try:
            events = game.apply(action)  # checks it first, and changes nothing when it refuses
            illegal = False
        except Refused:
            events = game.apply(Wait(settler))
            illegal = True
        if self._bots:
            events = [*events, *self._play_bots()[0]]
        assert self.table is not None
        touched = self.table.update()  # the rows of what the step touched, never the whole belt
        self._moved(touched)
        return events, illegal

    def _judged(self, before: float, deaths: int, illegal: bool) -> tuple[float, bool, bool]:
        """The step's reward (Φ was `before` it), `terminated` and `truncated`."""
        game = self.game
        assert game is not None
        reward = SHAPING * (self._potential - before) + DEATH_REWARD * deaths
        if illegal:
            reward += ILLEGAL_REWARD
        if game.status == "won":
            reward += WIN_REWARD
        elif game.status == "lost":
            reward += LOSS_REWARD
        terminated = game.status != "running"
        truncated = not terminated and game.round > self.max_rounds
        return reward, terminated, truncated
