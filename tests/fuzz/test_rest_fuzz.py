"""The REST API under mutated requests: never a 5xx, never a traceback, every game created loads again."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from hypothesis import given
from hypothesis import strategies as st

from .conftest import EXAMPLES, LogWatch, fuzz_settings
from .mutations import STRINGS, mutated
from .support import create_bodies

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def answered_cleanly(answer: object) -> dict[str, object]:
    status = answer.status_code  # type: ignore[attr-defined]
    assert status < 500, answer.text  # type: ignore[attr-defined]
    body = answer.json()  # type: ignore[attr-defined]
    if status >= 400:
        assert set(body) == {"error"} and body["error"]["code"] and body["error"]["message"], body
        assert "Traceback" not in body["error"]["message"]
    return dict(body)


@fuzz_settings(ci_examples=150)
@given(text=mutated(create_bodies()))
def test_create_game(client: TestClient, log_watch: LogWatch, text: str) -> None:
    EXAMPLES["rest: create"] += 1
    answer = client.post("/api/games", content=text.encode("utf-8", "surrogatepass"),
                         headers={"content-type": "application/json"})
    body = answered_cleanly(answer)
    if answer.status_code == 201:
        EXAMPLES["rest: create (201)"] += 1
        game = body["id"]
        for path, status in (("", 200), ("/log", 409), ("/replay", 200)):  # the log: once the game has ended
            assert client.get(f"/api/games/{game}{path}").status_code == status, path
    log_watch.check()


@fuzz_settings(ci_examples=40)
@given(game=STRINGS,
       path=st.sampled_from(["", "/log", "/replay", "/ws"]),
       method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD"]))
def test_other_requests(client: TestClient, log_watch: LogWatch, game: str, path: str, method: str) -> None:
    EXAMPLES["rest: other"] += 1
    raw = game.encode("utf-8", "surrogatepass")[:3000]
    for name in (raw.hex(), quote(raw, safe="")):
        answer = client.request(method, f"/api/games/{name}{path}")
        assert answer.status_code < 500, answer.text
    log_watch.check()
