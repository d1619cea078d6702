"""The lobby is paged: `GET /api/games?limit=N&cursor=C&status=S` answers one bounded page, open games first,
with how many games are listed and the cursor of the next page; a cursor is a place, so games created meanwhile
shift no page; bad parameters are refused naming the parameter; pages are sliced from one cached listing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.config import SettingsError
from asteroid_mining.server.hub import GameHub, Resting

from .helpers import two_loops_belt


def settings_for(tmp_path: Path, **changes: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static", **changes)


def create(client: TestClient, seed: int) -> dict[str, Any]:
    answer = client.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                             "seed": seed})
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def act_once(client: TestClient, game: dict[str, Any]) -> None:
    """Play one command in `game`: it is open no more, but running."""
    seat = game["seats"][0]
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={seat['token']}") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "act", "settler": seat["settlers"][0], "action": "move", "target": "a1"})
        assert ws.receive_json()["type"] == "update"


def walk(client: TestClient, **params: Any) -> tuple[list[str], list[dict[str, Any]]]:
    """Every page from the first, following `next`: the ids listed, and each page's answer."""
    ids: list[str] = []
    pages: list[dict[str, Any]] = []
    cursor = None
    while True:
        answer = client.get("/api/games", params={**params, **({"cursor": cursor} if cursor else {})})
        assert answer.status_code == 200, answer.text
        page = answer.json()
        pages.append(page)
        ids += [g["id"] for g in page["games"]]
        cursor = page["next"]
        if cursor is None:
            return ids, pages


def test_pages_list_open_games_first_each_game_once_and_the_total(tmp_path: Path) -> None:
    """Seven games, two of them acted in: pages of three list the five open games (newest first), then the two in
    play, each once; every page says how many are listed; `status` lists one group, with its own total."""
    settings = settings_for(tmp_path, lobby_page_size=3)
    with TestClient(create_app(settings)) as client:
        games = [create(client, seed) for seed in range(7)]
        for played in (games[1], games[4]):
            act_once(client, played)
        ids, pages = walk(client)
        newest_first = [g["id"] for g in reversed(games)]
        played_ids = {games[1]["id"], games[4]["id"]}
        assert ids == [i for i in newest_first if i not in played_ids] + [games[4]["id"], games[1]["id"]]
        assert [len(p["games"]) for p in pages] == [3, 3, 1]
        assert all(p["total"] == 7 for p in pages)
        statuses = [g["status"] for p in pages for g in p["games"]]
        assert statuses == ["open"] * 5 + ["running"] * 2
        open_ids, open_pages = walk(client, status="open", limit=2)
        assert open_ids == ids[:5] and [p["total"] for p in open_pages] == [5, 5, 5]
        running = client.get("/api/games", params={"status": "running"}).json()
        assert [g["id"] for g in running["games"]] == ids[5:] and running["total"] == 2 and running["next"] is None
        assert client.get("/api/games", params={"status": "damaged"}).json() == {"games": [], "total": 0,
                                                                                 "next": None}


def test_a_cursor_is_stable_while_games_are_created(tmp_path: Path) -> None:
    """Games created after the first page was read come before it (newest first): following the first page's
    cursor lists the games after it, none twice and none left out, and the total counts the new ones."""
    settings = settings_for(tmp_path)
    with TestClient(create_app(settings)) as client:
        old = [create(client, seed) for seed in range(5)]
        first = client.get("/api/games", params={"limit": 2}).json()
        assert [g["id"] for g in first["games"]] == [old[4]["id"], old[3]["id"]] and first["total"] == 5
        new = [create(client, seed) for seed in range(10, 13)]
        rest = client.get("/api/games", params={"limit": 2, "cursor": first["next"]}).json()
        assert [g["id"] for g in rest["games"]] == [old[2]["id"], old[1]["id"]] and rest["total"] == 8
        last = client.get("/api/games", params={"limit": 2, "cursor": rest["next"]}).json()
        assert [g["id"] for g in last["games"]] == [old[0]["id"]] and last["next"] is None
        ids, _ = walk(client, limit=2)  # read again from the start, the new games come first
        assert ids == [g["id"] for g in reversed(old + new)][:3] + [g["id"] for g in reversed(old)]


def test_a_cursor_whose_game_is_gone_still_leads_to_the_games_after_it(tmp_path: Path) -> None:
    """A cursor names a place, not a game: when the page's last game leaves the lobby (it ended), the next page
    starts where it stood."""
    settings = settings_for(tmp_path)
    with TestClient(create_app(settings)) as client:
        games = [create(client, seed) for seed in range(4)]
        first = client.get("/api/games", params={"limit": 2}).json()
        last_listed = first["games"][-1]["id"]
        assert last_listed == games[2]["id"]
        token = games[2]["seats"][0]["token"]
        assert client.post(f"/api/games/{last_listed}/abandon", json={"token": token}).status_code == 200
        rest = client.get("/api/games", params={"limit": 2, "cursor": first["next"]}).json()
        assert [g["id"] for g in rest["games"]] == [games[1]["id"], games[0]["id"]] and rest["total"] == 3


@pytest.mark.parametrize(("params", "field"), [
    ({"limit": "0"}, "limit"), ({"limit": "201"}, "limit"), ({"limit": "ten"}, "limit"), ({"limit": "-3"}, "limit"),
    ({"limit": "1.5"}, "limit"), ({"cursor": "not-a-cursor"}, "cursor"), ({"cursor": "W10"}, "cursor"),
    ({"cursor": "WzAsIngiLCJ5Il0"}, "cursor"), ({"cursor": "A" * 400}, "cursor"), ({"status": "won"}, "status"),
    ({"status": ""}, "status"),
])
def test_bad_parameters_are_refused_naming_the_parameter(tmp_path: Path, params: dict[str, str],
                                                         field: str) -> None:
    """A bad `limit` (outside 1–`lobby_max_page_size`, not a whole number), a cursor the server did not give
    (`W10` is `[]`, `WzAsIngiLCJ5Il0` is `[0,"x","y"]`) or an unknown status: 422 naming it, nothing listed."""
    with TestClient(create_app(settings_for(tmp_path))) as client:
        answer = client.get("/api/games", params=params)
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["code"] == "invalid" and answer.json()["error"]["field"] == field


def test_the_page_size_settings_are_checked() -> None:
    """A default page larger than the largest one allowed is a setting that cannot hold."""
    with pytest.raises(SettingsError, match="lobby_page_size"):
        Settings(data_dir=Path("."), lobby_page_size=300, lobby_max_page_size=200)
    with pytest.raises(SettingsError, match="lobby_max_page_size"):
        Settings(data_dir=Path("."), lobby_max_page_size=0)


def many_resting(hub: GameHub, template: dict[str, Any], count: int) -> None:
    """`count` games let go (as after a restart: listed from their summaries), half of them acted in."""
    now = time.time()
    for n in range(count):
        summary = {**template, "id": f"g{n:06d}", "created": now - n, "seq": n % 2, "round": 1,
                   "status": "running" if n % 2 else "open"}
        hub.resting[summary["id"]] = Resting(summary, f"10.0.{n // 250}.{n % 250}", False)


def test_a_lobby_of_five_thousand_games_answers_a_bounded_page_sliced_from_one_listing(tmp_path: Path) -> None:
    """5,000 listed games: the first page holds `lobby_page_size` of them (the whole listing was 1.6 MB), the
    largest page `lobby_max_page_size`; walking every page lists each game once, open games first, and the
    listing is built once for them all (pages are slices of it)."""
    settings = settings_for(tmp_path, open_game_ttl=1e9)
    with TestClient(create_app(settings)) as client:
        template = create(client, 1)
        summary = client.get(f"/api/games/{template['id']}/summary").json()
        hub: GameHub = client.app.state.hub  # type: ignore[attr-defined]
        many_resting(hub, summary, 4_999)
        hub._rest_version += 1  # (as letting a game go does: the listing has changed)
        cache = client.app.state.lobby_cache  # type: ignore[attr-defined]
        cache.clock = lambda: 0.0  # a clock that stands still: only a change builds the listing again
        builds = cache.builds
        first = client.get("/api/games")
        page = first.json()
        assert page["total"] == 5_000 and len(page["games"]) == settings.lobby_page_size
        assert len(first.content) < 400 * settings.lobby_page_size  # about 300 bytes a game
        ids, pages = walk(client, limit=settings.lobby_max_page_size)
        assert len(ids) == len(set(ids)) == 5_000 and len(pages) == 25
        assert max(len(p["games"]) for p in pages) == settings.lobby_max_page_size
        statuses = [g["status"] for p in pages for g in p["games"]]
        assert statuses == ["open"] * 2_501 + ["running"] * 2_499  # (the template game is open too)
        assert cache.builds == builds + 1


def test_the_first_page_is_gzipped_for_a_client_that_takes_it(tmp_path: Path) -> None:
    """A page is kept encoded with its listing, gzipped too, as the whole listing was."""
    with TestClient(create_app(settings_for(tmp_path, open_game_ttl=1e9))) as client:
        template = create(client, 1)
        hub: GameHub = client.app.state.hub  # type: ignore[attr-defined]
        many_resting(hub, client.get(f"/api/games/{template['id']}/summary").json(), 99)
        hub._rest_version += 1
        answer = client.get("/api/games", headers={"accept-encoding": "gzip"})
        assert answer.headers["content-encoding"] == "gzip" and answer.json()["total"] == 100
