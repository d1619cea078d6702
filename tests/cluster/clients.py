"""Clients of a cluster test: players that play a plan through failures, spectators that watch, both recording
everything they were told, to be checked against the log afterwards."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection, connect

RETRIABLE = {"storage_failed", "cluster_unavailable", "owner_unreachable", "not_owner", "busy"}
"""The errors a command may get while a node, Redis or PostgreSQL is away: try again."""
_refs = itertools.count(random.randrange(1, 2**40))


@dataclass
class Record:
    """What one client saw."""

    seen: dict[int, tuple[Any, Any]] = field(default_factory=dict)
    """seq -> (action, by) of every update applied."""
    duplicates: int = 0
    """Updates received again with a seq already applied, not after a sync or reconnect of ours."""
    gaps: int = 0
    """Gaps seen (then repaired by a sync)."""
    states: int = 0
    errors: list[str] = field(default_factory=list)
    closes: list[int] = field(default_factory=list)
    failed_opens: list[str] = field(default_factory=list)
    """Connection attempts that failed before the game's state came (the exception's name): a busy node may take
    longer than `open_timeout` to answer, and the client tries again."""
    acknowledged: dict[str | int, int] = field(default_factory=dict)
    """ref -> seq of this client's acts, as answered (an update with the ref, or an ack)."""
    update_times: list[tuple[float, int]] = field(default_factory=list)
    """(monotonic time, seq) of each applied update."""


class Client:
    """A WebSocket client of one game that survives its node's death: reconnects (with backoff) through
    `urls()`, takes the state again, and applies updates in seq order (asking `sync` on a gap)."""

    def __init__(self, urls: list[str], record: Record) -> None:
        self.urls = urls
        self.record = record
        self.conn: ClientConnection | None = None
        self.view: dict[str, Any] | None = None
        self.seq = -1
        self.status = "running"
        self.turn: str | None = None
        self.answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.connected = asyncio.Event()
        self.done = False
        self._syncing = False

    async def run(self) -> None:
        attempt = 0
        while not self.done:
            url = self.urls[min(attempt, len(self.urls) - 1)]
            try:
                async with connect(url, open_timeout=10, close_timeout=2, max_size=2**24) as conn:
                    self.conn = conn
                    attempt = 0
                    await self._read(conn)
            except (OSError, websockets.exceptions.WebSocketException, TimeoutError) as failure:
                code = getattr(getattr(failure, "rcvd", None), "code", None)
                if code is not None:
                    self.record.closes.append(code)
                elif self.conn is None:
                    self.record.failed_opens.append(type(failure).__name__)
            finally:
                self.conn = None
                self.connected.clear()
            if self.done:
                return
            attempt += 1
            await asyncio.sleep(min(2.0, 0.05 * 2**attempt))

    async def _read(self, conn: ClientConnection) -> None:
        async for text in conn:
            message = json.loads(text)
            kind = message["type"]
            if kind == "state":
                self.record.states += 1
                self.seq, self.view = message["seq"], message["state"]
                self.status, self.turn = self.view["status"], self.view["turn"]
                self._syncing = False
                self.connected.set()
            elif kind == "update":
                self._update(conn, message)
            else:
                if kind == "error":
                    self.record.errors.append(message["code"])
                await self.answers.put(message)
            self.changed.set()
            if self.status != "running":
                self.done = True
                return

    def _update(self, conn: ClientConnection, message: dict[str, Any]) -> None:
        seq = message["seq"]
        if seq <= self.seq:
            if not self._syncing:
                self.record.duplicates += 1
            return
        if seq > self.seq + 1:
            self.record.gaps += 1
            if not self._syncing:
                self._syncing = True
                asyncio.get_running_loop().create_task(conn.send(json.dumps({"type": "sync", "after": self.seq})))
            return
        self.seq = seq
        self.record.seen[seq] = (message["action"], message["by"])
        self.record.update_times.append((time.monotonic(), seq))
        diff = message["diff"]
        self.status, self.turn = diff["status"], diff["turn"]
        if message.get("ref") is not None:
            self.answers.put_nowait(message)
        if seq == self.seq:
            self._syncing = False

    async def send(self, message: dict[str, Any]) -> bool:
        conn = self.conn
        if conn is None:
            return False
        try:
            await conn.send(json.dumps(message))
        except websockets.exceptions.WebSocketException:
            return False
        return True


class PlayerBot:
    """Plays one settler's plan: on its turn, sends the next step with a fresh ref and waits for its answer;
    sends the same command again (same ref) after a reconnect or a retriable error."""

    def __init__(self, client: Client, settler: str, plan: list[dict[str, str]], think: float = 0.0,
                 rng: random.Random | None = None) -> None:
        self.client = client
        self.settler = settler
        self.plan = plan
        self.step = 0
        self.think = think
        """Seconds a player takes before each move, on average (so that games last while nodes die)."""
        self.rng = rng or random.Random()
        self.after = 0
        """The seq of this player's last command, as answered: its view is not current before it has that seq (an
        `ack` can come from the owner before this client's node has caught up with the owner's log)."""

    async def play(self, give_up: float) -> None:
        client = self.client
        while not client.done and self.step < len(self.plan):
            if time.monotonic() > give_up:
                raise AssertionError(f"{self.settler} did not finish its plan in time (step {self.step})")
            if client.turn != self.settler or not client.connected.is_set() or client.seq < self.after:
                client.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(client.changed.wait(), 0.5)
                continue
            if self.think:
                await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
            await self._act(self.plan[self.step], next(_refs), give_up)

    async def _act(self, step: dict[str, str], ref: int, give_up: float) -> None:
        client = self.client
        while not client.done:
            if time.monotonic() > give_up:
                raise AssertionError(f"{self.settler}: no answer to ref {ref}")
            await client.connected.wait()
            while not client.answers.empty():
                client.answers.get_nowait()
            if not await client.send({"type": "act", **step, "ref": ref}):
                await asyncio.sleep(0.1)
                continue
            answer = await self._answer(ref)
            if answer is None:  # no answer (the connection dropped, or a node died): send it again
                continue
            if answer["type"] in ("update", "ack"):
                client.record.acknowledged[ref] = answer["seq"]
                self.after = max(self.after, answer["seq"])
                self.step += 1
                return
            if answer["code"] in RETRIABLE:
                await asyncio.sleep(0.2)
                continue
            raise AssertionError(f"{self.settler}: {step} refused: {answer}")

    async def _answer(self, ref: int) -> dict[str, Any] | None:
        client = self.client
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            conn = client.conn
            try:
                answer = await asyncio.wait_for(client.answers.get(), 0.25)
            except TimeoutError:
                if client.conn is not conn or conn is None:
                    return None
                continue
            if answer.get("ref") == ref:
                return answer
        return None
