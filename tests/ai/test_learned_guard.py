"""The `learned` bot's one-step check (`rl.learned.risk`, `rl.learned.exposed`): among the legal actions of the
lowest risk it plays the one its policy scores highest (less a penalty for leaving the settler where a storm
with a round's warning would trap it), so a policy that would drill on (or walk) into a storm it sees coming
stands somewhere safe instead. No torch needed."""

from __future__ import annotations

from dataclasses import dataclass

from asteroid_mining.ai import Observation
from asteroid_mining.maps.resolve import belt_source
from asteroid_mining.rl.learned import DIES, EXPOSED_PENALTY, SAFE, LearnedBot, exposed, risk
from asteroid_mining.rules import Action, Game, Move, Wait
from asteroid_mining.rules.events import Died

SEEDS = range(20)
"""Games at `normal` on `small` (a storm forecast almost every round) searched for a position where it matters."""


def game_of(seed: int) -> Game:
    resolved = belt_source("small", "normal", files=True)(seed)
    return Game.new(resolved.belt, resolved.options_for("classic"), seed=seed, settlers=3)


def dest_of(obs: Observation, settler: str, action: Action) -> str | None:
    at = obs.settler(settler).at
    assert at is not None
    return dict(obs.exits(at)).get(action.target) if isinstance(action, Move) else None


def risk_of(obs: Observation, settler: str, action: Action) -> int:
    return risk(obs, settler, action, dest_of(obs, settler, action))


def exposed_of(obs: Observation, settler: str, action: Action) -> bool:
    return exposed(obs, settler, action, dest_of(obs, settler, action))


def alone(obs: Observation, settler: str, action: Action) -> bool:
    """No one else (settler or robot) on the asteroid `action` leaves `settler` on, who could drill it into a
    shelter later in the round: the check looks one step ahead, not at the teammates' steps after it."""
    at = obs.settler(settler).at
    assert at is not None
    there = obs.asteroid(dest_of(obs, settler, action) or at)
    return set(there.settlers) <= {settler} and not there.robots


@dataclass
class Override:
    """A position where the check overrode the policy: the seed, the moves played before, the settler."""

    seed: int
    moves: int
    settler: str
    unchecked: Action
    checked: Action


def first_override() -> Override:
    """The first position (by seed, then move) where the unchecked policy's action would die at this round's
    end, with no one there to drill a shelter in time, and the checked bot plays another."""
    guarded, plain = LearnedBot(), LearnedBot(guard=False)
    for seed in SEEDS:
        game = game_of(seed)
        obs, moves = Observation(game), 0
        while game.status == "running" and game.round <= 300:
            settler = game.turn
            assert settler is not None
            checked, unchecked = guarded.choose(obs, settler), plain.choose(obs, settler)
            if checked != unchecked and risk_of(obs, settler, unchecked) == DIES and alone(obs, settler, unchecked):
                return Override(seed, moves, settler, unchecked, checked)
            game.apply(checked)
            moves += 1
    raise AssertionError(f"no position in seeds {SEEDS} where the check changes a deadly choice")


def replay(found: Override, action: Action) -> tuple[Game, list[Died]]:
    """The game of `found` played up to its position, `action` taken there, and the round played to its end by
    the checked bot; the deaths of that round."""
    game = game_of(found.seed)
    obs, bot = Observation(game), LearnedBot()
    for _ in range(found.moves):
        settler = game.turn
        assert settler is not None
        game.apply(bot.choose(obs, settler))
    assert game.turn == found.settler
    round_ = game.round
    deaths = [e for e in game.apply(action) if isinstance(e, Died)]
    while game.status == "running" and game.round == round_:
        settler = game.turn
        assert settler is not None
        deaths += [e for e in game.apply(bot.choose(obs, settler)) if isinstance(e, Died)]
    return game, deaths


def test_the_check_turns_a_deadly_choice_into_a_safe_one() -> None:
    found = first_override()
    game, deaths = replay(found, found.unchecked)
    assert [(d.actor, d.cause) for d in deaths if d.actor == found.settler] == [(found.settler, "storm")]
    game, deaths = replay(found, found.checked)
    assert game.settlers[found.settler].alive
    assert all(d.actor != found.settler for d in deaths)


def test_the_action_taken_instead_is_safe_and_the_best_safe_one() -> None:
    found = first_override()
    game = game_of(found.seed)
    obs, bot = Observation(game), LearnedBot()
    for _ in range(found.moves):
        settler = game.turn
        assert settler is not None
        game.apply(bot.choose(obs, settler))
    assert risk_of(obs, found.settler, found.checked) == SAFE
    # no safe action scored higher was passed over: its logit, less the penalty if it leaves the settler exposed
    encoder = bot.encoder
    exits = encoder.exits(obs, found.settler)
    mask = encoder.mask(obs, found.settler, exits)
    logits = bot.policy.logits(encoder.observe(obs, found.settler, exits=exits).astype("float32"))

    def score(index: int) -> float:
        action = encoder.action(obs, found.settler, index, exits)
        return float(logits[index]) - EXPOSED_PENALTY * exposed_of(obs, found.settler, action)

    chosen = encoder.index(obs, found.settler, found.checked, exits)
    safe = [i for i in range(len(mask))
            if mask[i] and risk_of(obs, found.settler, encoder.action(obs, found.settler, i, exits)) == SAFE]
    assert chosen in safe and max(score(i) for i in safe) == score(chosen)


def test_being_one_action_from_a_shelter_is_weighed() -> None:
    # a settler on a shelter is not exposed, whatever it does there; on the way, the bot prefers (by the penalty)
    # the asteroids a storm with one round of warning could not trap it on
    game = game_of(3)
    obs, bot = Observation(game), LearnedBot()
    seen = {False: 0, True: 0}
    while game.status == "running" and game.round <= 80:
        settler = game.turn
        assert settler is not None
        at = obs.settler(settler).at
        assert at is not None
        if obs.asteroid(at).shelter:
            assert not exposed_of(obs, settler, Wait(settler))
        for action in obs.legal_actions(settler):
            seen[exposed_of(obs, settler, action)] += 1
        game.apply(bot.choose(obs, settler))
    assert seen[False] and seen[True]  # both occur in a real game


def test_unchecked_the_bot_plays_its_policys_choice() -> None:
    game = game_of(0)
    obs = Observation(game)
    plain = LearnedBot(guard=False)
    settler = game.turn
    assert settler is not None
    encoder = plain.encoder
    exits = encoder.exits(obs, settler)
    index = plain.policy.act(encoder.observe(obs, settler, exits=exits), encoder.mask(obs, settler, exits))
    assert plain.choose(obs, settler) == encoder.action(obs, settler, index, exits)
