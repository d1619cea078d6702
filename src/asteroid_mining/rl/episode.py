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
from ..maps.resolve import BeltSource, belt_source
from ..rules import KINDS, Belt, Game, Wait
from ..rules.events import Died
from ..rules.materials import WIN_TARGET
from .encoding import Encoder

WIN_REWARD = 1.0
LOSS_REWARD = -1.0
DEATH_REWARD = -0.2
SHAPING = 0.05
ILLEGAL_REWARD = -0.01


def potential(game: Game) -> float:
    """Φ: units carried towards the win, at most 3 per kind (living settlers only)."""
    total = 0
    for kind in KINDS:
        carried = sum(s.cargo[kind] for s in game.settlers.values() if s.alive)
        total += min(carried, WIN_TARGET)
    return float(total)


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
    """A game on a belt (a shipped belt's name, a preset, a file, or a `Belt`) with its rules (`maps.resolve`)."""

    def __init__(self, belt: str | Belt = "small", rules: str = "classic", settlers: int = 3,
                 max_rounds: int = 300, slots: int = 16, difficulty: str | None = None) -> None:
        self.belts = (BeltSource(belt.name, fixed=belt) if isinstance(belt, Belt)
                      else belt_source(belt, difficulty, files=True))
        self.rules = rules
        self.settlers = settlers
        self.max_rounds = max_rounds
        self.encoder = Encoder(slots, max_rounds)
        self.game: Game | None = None

    def start(self, seed: int) -> Game:
        """A new game: the belt and the game's dice from `seed`."""
        resolved = self.belts(seed)
        self.game = Game.new(resolved.belt, resolved.options_for(self.rules), seed=seed, settlers=self.settlers)
        return self.game

    @property
    def obs(self) -> Observation:
        """The players' observation of the game."""
        assert self.game is not None, "call start() first"
        return Observation(self.game)

    def step(self, settler: str, index: int) -> Outcome:
        """`settler` takes the action at `index` (refused ones become `wait`); the game moves on."""
        game = self.game
        assert game is not None, "call start() first"
        obs = Observation(game)
        action = self.encoder.action(obs, settler, int(index))
        illegal = obs.check(action) is not None
        if illegal:
            action = Wait(settler)
        before = potential(game)
        events = game.apply(action)
        deaths = tuple(e.actor for e in events if isinstance(e, Died))
        reward = SHAPING * (potential(game) - before) + DEATH_REWARD * len(deaths)
        if illegal:
            reward += ILLEGAL_REWARD
        if game.status == "won":
            reward += WIN_REWARD
        elif game.status == "lost":
            reward += LOSS_REWARD
        terminated = game.status != "running"
        truncated = not terminated and game.round > self.max_rounds
        return Outcome(reward, illegal, deaths, terminated, truncated)
