"""`Game.choices` as the protocol contract describes it, the action specs and decoder, and touched ids."""

from __future__ import annotations

import dataclasses

import pytest

from asteroid_mining.rules import (
    ACTION_SPECS,
    ACTION_TYPES,
    REFUSAL_KINDS,
    Game,
    GameFormatError,
    Move,
    Options,
    Orbit,
    Refusal,
    action_from_json,
)


def hub() -> Game:
    """s1 on A (one layer of uranium over it, near in 3 rounds), neighbours B (bare ice) and C, a gate pair."""
    game = Game.empty(Options(turns="free", uranium_fuse=3))
    game.add_asteroid("A", mantle=1, core="uranium", orbit=Orbit(5, 1, 2))
    game.add_asteroid("B", mantle=0, core="ice", orbit=Orbit(4, 1, 1))
    game.add_asteroid("C", mantle=2, core="iron")
    game.add_asteroid("D", mantle=0, core="uranium", sun="near")
    game.link("A", "B", "C")
    game.add_settler("s1", "A", {"iron": 2})
    game.add_gates("g1", "A", "g2", "D")
    game.add_gates("g3", "C", "g4", "s1")
    return game


def test_the_entries_in_the_contract_s_order() -> None:
    doc = hub().choices("s1").to_json()
    assert doc["settler"] == "s1" and doc["round"] == 1
    shapes = [(c["action"], c.get("target") or c.get("kind") or c.get("gate")) for c in doc["choices"]]
    assert shapes == [
        ("move", "B"), ("move", "C"), ("move", "g1"), ("drill", None), ("mine", None),
        ("deposit", "ice"), ("deposit", "iron"), ("deposit", "carbon"), ("deposit", "uranium"),
        ("build_robot", None), ("build_gates", None), ("place", "g4"), ("wait", None),
    ]
    by_action = {(c["action"], c.get("kind")): c for c in doc["choices"]}
    assert by_action[("drill", None)]["danger"] == {"core": "uranium", "in_rounds": 3}
    assert by_action[("mine", None)]["refusal"] == {
        "code": "mantle_left", "params": {"actor": "s1", "asteroid": "A", "mantle": 1}}
    assert by_action[("wait", None)] == {"action": "wait", "refusal": None}
    assert "danger" not in by_action[("mine", None)]


def test_reactions_here_and_at_every_destination() -> None:
    game = hub()
    doc = game.choices("s1").to_json()
    # B's ice comes near in round 4: it sublimates at the end of round 3; D (through g1) counted once of 3
    assert doc["reactions"] == {
        "B": {"core": "ice", "effect": "sublimates", "in_rounds": 2},
        "D": {"core": "uranium", "effect": "explodes", "in_rounds": 1},
    }
    game.end_round()
    assert game.choices("s1").to_json()["reactions"]["D"]["in_rounds"] == 0
    assert game.view()["asteroids"][3]["reacts_at"] == 2


def test_storms_in_path_and_sheltered() -> None:
    game = hub()
    game.add_asteroid("S", mantle=0)
    game.link("S", "A")
    game.forecast(3, ["A"])
    game.forecast(2, ["C"])
    assert game.choices("s1").to_json()["storms"] == [
        {"round": 3, "in_rounds": 2, "in_path": True, "sheltered": False},
        {"round": 2, "in_rounds": 1, "in_path": False, "sheltered": False},
    ]
    game.apply(Move("s1", "S"))
    assert [s["sheltered"] for s in game.choices("s1").to_json()["storms"]] == [True, True]


def test_a_settler_that_cannot_act_gets_every_entry_refused_alike() -> None:
    game = hub()
    game.set_option("turns", "strict")
    game.add_settler("s2", "C")
    entries = game.choices("s2").choices
    assert {c.refusal.code for c in entries if c.refusal} == {"not_your_turn"}
    assert all(c.refusal is not None for c in entries)
    assert [c.action.name for c in entries].count("move") == 2  # C's neighbour A and its gate g3 (inactive)
    game.storm(["C"])
    dead = game.choices("s2")
    assert dead.choices and all(c.refusal is not None and c.refusal.code == "dead" for c in dead.choices)
    assert dead.reactions == {} and all(not s.in_path for s in dead.storms)
    assert game.legal_actions("s2") == []


def test_choices_of_no_actor_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        hub().choices("A")


def test_specs_are_the_records_fields() -> None:
    names = [spec.name for spec in ACTION_SPECS]
    assert names == list(ACTION_TYPES) == ["move", "drill", "mine", "deposit", "build_robot", "build_gates",
                                            "place", "wait"]
    for spec in ACTION_SPECS:
        record = ACTION_TYPES[spec.name]
        fields = [f.name for f in dataclasses.fields(record)]
        assert fields == ["actor", *(f.name for f in spec.fields)]
        assert set(spec.actors) <= {"settler", "robot", "ufo"} and "settler" in spec.actors
        assert spec.to_json()["fields"] == [f.to_json() for f in spec.fields]
    robots = [s.name for s in ACTION_SPECS if "robot" in s.actors]
    ufos = [s.name for s in ACTION_SPECS if "ufo" in s.actors]
    assert (robots, ufos) == (["move", "drill", "wait"], ["move", "mine", "wait"])


@pytest.mark.parametrize(
    ("doc", "path", "reason"),
    [
        ([], "act", "an action must be an object"),
        ({"type": "fly", "actor": "s1"}, "act.type", "unknown action type 'fly'"),
        ({"type": "move", "actor": 3, "target": "A"}, "act.actor", "must be a string"),
        ({"type": "move", "actor": "s1"}, "act.target", "must be a string"),
        ({"type": "build_robot", "actor": "s1", "new_id": 7}, "act.new_id", "must be a string"),
        ({"type": "wait", "actor": "s1", "target": "A"}, "act.target", "not a field of a wait action"),
    ],
)
def test_the_decoder_names_the_json_path(doc: object, path: str, reason: str) -> None:
    with pytest.raises(GameFormatError) as caught:
        action_from_json(doc, "act")
    assert caught.value.path == path and caught.value.reason.startswith(reason)


def test_every_action_round_trips() -> None:
    for name, record in ACTION_TYPES.items():
        spec = next(s for s in ACTION_SPECS if s.name == name)
        action = record("s1", *(f"x{i}" for i, _ in enumerate(spec.fields)))
        assert action_from_json(action.to_json()) == action
        optional = [f for f in spec.fields if not f.required]
        if len(optional) == len(spec.fields) and spec.fields:
            assert action_from_json({"type": name, "actor": "s1"}) == record("s1")


def test_a_refusal_is_its_code_and_params_only() -> None:
    """The engine words no refusal: its JSON is the code and the params (`texts.refusal_text` words them)."""
    for code, kind in REFUSAL_KINDS.items():
        params: dict[str, str | int] = {name: f"<{name}>" for name in kind.params}
        assert Refusal(code, params).to_json() == {"code": code, "params": params}
        assert not hasattr(Refusal(code, params), "message")


def test_take_touched_names_what_an_action_changed() -> None:
    game = hub()
    game.take_touched()
    game.apply(Move("s1", "B"))
    assert game.take_touched() == {"s1", "A", "B"}
    assert game.take_touched() == set()
    game.apply(Move("s1", "A"))
    game.take_touched()
    game.apply(Move("s1", "g1"))  # through the gate to D: the uranium there is still counting
    assert game.take_touched() == {"s1", "A", "D"}
    events = game.end_round()
    touched = game.take_touched()
    assert "D" in touched and any(e.type == "exposure" for e in events)
