"""What the fuzz tests share: the in-process server, the documents they start from, and the restart check."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from pydantic import TypeAdapter

from asteroid_mining.maps.schema import belt_schema
from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.action_schemas import ActMessage
from asteroid_mining.server.schemas import CreateGame, SyncMessage

from ..server.helpers import two_loops_belt
from .jsonschema_strategies import from_schema

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

IDS = ["Home", "a1", "a2", "a3", "b1", "b6", "s1", "s2", "gate1", "A", "B"]
"""Ids that exist in the documents below, and some that do not."""


def fuzz_settings(data: Path) -> Settings:
    """A server that lets one address do a lot (the fuzzer is one client), with a small request limit."""
    return Settings(data_dir=data, bot_delay=0.0, static_dir=data / "static", rate_per_second=100_000.0,
                    rate_burst=100_000, rate_violations=100_000, max_games_per_client=1_000_000,
                    max_live_games=1_000_000, max_request_bytes=256 * 1024, max_message_bytes=16 * 1024,
                    history_rate_per_second=100_000.0, history_rate_burst=100_000, sync_per_second=100_000.0)


@contextlib.contextmanager
def server(data: Path) -> Iterator[TestClient]:
    """The app in process, on the games kept in `data`."""
    from fastapi.testclient import TestClient

    with TestClient(create_app(fuzz_settings(data)), raise_server_exceptions=False) as client:
        yield client


def id_strategy() -> st.SearchStrategy[str]:
    return st.sampled_from(IDS)


def belts() -> st.SearchStrategy[Any]:
    """Belt documents: valid ones, and ones the belt schema describes (ids drawn from a few)."""
    ids = {"id": id_strategy(), "start": id_strategy(), "first": id_strategy(), "second": id_strategy(),
           "first_at": id_strategy(), "second_at": id_strategy()}
    schema = belt_schema()
    links = st.lists(st.tuples(id_strategy(), id_strategy()).map(list), max_size=8)
    return st.one_of(
        st.just(two_loops_belt()),
        st.just(two_loops_belt()),
        from_schema(schema, {**ids, "links": links}),
        st.builds(lambda doc, asteroids: {**doc, "asteroids": asteroids}, st.just(two_loops_belt()),
                  from_schema(schema["properties"]["asteroids"], ids, root=schema).filter(bool)),
    )


def create_bodies() -> st.SearchStrategy[Any]:
    """`POST /api/games` bodies from CreateGame's schema, with belts worth creating games on."""
    names = st.sampled_from(["tutorial", "puzzle-gates", "puzzle-storm", "nowhere", ""])
    options = st.dictionaries(st.sampled_from(["uranium_fuse", "ufos", "haywire_gates", "storm_warning",
                                               "storm_interval", "turns", "x"]),
                              st.integers(-2, 12) | st.booleans(), max_size=3)
    hints = {"belt": names | belts(), "options": options, "bots": st.dictionaries(
        st.sampled_from(["1", "2", "3", "9"]), st.sampled_from(["planner", "greedy", "random", "nobody"]),
        max_size=2), "seats": st.integers(1, 3), "settlers_per_seat": st.integers(1, 3)}
    return from_schema(CreateGame.model_json_schema(), hints)


def client_messages() -> st.SearchStrategy[Any]:
    """WebSocket messages from the schemas of `act` and `sync`, with ids of the game."""
    hints = {"settler": st.sampled_from(["s1", "s2", "s3", "zz"]), "target": id_strategy(),
             "kind": st.sampled_from(["ice", "iron", "carbon", "uranium", "gold"]), "gate": id_strategy(),
             "after": st.integers(0, 40) | st.sampled_from([2**63 - 1, 0])}
    acts = TypeAdapter(ActMessage).json_schema()  # one model per action, by `action`
    return from_schema(acts, hints) | from_schema(SyncMessage.model_json_schema(), hints)


def check_restart(data: Path) -> None:
    """After a restart every game loads again: none is damaged, each answers its detail and replay, and its
    replay's seqs run 1, 2, 3… without a gap."""
    with server(data) as client:
        lobby = client.get("/api/games").json()["games"]
        assert [g["id"] for g in lobby if g["status"] == "damaged"] == []
        for game in lobby:
            detail = client.get(f"/api/games/{game['id']}")
            assert detail.status_code == 200, detail.text
            replay = client.get(f"/api/games/{game['id']}/replay")  # (the log is public once a game has ended)
            assert replay.status_code == 200, replay.text
            steps = replay.json()["steps"]
            assert [s["seq"] for s in steps] == list(range(1, replay.json()["seq"] + 1))
