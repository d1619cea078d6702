"""The protocol's types (server/protocol.py) are what the server sends, the generated TypeScript is current, and
the choices every client gets are the engine's `Game.choices` at every step."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema
import orjson
import pytest
from pydantic import BaseModel, TypeAdapter

from asteroid_mining.maps import parse_belt
from asteroid_mining.rules import CLASSIC, Game
from asteroid_mining.server.action_schemas import ActionJson, Choices
from asteroid_mining.server.protocol import ErrorMessage, Replay, StateMessage, UpdateMessage, protocol_schema
from asteroid_mining.server.schemas import (
    CreatedGame,
    GameDetail,
    GameEvents,
    GameLog,
    GameSummary,
    Health,
    LessonProgress,
    Lessons,
    Lobby,
)
from asteroid_mining.server.view_schemas import GameEvent
from asteroid_mining.texts import refusal_text

from .helpers import PLANS, Player, sent_choices, stored_log, two_loops_belt
from .test_play import Sessions, connect

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

__all__ = ["connect"]  # the fixture, used by name
WEB = Path(__file__).resolve().parents[2] / "web"
EVENT: TypeAdapter[Any] = TypeAdapter(GameEvent)
SERVER_MESSAGE: TypeAdapter[StateMessage | UpdateMessage | ErrorMessage] = TypeAdapter(
    StateMessage | UpdateMessage | ErrorMessage)


def test_the_generated_typescript_is_current() -> None:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed to check web/src/protocol.ts"
    assert (WEB / "node_modules" / "json-schema-to-typescript").exists(), "run `make web` first (npm ci)"
    done = subprocess.run([node, "protocol.mjs", "--check"], cwd=WEB, input=orjson.dumps(protocol_schema()),
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode() + "\nrun `make protocol` and commit web/src/protocol.ts, " \
        "web/src/generated/actions.ts and web/src/generated/protocol.schema.json"


def test_the_json_schema_file_judges_real_messages() -> None:
    """The committed JSON Schema (draft-07) takes what the server sends and refuses what it never would."""
    document = orjson.loads((WEB / "src" / "generated" / "protocol.schema.json").read_bytes())
    jsonschema.Draft7Validator.check_schema(document)
    game = Game.new(parse_belt(two_loops_belt()), CLASSIC, 3, 2)
    turn = game.turn
    assert turn is not None
    events = [event.to_json() for event in game.apply(game.legal_actions(turn)[0])]
    message = {"type": "update", "seq": 1, "action": game.history[-1], "by": {"seat": 1}, "events": events,
               "diff": {"round": game.round, "status": game.status, "turn": game.turn, "winnable": True},
               "deadline": None}
    server = jsonschema.Draft7Validator({**document, "$ref": "#/definitions/ServerMessage"})
    assert list(server.iter_errors(message)) == []
    wrong = {**message, "events": [{**events[0], "actor": 7}]}
    assert list(server.iter_errors(wrong)), "an event whose field has the wrong type is refused"
    unknown = {**message, "events": [{"type": "teleported", "actor": "s1"}]}
    assert list(server.iter_errors(unknown)), "an event of no known kind is refused"


def test_every_event_of_the_engine_has_its_model() -> None:
    """Each event record of the engine is a typed model of the protocol, its fields and their types those of the
    record (read from the engine's source, whichever build runs)."""
    from typing import get_args

    from asteroid_mining.rules import Event
    from asteroid_mining.server.view_schemas import EVENT_MODELS, GameEvent

    kinds = {cls.type for cls in get_args(Event)}
    assert {get_args(model.model_fields["type"].annotation)[0] for model in EVENT_MODELS} == kinds
    adapter: TypeAdapter[Any] = TypeAdapter(GameEvent)
    moved = adapter.validate_python({"type": "moved", "actor": "s1", "origin": "A", "target": "B", "via": None})
    assert type(moved).__name__ == "MovedEvent"
    with pytest.raises(ValueError, match="via"):
        adapter.validate_python({"type": "moved", "actor": "s1", "origin": "A", "target": "B"})
    with pytest.raises(ValueError, match="asteroids"):
        adapter.validate_python({"type": "storm", "asteroids": "A"})


def test_every_settler_action_has_its_place_in_the_client() -> None:
    """The client's action slots, keys and lessons' presses come from the engine's specs: each action's rule says
    its button's key (the engine refuses to load a settler action without one, or with another's:
    tests/rules/test_adding_an_action.py)."""
    from asteroid_mining.rules import ACTION_SPECS
    from asteroid_mining.server import action_schemas
    from asteroid_mining.server.lessons import PRESSES

    slots = action_schemas.action_slots()
    assert [slot["name"] for slot in slots] == [spec.name for spec in ACTION_SPECS if "settler" in spec.actors]
    assert {slot["name"] for slot in slots} == set(action_schemas.SPEC_OF) == set(PRESSES)
    assert {slot["name"]: slot["key"] for slot in slots} == {
        "move": None, "drill": "d", "mine": "m", "deposit": "e", "build_robot": "b", "build_gates": "g",
        "place": "p", "wait": "w",
    }
    assert next(slot for slot in slots if slot["name"] == "deposit") == {"name": "deposit", "key": "e",
                                                                          "fields": ["kind"]}


def test_a_view_field_needs_no_edit_to_the_server() -> None:
    """The view's models are derived from the records `rules/view.py` declares: a field added there is in the
    protocol with its meaning (an optional one left out rather than null), and a record without a protocol name
    is named."""
    from importlib import resources

    from asteroid_mining.server.view_schemas import VIEW_MODELS, view_models

    source = resources.files("asteroid_mining.rules").joinpath("view.py").read_text(encoding="utf-8")
    assert "near" in source and "near" not in VIEW_MODELS["Asteroid"].model_fields  # messages leave it out
    added = source.replace('    surveyed: bool\n', '    surveyed: bool\n    heat: int\n    """how hot it is"""\n'
                           '    dust: NotRequired[list[str]]\n', 1)
    asteroid = view_models(added)["Asteroid"]
    assert list(asteroid.model_fields)[4:7] == ["surveyed", "heat", "dust"]
    schema = asteroid.model_json_schema()
    assert schema["properties"]["heat"] == {"description": "how hot it is", "title": "Heat", "type": "integer"}
    assert schema["properties"]["dust"] == {"items": {"type": "string"}, "title": "Dust", "type": "array"}
    assert "heat" in schema["required"] and "dust" not in schema["required"]
    with pytest.raises(TypeError, match=r"rules/view.py: DustView has no name in the protocol"):
        view_models(source + "\n\nclass DustView(TypedDict):\n    grains: int\n")


def test_the_schema_carries_the_rules_constants_and_every_message() -> None:
    schema = protocol_schema()
    assert schema["x-constants"]["kinds"] == ["ice", "iron", "carbon", "uranium"]
    assert schema["x-constants"]["robot_cost"] == {"iron": 1, "carbon": 1, "uranium": 1}
    for name in ("ServerMessage", "ClientMessage", "StateMessage", "UpdateMessage", "ErrorMessage", "Choices",
                 "ActMove", "MoveChoice", "MoveAction", "GameView", "Asteroid", "Replay", "CreateGame"):
        assert name in schema["definitions"], name


def _mirror(client: TestClient, game_id: str) -> Game:
    """The game as the engine plays it, from the server's own log."""
    log = stored_log(client, game_id)  # (GET /log answers only once the game has ended)
    return Game.replay(parse_belt(log["belt"]), CLASSIC, log["seed"], log["settlers"],
                       [c["action"] for c in log["commands"]])


class Seen:
    """The choices a client holds: those of its `state`, updated by every `update` that carries some."""

    def __init__(self, player: Player) -> None:
        self.player = player
        state = player.messages[-1]
        assert state["type"] == "state"
        self.choices: dict[str, Any] = dict(state["choices"])
        self.count = 0

    def take(self, message: dict[str, Any]) -> None:
        SERVER_MESSAGE.validate_python(message)
        if message["type"] == "update" and "choices" in message:
            assert set(message["choices"]) <= set(self.player.you["settlers"] if self.player.you else ())
            for sid, choices in message["choices"].items():
                assert choices != self.choices.get(sid), "an update carried choices that had not changed"
                self.count += 1
            self.choices.update(message["choices"])


def test_every_client_holds_the_engines_choices_at_every_step(client: TestClient, connect: Sessions) -> None:
    body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": 3}
    game = client.post("/api/games", json=body).json()
    one, two, watcher = connect(game, 1), connect(game, 2), connect(game)
    seen = {"s1": Seen(one), "s2": Seen(two)}
    assert watcher.messages[-1]["choices"] == {}
    SERVER_MESSAGE.validate_python(watcher.messages[-1])
    mirror = _mirror(client, game["id"])
    for sid, held in seen.items():
        assert held.choices == {sid: sent_choices(mirror, sid)}
    turn = one.view["turn"] if one.view else None
    steps = 0
    plans = {sid: list(plan) for sid, plan in PLANS.items()}
    while turn is not None and steps < 20:
        step = plans[turn].pop(0)
        (one if turn == "s1" else two).act(**step)
        for sid, player in (("s1", one), ("s2", two)):
            seen[sid].take(player.next_of("update"))
        update = watcher.next_of("update")
        SERVER_MESSAGE.validate_python(update)
        assert "choices" not in update
        mirror = _mirror(client, game["id"])
        for sid, held in seen.items():
            expected = sent_choices(mirror, sid)
            assert held.choices == {sid: expected}, f"step {steps}: {sid}"
        turn = update["diff"]["turn"]
        steps += 1
    assert seen["s1"].count >= steps // 2 and seen["s2"].count >= steps // 2


def test_a_client_that_takes_no_choices_gets_none(client: TestClient, connect: Sessions) -> None:
    body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": 3}
    game = client.post("/api/games", json=body).json()
    one, two = connect(game, 1, choices=False), connect(game, 2)
    assert one.messages[-1]["choices"] == {} and one.you == {"seat": 1, "settlers": ["s1"]}
    seen = Seen(two)
    live = client.app.state.hub.games[game["id"]]  # type: ignore[attr-defined]
    assert live.choices.watched == {"s2"}  # s1's choices are never computed
    turn = one.view["turn"] if one.view else None
    plans = {sid: list(plan) for sid, plan in PLANS.items()}
    for _ in range(8):
        assert turn is not None
        (one if turn == "s1" else two).act(**plans[turn].pop(0))
        update = one.next_of("update")
        SERVER_MESSAGE.validate_python(update)
        assert "choices" not in update
        seen.take(two.next_of("update"))
        assert seen.choices == {"s2": sent_choices(_mirror(client, game["id"]), "s2")}
        turn = update["diff"]["turn"]
    one.send({"type": "sync", "after": 0})
    one.seq = 0
    assert all("choices" not in one.next() for _ in range(8))


def test_choices_takes_true_or_false(client: TestClient, two_seats: dict[str, Any]) -> None:
    from starlette.websockets import WebSocketDisconnect

    path = f"/api/games/{two_seats['id']}/ws?token={two_seats['seats'][0]['token']}&choices=maybe"
    with client.websocket_connect(path) as session:
        answer = session.receive_json()
        assert answer["code"] == "invalid" and answer["field"] == "choices" and "maybe" in answer["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            session.receive_json()
        assert closed.value.code == 4400


def test_a_refused_act_answers_the_engines_refusal(client: TestClient, two_seats: dict[str, Any],
                                                   connect: Sessions) -> None:
    one = connect(two_seats, 1)
    one.act("s1", "mine", ref="r1")  # Home is hollow (R11)
    answer = one.next()
    ErrorMessage.model_validate(answer)
    mirror = _mirror(client, two_seats["id"])
    refusal = next(c["refusal"] for c in mirror.choices("s1").to_json()["choices"] if c["action"] == "mine")
    assert {k: answer[k] for k in ("code", "params")} == refusal
    assert answer["message"] == refusal_text(refusal["code"], refusal["params"])  # the translation files' English
    assert answer["code"] == "core_hollow" and answer["ref"] == "r1"


def test_sync_brings_the_choices_back(client: TestClient, two_seats: dict[str, Any], connect: Sessions) -> None:
    one, two = connect(two_seats, 1), connect(two_seats, 2)
    one.act(**PLANS["s1"][0])
    one.next_of("update")
    two.next_of("update")
    two.act(**PLANS["s2"][0])
    one.next_of("update")
    two.next_of("update")
    one.send({"type": "sync", "after": 0})
    one.seq = 0  # as a client that had missed both would be
    again = [one.next(), one.next()]
    assert [m["seq"] for m in again] == [1, 2]
    assert "choices" not in again[0]
    mirror = _mirror(client, two_seats["id"])
    assert again[1]["choices"] == {"s1": sent_choices(mirror, "s1")}


def test_rest_answers_and_the_replay_follow_the_protocol(client: TestClient, two_seats: dict[str, Any],
                                                         connect: Sessions) -> None:
    one = connect(two_seats, 1)
    one.act(**PLANS["s1"][0])
    update = one.next_of("update")
    TypeAdapter(ActionJson).validate_python(update["action"])
    game_id = two_seats["id"]
    GameDetail.model_validate(client.get(f"/api/games/{game_id}").json())
    Replay.model_validate(client.get(f"/api/games/{game_id}/replay").json())
    Choices.model_validate(one.messages[0]["choices"]["s1"])  # its turn: every entry
    assert update["choices"]["s1"] is None  # no longer its turn
    # the answers the client's types (web/src/net.ts) come from: each one exactly its model, nothing left over
    lesson = client.get("/api/lessons").json()["lessons"][0]["id"]
    created = client.post(f"/api/lessons/{lesson}/games").json()
    answers: list[tuple[type[BaseModel], dict[str, Any]]] = [
        (Health, client.get("/api/health").json()),
        (Lobby, client.get("/api/games").json()),
        (GameSummary, client.get(f"/api/games/{game_id}/summary").json()),
        (GameEvents, client.get(f"/api/games/{game_id}/events").json()),
        (Lessons, client.get("/api/lessons").json()),
        (CreatedGame, created),
        (LessonProgress, client.get(f"/api/games/{created['id']}/goals?lesson={lesson}").json()),
    ]
    for model, answer in answers:
        assert model.model_validate(answer).model_dump(mode="json", exclude_unset=True) == answer, model.__name__
    client.post(f"/api/games/{game_id}/abandon", json={"token": two_seats["seats"][0]["token"]})
    GameLog.model_validate(client.get(f"/api/games/{game_id}/log").json())  # public once the game has ended


@pytest.mark.parametrize("seed", [0, 5])
def test_views_of_random_games_follow_the_protocol(seed: int) -> None:
    import random

    from asteroid_mining.maps import load_shipped
    from asteroid_mining.rules import Options
    from asteroid_mining.server.view_schemas import GameView

    game = Game.new(load_shipped("puzzle-gates"), Options(ufos=2, haywire_gates=True, storm_interval=2), seed, 3)
    rng = random.Random(seed)
    for _ in range(120):
        if game.status != "running" or game.turn is None:
            break
        view = game.view()
        for record in view["asteroids"]:
            record.pop("near", None)
            record.pop("next_change", None)
        GameView.model_validate(view)
        for sid in game.settlers:
            Choices.model_validate(game.choices(sid).to_json())
            Choices.model_validate(game.choices(sid, brief=True).to_json())
        for event in game.apply(rng.choice(game.legal_actions(game.turn))):
            EVENT.validate_python(event.to_json())


def test_a_seat_of_several_settlers_gets_the_choices_of_its_own(client: TestClient, connect: Sessions) -> None:
    import random

    body = {"seats": 2, "settlers_per_seat": 2, "belt": "tutorial", "seed": 11}
    game = client.post("/api/games", json=body).json()
    one, two = connect(game, 1), connect(game, 2)
    players = {1: one, 2: two}
    seen = {1: Seen(one), 2: Seen(two)}
    assert set(seen[1].choices) == {"s1", "s3"} and set(seen[2].choices) == {"s2", "s4"}
    rng = random.Random(4)
    for _ in range(16):
        mirror = _mirror(client, game["id"])
        if mirror.status != "running" or mirror.turn is None:
            break
        action = rng.choice(mirror.legal_actions(mirror.turn)).to_json()
        seat = 1 if mirror.turn in ("s1", "s3") else 2
        fields = {k: v for k, v in action.items() if k not in ("type", "actor") and v is not None}
        players[seat].act(action["actor"], action["type"], **fields)
        for number, player in players.items():
            seen[number].take(player.next_of("update"))
        mirror = _mirror(client, game["id"])
        for held in seen.values():
            assert held.choices == {sid: sent_choices(mirror, sid)
                                    for sid in held.choices}


def test_a_lone_seat_gets_both_its_settlers_changes_in_one_update(client: TestClient, connect: Sessions) -> None:
    body = {"seats": 1, "settlers_per_seat": 2, "belt": two_loops_belt(), "seed": 3}
    game = client.post("/api/games", json=body).json()
    player = connect(game, 1)
    seen = Seen(player)
    both = 0
    for _ in range(6):
        mirror = _mirror(client, game["id"])
        if mirror.status != "running" or mirror.turn is None:
            break
        player.act(mirror.turn, "wait")
        update = player.next_of("update")
        both += set(update.get("choices", ())) == {"s1", "s2"}  # the one that waited, and the one whose turn comes
        seen.take(update)
        mirror = _mirror(client, game["id"])
        assert seen.choices == {sid: sent_choices(mirror, sid) for sid in ("s1", "s2")}
    assert both >= 4
