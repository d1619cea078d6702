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

from dataclasses import dataclass

from ..ai.observation import Observation
from ..ai.simulate import game_options, resolve_belt
from ..rules import KINDS, Belt, Game, Refused, Wait
from ..rules.events import Died
from ..rules.materials import WIN_TARGET
from .encoding import Encoder, Mask, Vector
from .table import BeltTable

WIN_REWARD = 1.0
LOSS_REWARD = -1.0
DEATH_REWARD = -0.2
SHAPING = 0.05
ILLEGAL_REWARD = -0.01


def potential(game: Game) -> float:
    """Φ: units carried towards the win, at most 3 per kind (living settlers only)."""
    carried = dict.fromkeys(KINDS, 0)
    for s in game.settlers.values():
        if s.alive:
            for kind, n in s.cargo.items():
                carried[kind] += n
    return float(sum(min(n, WIN_TARGET) for n in carried.values()))


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


class Episode:
    """A game on a belt (a preset name, a file, a shipped belt's name, or a `Belt`) with its rules."""

    def __init__(self, belt: str | Belt = "small", rules: str = "classic", settlers: int = 3,
                 max_rounds: int = 300, slots: int = 16) -> None:
        self.belts = (lambda seed: belt) if isinstance(belt, Belt) else resolve_belt(belt)
        self.rules = rules
        self.settlers = settlers
        self.max_rounds = max_rounds
        self.encoder = Encoder(slots, max_rounds)
        self.game: Game | None = None
        self._potential = 0.0
        """Φ after the last step (see `potential`)."""
        self.table: BeltTable | None = None
        """The asteroids' columns of the observations, rewritten at each step where the engine touched them."""

    def start(self, seed: int) -> Game:
        """A new game: the belt and the game's dice from `seed`."""
        belt = self.belts(seed)
        self.game = Game.new(belt, game_options(belt, self.rules), seed=seed, settlers=self.settlers)
        self.table = BeltTable(self.game, Observation(self.game))
        self._potential = potential(self.game)
        return self.game

    def encode(self, settler: str) -> tuple[Vector, Mask]:
        """The observation vector and the action mask of `settler` now (its exits worked out once)."""
        obs = self.obs
        exits = self.encoder.exits(obs, settler)
        return (self.encoder.observe(obs, settler, self.table, exits),
                self.encoder.mask(obs, settler, exits))

    @property
    def obs(self) -> Observation:
        """The players' observation of the game."""
        assert self.game is not None, "call start() first"
        return Observation(self.game)

    def step(self, settler: str, index: int) -> Outcome:
        """`settler` takes the action at `index` (refused ones become `wait`); the game moves on."""
        game = self.game
        assert game is not None, "call start() first"
        action = self.encoder.action(Observation(game), settler, int(index))
        before = self._potential
        try:
            events = game.apply(action)  # checks it first, and changes nothing when it refuses
            illegal = False
        except Refused:
            events = game.apply(Wait(settler))
            illegal = True
        assert self.table is not None
        self.table.update()  # the rows of what the step touched, never the whole belt
        deaths = tuple(e.actor for e in events if isinstance(e, Died))
        self._potential = potential(game)
        reward = SHAPING * (self._potential - before) + DEATH_REWARD * len(deaths)
        if illegal:
            reward += ILLEGAL_REWARD
        if game.status == "won":
            reward += WIN_REWARD
        elif game.status == "lost":
            reward += LOSS_REWARD
        terminated = game.status != "running"
        truncated = not terminated and game.round > self.max_rounds
        return Outcome(reward, illegal, deaths, terminated, truncated)
