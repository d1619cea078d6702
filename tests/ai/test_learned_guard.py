"""The `learned` bot's one-step check (`rl.learned.risk`): among the legal actions it plays the one its policy
ranks highest of the lowest risk, so a policy that would drill on (or walk) into a storm it sees coming stands
somewhere safe instead. No torch needed."""

from __future__ import annotations

from dataclasses import dataclass

from asteroid_mining.ai import Observation
from asteroid_mining.maps.resolve import belt_source
from asteroid_mining.rl.learned import DIES, SAFE, LearnedBot, risk
from asteroid_mining.rules import Action, Game, Move
from asteroid_mining.rules.events import Died

SEEDS = range(20)
"""Games at `normal` on `small` (a storm forecast almost every round) searched for a position where it matters."""


def game_of(seed: int) -> Game:
    resolved = belt_source("small", "normal", files=True)(seed)
    return Game.new(resolved.belt, resolved.options_for("classic"), seed=seed, settlers=3)


def risk_of(obs: Observation, settler: str, action: Action) -> int:
    at = obs.settler(settler).at
    assert at is not None
    dest = dict(obs.exits(at)).get(action.target) if isinstance(action, Move) else None
    return risk(obs, settler, action, dest)


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
    end and the checked bot plays another."""
    guarded, plain = LearnedBot(), LearnedBot(guard=False)
    for seed in SEEDS:
        game = game_of(seed)
        obs, moves = Observation(game), 0
        while game.status == "running" and game.round <= 300:
            settler = game.turn
            assert settler is not None
            checked, unchecked = guarded.choose(obs, settler), plain.choose(obs, settler)
            if checked != unchecked and risk_of(obs, settler, unchecked) == DIES:
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


def test_the_action_taken_instead_is_safe_and_the_policys_next_best() -> None:
    found = first_override()
    game = game_of(found.seed)
    obs, bot = Observation(game), LearnedBot()
    for _ in range(found.moves):
        settler = game.turn
        assert settler is not None
        game.apply(bot.choose(obs, settler))
    assert risk_of(obs, found.settler, found.checked) == SAFE
    # no safe action the policy ranks higher was passed over
    encoder = bot.encoder
    exits = encoder.exits(obs, found.settler)
    mask = encoder.mask(obs, found.settler, exits)
    logits = bot.policy.logits(encoder.observe(obs, found.settler, exits=exits).astype("float32"))
    chosen = encoder.index(obs, found.settler, found.checked, exits)
    for index in range(len(mask)):
        if mask[index] and logits[index] > logits[chosen]:
            assert risk_of(obs, found.settler, encoder.action(obs, found.settler, index, exits)) > SAFE


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
