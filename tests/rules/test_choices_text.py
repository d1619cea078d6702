"""The choices' JSON text written by the engine's one serialisation module (`Game.choices_text`, and
`json_text.choices_to_text`, `choice_to_text`, `refusal_to_text`) is exactly what orjson writes for their JSON,
whatever the strings hold; `Choice` is a value; `Game.choices_scope` names what a settler's choices are made of."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asteroid_mining.maps import load_shipped
from asteroid_mining.rules import (
    BuildGates,
    BuildRobot,
    Choice,
    Danger,
    Deposit,
    Drill,
    Game,
    Move,
    Options,
    Place,
    Refusal,
    Wait,
)
from asteroid_mining.rules.actions import costs
from asteroid_mining.rules.errors import RefusalShape, shape_of
from asteroid_mining.rules.json_text import (
    choice_to_text,
    choices_to_text,
    integer,
    quote,
    refusal_to_text,
)

from .strategies import belts, game_options


def orjson_text(value: Any) -> str:
    return orjson.dumps(value).decode()


def assert_texts_agree(game: Game, actor: str) -> None:
    """Every text the engine writes of `actor`'s choices is orjson's text of the same JSON."""
    full = game.choices(actor)
    assert choices_to_text(full) == orjson_text(full.to_json())
    brief = game.choices(actor, brief=True)
    assert choices_to_text(brief) == orjson_text(brief.to_json())
    for choice in full.choices:
        assert choice_to_text(choice) == orjson_text(choice.to_json()), choice
    expected = None if full.refusal is not None else orjson_text(full.to_json())
    assert game.choices_text(actor) == expected


@settings(max_examples=40, deadline=None)
@given(belt=belts(max_size=10), options=game_options(), seed=st.integers(0, 1000), settlers=st.integers(1, 4))
def test_the_text_is_orjsons_over_random_play(belt: Any, options: Options, seed: int, settlers: int) -> None:
    game = Game.new(belt, options, seed, settlers)
    rng = random.Random(seed)
    for _ in range(40):
        for actor in [*game.settlers, *game.robots, *game.ufos]:
            assert_texts_agree(game, actor)
        if game.status != "running" or game.turn is None:
            break
        game.apply(rng.choice(game.legal_actions(game.turn)))


def test_the_text_through_gates_builds_deposits_and_dangers() -> None:
    """Hand-made states with what random play seldom reaches: carried and placed gates, builds the cargo pays
    for, deposits, a drill that would expose a reactive core near the Sun, reactions and storms ahead."""
    game = Game.empty(Options(uranium_fuse=3, storm_warning=2, storm_interval=0, turns="free"))
    game.add_asteroid("A", mantle=0, core="hollow", sun="near")
    game.add_asteroid("B", mantle=1, core="uranium", sun="near")
    game.add_asteroid("C", mantle=0, core="uranium", sun="near")
    game.add_asteroid("D", mantle=2)
    game.link("A", "B", "C")
    game.link("C", "D")
    game.add_settler("s1", "A", {"iron": 3, "ice": 2, "uranium": 2, "carbon": 1})
    game.add_settler("s2", "B")
    game.add_robot("r1", "B")
    game.forecast(game.round + 1, ["A", "C"])
    steps = [BuildGates("s1"), Place("s1", "gate1"), Deposit("s1", "ice"), Move("s1", "C"), Place("s1", "gate2")]
    seen: set[str] = set()
    for action in [None, *steps]:
        if action is not None:
            game.apply(action)
        for actor in ("s1", "s2", "r1"):
            assert_texts_agree(game, actor)
            doc = game.choices(actor).to_json()
            seen.update(c["action"] for c in doc["choices"] if c["refusal"] is None)
            seen.update(f"danger:{c['action']}" for c in doc["choices"] if "danger" in c)
            seen.update(f"hint:{key}" for key in ("reactions", "storms") if doc[key])
    for wanted in ("place", "build_robot", "deposit", "move", "drill", "danger:drill", "hint:reactions",
                   "hint:storms"):
        assert wanted in seen, f"the test never wrote {wanted}"


def test_actions_with_every_argument_given() -> None:
    """Optional arguments, written or left out as `args()` says (the choices offer the defaults only)."""
    refusal = Refusal("bad_id", {"actor": "s1", "problem": "same", "id": "g"})
    for action in (BuildGates("s1", "g1", "g2"), BuildGates("s1"), BuildRobot("s1", "r9"), BuildRobot("s1"),
                   Move("s1", "A"), Deposit("s1", "ice"), Place("s1", "g1"), Drill("s1"), Wait("s1")):
        for choice in (Choice(action, None), Choice(action, refusal), Choice(action, None, Danger("ice", 2))):
            assert choice_to_text(choice) == orjson_text(choice.to_json())


STRANGE = ["", "plain", 'say "hi"', "back\\slash", "tab\there", "new\nline", "\x00\x01\x1f", "\x7f",
           "\u2028\u2029", "é ü ß", "日本", "🚀", "</script>", "\\u0041", "a\rb\x0cc\x08d"]


@pytest.mark.parametrize("text", STRANGE)
def test_strings_are_escaped_as_orjson_escapes_them(text: str) -> None:
    assert quote(text) == orjson_text(text)
    assert quote(text) == orjson_text(text)  # once kept
    refusal = Refusal("bad_id", {"actor": text, "problem": "invalid", "id": text})
    assert refusal_to_text(refusal) == orjson_text(refusal.to_json())
    assert choice_to_text(Choice(Move(text, text), refusal)) == orjson_text(Choice(Move(text, text), refusal).to_json())
    made_by_hand = Refusal("bad_id", {text: text, "n": 7})  # any names, as a refusal made by hand may have
    assert refusal_to_text(made_by_hand) == orjson_text({"code": "bad_id", "params": {text: text, "n": 7}})


@given(st.text())
def test_any_string_is_escaped_as_orjson_escapes_it(text: str) -> None:
    try:
        expected = orjson_text(text)
    except orjson.JSONEncodeError:  # lone surrogates: not text orjson writes, and no id can hold them
        return
    assert quote(text) == expected


@given(st.integers(-(2**63), 2**63 - 1))
def test_integers_as_orjson_writes_them(number: int) -> None:
    assert integer(number) == orjson_text(number)


def test_choice_is_a_value() -> None:
    choice = Choice(Move("s1", "A"), None)
    assert choice == Choice(Move("s1", "A"), None, None)
    assert hash(choice) == hash(Choice(Move("s1", "A"), None))
    assert choice != Choice(Move("s1", "A"), Refusal("dead", {"actor": "s1", "kind": "settler"}))
    assert (choice.action, choice.refusal, choice.danger) == (Move("s1", "A"), None, None)
    assert len({choice, Choice(Move("s1", "A"), None), Choice(Move("s1", "B"), None)}) == 2


def test_choices_text_is_none_when_the_settler_cannot_act_and_refuses_strangers() -> None:
    game = Game.new(load_shipped("tutorial"), Options(storm_interval=0), 0, 2)
    waiting = next(sid for sid in game.settlers if sid != game.turn)
    assert game.choices_text(waiting) is None
    assert game.choices_text(game.turn or "") is not None
    for stranger in ("nobody", next(iter(game.asteroids))):
        with pytest.raises(KeyError):
            game.choices_text(stranger)
        with pytest.raises(KeyError):
            game.choices_scope(stranger)


def test_the_scope_names_what_the_choices_are_made_of() -> None:
    game = Game.empty(Options(turns="free"))
    for aid in ("A", "B", "C", "D", "E"):
        game.add_asteroid(aid)
    game.link("A", "B", "C")
    game.link("D", "E")
    game.add_gates("g1", "A", "g2", "D")
    game.add_settler("s1", "A", {"iron": 2, "ice": 1, "uranium": 1})
    game.apply(BuildGates("s1"))
    assert game.choices_scope("s1") == {"s1", "gate1", "gate2", "A", "B", "C", "g1", "g2", "D"}
    # every id whose change could change the choices, and nothing further away
    assert "E" not in game.choices_scope("s1")


def test_refusals_compare_by_their_params_whatever_their_order() -> None:
    shaped = Refusal(shape_of("mantle_left", ("actor", "asteroid", "mantle")), ("s1", "A", 2))
    by_hand = Refusal("mantle_left", {"mantle": 2, "actor": "s1", "asteroid": "A"})
    assert shaped == by_hand == Refusal("mantle_left", {"actor": "s1", "asteroid": "A", "mantle": 2})
    assert hash(shaped) == hash(by_hand)
    assert shaped != Refusal("mantle_left", {"actor": "s1", "asteroid": "A", "mantle": 3})
    assert shaped != Refusal("core_hollow", {"actor": "s1", "asteroid": "A", "mantle": 2})
    assert shaped.params == {"actor": "s1", "asteroid": "A", "mantle": 2}
    assert refusal_to_text(by_hand) == orjson_text(by_hand.to_json())  # in the order it was given
    assert repr(shaped) == "Refusal('mantle_left', {'actor': 's1', 'asteroid': 'A', 'mantle': 2})"


def test_the_rules_shapes_fit_their_codes() -> None:
    """Each shape of refusal the rules make names the code's parameters, then optional ones, in their order."""
    from asteroid_mining.rules import REFUSAL_KINDS, actions
    from asteroid_mining.rules.actions import build_gates, deposit, drill, mine, move, place

    found = [value for module in (actions, build_gates, costs, deposit, drill, mine, move, place)
             for value in vars(module).values() if isinstance(value, RefusalShape)]
    found += list(costs._MISSING)
    assert len(found) > 30
    for shape in found:
        kind = REFUSAL_KINDS[shape.code]
        required = shape.keys[:len(kind.params)]
        assert required == kind.params, shape.keys
        optional = shape.keys[len(kind.params):]
        assert optional == tuple(key for key in kind.optional if key in optional), shape.keys


def test_the_moves_text_follows_the_links() -> None:
    """A settler's moves are kept as text on its asteroid: a new link or an explosion changes them."""
    game = Game.empty(Options(turns="free", ufos=0))
    for aid in ("A", "B", "C", "D"):
        game.add_asteroid(aid, mantle=1)
    game.add_asteroid("X", mantle=0, core="uranium")
    game.link("A", "B", "X")
    game.add_settler("s1", "A")

    def targets() -> list[str]:
        text = game.choices_text("s1")
        assert text is not None
        assert text == orjson_text(game.choices("s1").to_json())
        return [c["target"] for c in orjson.loads(text)["choices"] if c["action"] == "move"]

    assert targets() == ["B", "X"]
    game.link("A", "C")
    game.link_pairs(["D"], ["A"])
    assert targets() == ["B", "X", "C", "D"]
    game.pin_sun("X", near=True)  # an exposed uranium core near the Sun explodes
    assert targets() == ["B", "C", "D"]


RULES_DIR = Path(__file__).resolve().parents[2] / "src" / "asteroid_mining" / "rules"


def test_json_text_is_written_in_one_module() -> None:
    """The rules know their JSON form (`to_json`) and nothing of text: only `json_text` writes it, and only
    `Game.choices_text` asks it."""
    imports = re.compile(r"^from \.+json_text import|^from \.+ import .*\bjson_text\b", re.MULTILINE)
    users = sorted(p.relative_to(RULES_DIR).as_posix() for p in RULES_DIR.rglob("*.py")
                   if p.name != "json_text.py" and imports.search(p.read_text(encoding="utf-8")))
    assert users == ["game.py"]


def test_the_links_change_only_through_the_asteroid_s_methods() -> None:
    """The text kept of an asteroid's moves is forgotten by the methods that change its links (`Asteroid.link`,
    `unlink_all`, `set_links`): nobody else writes `neighbours` or `moves_text`."""
    writes = re.compile(r"(\.neighbours\[[^]]*\]\s*=[^=]|\.neighbours\s*=[^=]|del [\w.]*neighbours\[|"
                        r"neighbours\.(clear|pop|update|setdefault)\(|\.moves_text\s*=[^=])")
    found = [f"{p.name}:{n}" for p in RULES_DIR.rglob("*.py") if p.name not in ("state.py", "json_text.py")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if writes.search(line)]
    assert found == []


def test_a_loaded_game_writes_its_moves_afresh() -> None:
    game = Game.empty(Options(turns="free", ufos=0))
    for aid in ("A", "B", "C"):
        game.add_asteroid(aid, mantle=1)
    game.link("A", "B")
    game.add_settler("s1", "A")
    assert game.choices_text("s1") is not None  # the moves of A kept as text
    doc = game.to_json()
    doc["asteroids"][0]["neighbours"] = ["B", "C"]
    doc["asteroids"][2]["neighbours"] = ["A"]
    loaded = Game.from_json(doc)
    text = loaded.choices_text("s1")
    assert text == orjson_text(loaded.choices("s1").to_json())
    assert [c["target"] for c in orjson.loads(text or "")["choices"] if c["action"] == "move"] == ["B", "C"]
