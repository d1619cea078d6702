"""Seats played by programs over the network: their own message budget, what a silent seat does (it waits, or a
stand-in bot plays it), the turn timer of a game only programs play, the links of a new game, and the strict
checks of those fields (docs/server.md, `POST /api/games` and Limits)."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.meta import GameMeta, StandInMeta
from asteroid_mining.server.seats import Seat

from .helpers import in_process

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def refusals_until_limited(client: TestClient, game: dict[str, Any], seat: int, most: int) -> tuple[int, Any]:
    """Send `act`s for a settler the seat does not play until one is `rate_limited`: how many were answered with
    the refusal first, and the `rate_limited` error."""
    token = game["seats"][seat - 1]["token"]
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as session:
        player = in_process(session)
        player.next_of("state")
        for answered in range(most + 1):
            player.send({"type": "act", "settler": "nobody", "action": "wait"})
            reply = player.next_of("error")
            if reply["code"] == "rate_limited":
                return answered, reply
            assert reply["code"] == "not_your_settler", reply
    raise AssertionError(f"no rate_limited after {most + 1} messages")


@pytest.fixture
def budget_client(tmp_path: Path) -> Any:
    """A server whose buckets are not refilled during a test (one token in 1,000 s): a message's fate depends on
    how many came before it, never on the clock."""
    from fastapi.testclient import TestClient

    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static", bot_delay=0.0,
                        rate_per_second=0.001, rate_burst=3, program_rate_per_second=0.001, program_rate_burst=10)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_a_program_seat_has_its_own_budget(budget_client: TestClient) -> None:
    game = create(budget_client, seats=2, settlers_per_seat=1, programs=[2])
    person, limited = refusals_until_limited(budget_client, game, 1, 50)
    assert person == 3  # rate_burst
    program, limited_too = refusals_until_limited(budget_client, game, 2, 50)
    assert program == 10  # program_rate_burst: bounded too
    for error in (limited, limited_too):  # the server says when the next message is taken: one token in 1,000 s
        assert 999 <= error["retry_after"] <= 1000.001, error


def test_rate_limited_says_when_to_send_again(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from asteroid_mining.server import play
    from asteroid_mining.server.security import TokenBucket

    # The connection's bucket on a clock that stands still: on the real clock it refills at 20 a second while the
    # test sends, and a machine busy enough to take 50 ms a message never sees the limit at all.
    monkeypatch.setattr(play, "TokenBucket", functools.partial(TokenBucket, clock=lambda: 1000.0))
    game = create(client, seats=1, settlers_per_seat=1)
    answered, limited = refusals_until_limited(client, game, 1, 400)
    assert answered == 40  # rate_burst
    assert 0 < limited["retry_after"] <= 1 / 20 + 0.001  # one token at 20 a second
    assert limited["message"].startswith("too many messages: at most 20 a second")


def test_a_game_only_programs_play_has_a_turn_timer(client: TestClient) -> None:
    only_programs = create(client, seats=3, settlers_per_seat=1, programs=[1, 3], bots={"2": "greedy"})
    with_a_person = create(client, seats=2, settlers_per_seat=1, programs=[2])
    chosen = create(client, seats=1, settlers_per_seat=1, programs=[1], turn_seconds=5)
    timers = {g["id"]: g["turn_seconds"] for g in client.get("/api/games").json()["games"]}
    assert timers[only_programs["id"]] == Settings(data_dir=Path(".")).program_turn_seconds == 60.0
    assert timers[with_a_person["id"]] is None  # a person may take their time, as before
    assert timers[chosen["id"]] == 5.0


def test_a_stand_in_plays_a_silent_seat(client: TestClient) -> None:
    game = create(client, seats=2, settlers_per_seat=1, seed=4, stand_in={"bot": "greedy", "after": 0.05})
    with client.websocket_connect(f"/api/games/{game['id']}/ws") as session:  # a spectator: the clock runs
        watcher = in_process(session)
        state = watcher.next_of("state")
        assert state["turn_seconds"] is None and state["deadline"] is not None
        first, second = watcher.next_of("update"), watcher.next_of("update")
    assert first["by"] == {"seat": 1, "auto": "bot"} and first["action"]["actor"] == "s1"
    assert second["by"] == {"seat": 2, "auto": "bot"} and second["action"]["actor"] == "s2"


def test_the_stand_in_and_program_seats_are_kept_with_the_game() -> None:
    meta = GameMeta("classic", "small", None, "127.0.0.1",
                    (Seat(1, "human", ("s1",), "d1", None, True), Seat(2, "bot", ("s2",), "", "greedy")),
                    stand_in=StandInMeta("planner", 12.5))
    stored = meta.to_json()
    assert stored["stand_in"] == {"bot": "planner", "after": 12.5} and stored["seats"][0]["program"] is True
    assert "program" not in stored["seats"][1]
    assert GameMeta.from_json(stored) == meta
    assert GameMeta.from_json({**stored, "stand_in": None}).stand_in is None


def test_the_create_answer_carries_every_link(client: TestClient) -> None:
    game = create(client, seats=3, settlers_per_seat=1, bots={"2": "random"})
    one, bot, three = game["seats"]
    assert one["invite"] == f"http://testserver/#/game/{game['id']}?seat=1&token={one['token']}"
    assert three["invite"] == f"http://testserver/#/game/{game['id']}?seat=3&token={three['token']}"
    assert bot["invite"] is None and bot["token"] is None
    assert game["watch"] == f"http://testserver/#/watch/{game['id']}"
    # the very link the browser's lobby makes (web/src/session.ts, `inviteLink`), and the route it watches by
    web = Path(__file__).parents[2] / "web" / "src"
    source = (web / "session.ts").read_text(encoding="utf-8")
    made = re.search(r"export function inviteLink\(.*?\): string \{\s*return `(.*?)`;", source, re.DOTALL)
    assert made is not None
    browser = (made.group(1).replace("${location.origin}", "http://testserver")
               .replace("${encodeURIComponent(game)}", game["id"]).replace("${seat}", "3")
               .replace("${encodeURIComponent(token)}", three["token"]))
    assert browser == three["invite"]
    assert "#/watch/ID" in (web / "main.ts").read_text()


@pytest.mark.parametrize(("body", "code", "field"), [
    ({"seats": 2, "programs": [3]}, "invalid", "programs[0]"),
    ({"seats": 2, "programs": [1, 1]}, "invalid", "programs[1]"),
    ({"seats": 2, "bots": {"2": "greedy"}, "programs": [2]}, "invalid", "programs[0]"),
    ({"programs": [0]}, "invalid", "programs[0]"),
    ({"programs": ["1"]}, "invalid", "programs[0]"),
    ({"programs": 1}, "invalid", "programs"),
    ({"programs": [1] * 9}, "invalid", "programs"),
    ({"stand_in": "greedy"}, "invalid", "stand_in"),
    ({"stand_in": {"bot": "greedy"}}, "invalid", "stand_in.after"),
    ({"stand_in": {"after": 5}}, "invalid", "stand_in.bot"),
    ({"stand_in": {"bot": "greedy", "after": 5, "when": 1}}, "invalid", "stand_in.when"),
    ({"stand_in": {"bot": "greedy", "after": "5"}}, "invalid", "stand_in.after"),
    ({"stand_in": {"bot": "greedy", "after": 0}}, "invalid", "stand_in.after"),
    ({"stand_in": {"bot": "greedy", "after": 0.01}}, "invalid", "stand_in.after"),  # min_turn_seconds: 0.05
    ({"stand_in": {"bot": "greedy", "after": 5}, "turn_seconds": 5}, "invalid", "stand_in"),
    ({"stand_in": {"bot": "nobody", "after": 5}}, "bots_unavailable", "stand_in.bot"),
    ({"stand_in": {"bot": "", "after": 5}}, "invalid", "stand_in.bot"),
])
def test_bad_new_fields_are_refused_naming_the_field(client: TestClient, body: dict[str, Any], code: str,
                                                     field: str) -> None:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert (error["code"], error["field"]) == (code, field), error
    assert field.split("[")[0].split(".")[0] in error["message"] or code == "bots_unavailable"
    assert client.get("/api/games").json()["games"] == []  # nothing was created
