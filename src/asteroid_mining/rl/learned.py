"""`learned`: a policy trained with `asteroid-mining train`, played with numpy alone.

The weights are a small multi-layer perceptron exported from training (`rl.train`) to a `.npz` file, with a JSON
sidecar naming what it was trained on: the observation's size and the feature table's version (`encoding`), the
exit slots, the round cap the round feature is scaled by, and the command and seed that made it. Playing needs no
torch: the observation vector (`Encoder.observe`), a few matrix products, the logits of the illegal actions
masked out, and the highest one taken among the actions a one-step check of storms and explosions finds safest
(`risk`, `exposed`; deterministic: the same game gives the same moves).

    from asteroid_mining.ai import make_bot
    bot = make_bot("learned")          # the shipped reference policy, weights/learned-v2.npz
    LearnedBot(policy=load_policy("runs/a/policy.npz"))   # a policy of one's own
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..ai.observation import UNKNOWN, Observation
from ..rules import Action, Deposit, Drill, Mine, Move, Wait
from ..rules.dangers import exposed_now_reacts
from ..rules.materials import CARGO_LIMIT, HOLLOW, MATERIALS
from .encoding import FIXED_ACTIONS, Encoder, Mask, Vector, feature_names, observation_size
from .hops import Hops, links_key

VERSION = "learned-v2"
"""The shipped policy's version: a new one whenever the feature table changes (its hash, `feature_version`)."""
WEIGHTS = Path(__file__).with_name("weights") / f"{VERSION}.npz"
"""The shipped reference policy (its sidecar: the same name, `.json`)."""

ACTIVATIONS = ("relu", "tanh")
"""The hidden layers' activations a policy file may name."""

Floats = npt.NDArray[np.float32]


def feature_version(slots: int) -> str:
    """The feature table's version: a hash of the observation's feature names in order (`feature_names`), so
    that a feature added, removed or moved gives another version and the shipped policy must be trained again."""
    return hashlib.sha256("\n".join(feature_names(slots)).encode()).hexdigest()[:12]


class PolicyError(ValueError):
    """A policy file that cannot be played: missing, damaged, or made for another observation (the message
    says which file and what)."""


@dataclass(frozen=True)
class Policy:
    """A trained policy's layers (weights `W` of shape (in, out) and biases), and what it was trained on."""

    weights: tuple[Floats, ...]
    biases: tuple[Floats, ...]
    activation: str
    slots: int
    max_rounds: int
    meta: dict[str, Any]
    """The sidecar, as read."""

    def logits(self, x: Floats) -> Floats:
        """The action logits of an observation vector (or a batch of them, one per row)."""
        h = x
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w + b
            if i < last:
                h = np.maximum(h, 0.0) if self.activation == "relu" else np.tanh(h)
        return h

    def act(self, x: Vector, mask: Mask) -> int:
        """The legal action (a 1 in `mask`) with the highest logit; the lowest index among equals."""
        logits = self.logits(x.astype(np.float32, copy=False))
        return int(np.argmax(np.where(mask.astype(bool), logits, -np.inf)))


def sidecar_of(path: Path) -> Path:
    """The JSON sidecar of a weights file."""
    return path.with_suffix(".json")


def load_policy(path: str | Path = WEIGHTS) -> Policy:
    """The policy in `path` (a `.npz` of `w0`, `b0`, `w1`, … and its `.json` sidecar), checked against the
    current observation: raises PolicyError naming the file and what is wrong."""
    path = Path(path)
    side = sidecar_of(path)
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PolicyError(f"{side}: no sidecar (a policy file comes with its .json)") from None
    except (OSError, ValueError) as bad:
        raise PolicyError(f"{side}: not readable JSON ({bad})") from None
    if not isinstance(meta, dict):
        raise PolicyError(f"{side}: must be a JSON object")
    for key, kind in (("observation_size", int), ("feature_version", str), ("slots", int), ("max_rounds", int),
                      ("activation", str), ("layers", int)):
        if not isinstance(meta.get(key), kind) or isinstance(meta.get(key), bool):
            raise PolicyError(f"{side}: {key}: missing or not a {kind.__name__}")
    if meta["activation"] not in ACTIVATIONS:
        raise PolicyError(f"{side}: activation: {meta['activation']!r} is not one of {', '.join(ACTIVATIONS)}")
    size = observation_size(meta["slots"])
    if meta["observation_size"] != size or meta["feature_version"] != feature_version(meta["slots"]):
        made = meta.get("version") if isinstance(meta.get("version"), str) else path.stem
        raise PolicyError(
            f"{side}: {made} was trained on observations of {meta['observation_size']} features (table "
            f"{meta['feature_version']}), the game's are {size} (table {feature_version(meta['slots'])}, "
            f"{VERSION}): train it again")
    try:
        with np.load(path) as data:
            arrays = {k: np.asarray(data[k], dtype=np.float32) for k in data.files}
    except FileNotFoundError:
        raise PolicyError(f"{path}: no such file") from None
    except (OSError, ValueError) as bad:
        raise PolicyError(f"{path}: not a weights file ({bad})") from None
    layers = meta["layers"]
    try:
        weights = tuple(arrays[f"w{i}"] for i in range(layers))
        biases = tuple(arrays[f"b{i}"] for i in range(layers))
    except KeyError as missing:
        raise PolicyError(f"{path}: no array {missing.args[0]} (the sidecar says {layers} layers)") from None
    width = size
    for i, (w, b) in enumerate(zip(weights, biases, strict=True)):
        if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
            raise PolicyError(f"{path}: w{i}/b{i}: shapes {w.shape}/{b.shape} do not follow a layer of {width}")
        width = w.shape[1]
    n_actions = Encoder(meta["slots"]).n_actions
    if width != n_actions:
        raise PolicyError(f"{path}: the last layer gives {width} actions, the game has {n_actions}")
    return Policy(weights, biases, meta["activation"], meta["slots"], meta["max_rounds"], meta)


@cache
def _shipped() -> Policy:
    """The shipped policy, read once per process (every `learned` bot shares it: it is never changed)."""
    return load_policy(WEIGHTS)


SAFE, GAMBLE, DOOMED, DIES = 0, 1, 2, 3
"""`risk`'s answers, from best to worst."""

EXPOSED_PENALTY = 1.5
"""What the `learned` bot takes off a safe action's logit when it leaves the settler `exposed`. Chosen on 100
evaluation games at `normal` (seeds 7,000,000 onwards; 0: 88 won, 0.5: 89, 1: 94, 1.5: 95, 2: 92, 3: 82, the
larger ones keeping settlers by shelters at the cost of their errands) and confirmed on 100 others (seeds
8,000,000 onwards: 86 won at 0, 91 at 1.5); none of the benchmark's seeds or the docs' tables were used."""


@dataclass(frozen=True, slots=True)
class _After:
    """Where `action` leaves the settler at this round's end, and that asteroid then (one step ahead)."""

    aid: str
    mantle: int
    core: str
    carry: int
    changed: bool
    """The action bared, mined or filled the core (rather than leaving it as it was)."""


def _after(obs: Observation, settler: str, action: Action, dest: str | None) -> _After | None:
    at = obs.settler(settler).at
    if at is None:
        return None
    here = obs.asteroid(at)
    carry = obs.settler(settler).carry_total
    if isinstance(action, Move):
        there = obs.asteroid(dest or action.target)
        return _After(there.id, there.mantle, there.core, carry, False)
    if isinstance(action, Drill):
        return _After(at, here.mantle - 1, here.core, carry, True)
    if isinstance(action, Mine):
        return _After(at, here.mantle, HOLLOW, carry + 1, True)
    if isinstance(action, Deposit):
        return _After(at, here.mantle, action.kind, carry - 1, True)
    return _After(at, here.mantle, here.core, carry, False)


def _saved_by_one_action(after: _After) -> bool:
    """Standing as `after` says, one action makes the settler's own asteroid a shelter: the last layer over a
    hollow core drilled, or the core (not uranium) mined out."""
    if after.mantle == 1 and after.core == HOLLOW:
        return True
    return (after.mantle == 0 and after.core in MATERIALS and after.carry < CARGO_LIMIT
            and not MATERIALS[after.core].radioactive)


def risk(obs: Observation, settler: str, action: Action, dest: str | None = None) -> int:
    """How `action` leaves `settler` before the next storm or reaction, from what players may know (R17), one
    step ahead: DIES (a forecast storm hits where it stands at this round's end and that is no shelter, or an
    exposed uranium core there explodes by then), DOOMED (a storm hits there at the next round's end and no one
    action then reaches safety), GAMBLE (it hangs on a core nobody has surveyed: a drill that bares it, a shelter
    if hollow) or SAFE. `dest`: where a move arrives (a gate's far side; default the move's target).

    The move slots are ranked by the observation, but nothing in a policy's network guarantees it never drills
    on as a storm comes: the `learned` bot plays the legal action its policy ranks highest among those of the
    lowest risk (docs/ai.md, *A learned agent*)."""
    after = _after(obs, settler, action, dest)
    if after is None:
        return SAFE
    r = obs.round
    aid, mantle, core = after.aid, after.mantle, after.core
    if mantle == 0 and core in MATERIALS and MATERIALS[core].radioactive:
        if after.changed:  # bared (or filled) by this action: it reacts by this round's end if near now or next
            near = obs.next_near(aid, r)
            fuse = obs.options.uranium_fuse - obs.asteroid(aid).exposures
            if fuse <= 1 and exposed_now_reacts(core, None if near is None else near - r):
                return DIES
        elif obs.reacts_at(aid) == r:
            return DIES
    storm = obs.storm_round(aid)
    if storm is None or storm > r + 1 or (mantle == 0 and core == HOLLOW):
        return SAFE
    if mantle == 0 and core == UNKNOWN:
        return GAMBLE
    if storm == r:
        return GAMBLE if mantle == 1 and core == UNKNOWN and isinstance(action, Drill) else DIES
    # the storm comes at the next round's end: one action then must make it safe
    if mantle == 1 and core == UNKNOWN:
        return GAMBLE
    if _saved_by_one_action(after):
        return SAFE
    for _, far in obs.exits(aid):
        if (obs.storm_round(far) != r + 1 or obs.asteroid(far).shelter) and obs.reacts_at(far) != r + 1:
            return SAFE
    return DOOMED


def exposed(obs: Observation, settler: str, action: Action, dest: str | None = None) -> bool:
    """After `action`, a storm forecast for the next round's end where the settler stands (a round's warning, as
    at `normal`) would find no one action that saves it whatever the storm's region: no shelter there or one
    move away, no hollow core one drill from bare, no core to mine out. Not deadly in itself (most storms hit
    elsewhere), so the bot only weighs it (`EXPOSED_PENALTY`), and only in games with a round's warning."""
    after = _after(obs, settler, action, dest)
    if after is None or (after.mantle == 0 and after.core == HOLLOW) or _saved_by_one_action(after):
        return False
    return not any(obs.asteroid(far).shelter for _, far in obs.exits(after.aid))


class LearnedBot:
    """Plays a trained policy: among the legal actions of the lowest `risk`, the one with the highest logit, less
    `EXPOSED_PENALTY` if it leaves the settler `exposed` in a game with storms forecast a round ahead
    (deterministic; the seed is not used). `guard=False`: the policy's own choice, unchecked."""

    name = "learned"

    def __init__(self, seed: int = 0, policy: Policy | None = None, guard: bool = True) -> None:
        self.policy = policy if policy is not None else _shipped()
        self.guard = guard
        self.encoder = Encoder(self.policy.slots, self.policy.max_rounds)
        self._hops: Hops | None = None
        """The distances of the game last played (kept while the links stay the same)."""

    def choose(self, obs: Observation, settler: str) -> Action:
        """The action the policy ranks highest among the legal ones (`wait` when none is legal)."""
        encoder = self.encoder
        exits = encoder.exits(obs, settler)
        mask = encoder.mask(obs, settler, exits)
        if not mask.any():
            return Wait(settler)
        hops = self._hops
        if hops is None or not hops.obs.same_game(obs):
            hops = self._hops = Hops(obs)
        hops.sync(links_key(obs))
        x = encoder.observe(obs, settler, exits=exits, hops=hops)
        if not self.guard:
            return encoder.action(obs, settler, self.policy.act(x, mask), exits)
        logits = self.policy.logits(x.astype(np.float32, copy=False))
        best: tuple[int, float] | None = None
        choice: Action = Wait(settler)
        # a round's warning: the next action must reach safety. Without one nothing can be done in time, and with
        # more there is time to walk further (`exposed` looks one action ahead)
        weigh = obs.options.storm_warning == 1
        for index in np.flatnonzero(mask):  # the index order breaks ties as `Policy.act` does
            action = encoder.action(obs, settler, int(index), exits)
            dest = exits[index - FIXED_ACTIONS][1] if index >= FIXED_ACTIONS else None
            penalty = EXPOSED_PENALTY if weigh and exposed(obs, settler, action, dest) else 0.0
            key = (risk(obs, settler, action, dest), penalty - float(logits[index]))
            if best is None or key < best:
                best, choice = key, action
        return choice


__all__ = ["DIES", "DOOMED", "EXPOSED_PENALTY", "GAMBLE", "SAFE", "VERSION", "WEIGHTS", "LearnedBot", "Policy",
           "PolicyError", "exposed", "feature_version", "load_policy", "risk", "sidecar_of"]
