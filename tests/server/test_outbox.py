"""`Outbox`: a message goes out at once when the connection takes it; otherwise it and those after it wait, in
order, for the connection's sending task; a client that falls too far behind is cut off."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from asteroid_mining.server.outbox import Outbox

WAIT = 30.0
"""The most a test waits for the outbox's task to do what it must (it takes microseconds; a busy machine is slow)."""


class Transport:
    """An ASGI send that records what it sent and, while `blocked` is clear, waits like a backed-up socket."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.blocked = asyncio.Event()
        self.blocked.set()
        self.fail: Exception | None = None
        self.cancelled = 0
        """Sends cancelled where they waited."""
        self._changed = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        try:
            await self.blocked.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        if self.fail is not None:
            raise self.fail
        self.sent.append(message["text"])
        self._changed.set()

    async def until_sent(self, count: int) -> None:
        """Wait until `count` messages have been sent (AssertionError after WAIT seconds)."""
        async def enough() -> None:
            while len(self.sent) < count:
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(enough(), WAIT)
        except TimeoutError:
            raise AssertionError(f"{len(self.sent)} messages sent, not {count}") from None


async def settle() -> None:
    """Let every task that is ready run until it waits (no clock involved: a number of loop iterations)."""
    for _ in range(10):
        await asyncio.sleep(0)


def backed_up(limit: int) -> tuple[Transport, Outbox, asyncio.Task[None]]:
    """An outbox with its sending task over a transport whose client has stopped reading (in a running loop)."""
    wire = Transport()
    box = Outbox(limit, wire.send)
    runner = asyncio.create_task(box.run())
    wire.blocked.clear()
    return wire, box, runner


def test_a_message_goes_out_at_once_without_a_task() -> None:
    async def scenario() -> None:
        wire = Transport()
        box = Outbox(4, wire.send)
        box.put("one")
        box.put_message({"type": "websocket.send", "text": "two"})
        assert wire.sent == ["one", "two"]  # no task ran in between: the sends finished in put

    asyncio.run(scenario())


def test_a_send_that_must_wait_is_finished_by_the_task_and_the_rest_follow_in_order() -> None:
    async def scenario() -> None:
        wire, box, runner = backed_up(8)  # the client stops reading
        for text in ("a", "b", "c"):
            box.put(text)
        await settle()  # the task has taken "a" up, and waits with it
        assert wire.sent == [] and not runner.done()
        wire.blocked.set()
        await wire.until_sent(3)
        assert wire.sent == ["a", "b", "c"]
        box.put("d")  # nothing waits any more: at once again
        assert wire.sent == ["a", "b", "c", "d"]
        box.close()
        await asyncio.wait_for(runner, WAIT)

    asyncio.run(scenario())


def test_a_client_too_far_behind_is_cut_off() -> None:
    async def scenario() -> None:
        wire, box, runner = backed_up(2)
        for text in ("a", "b", "c", "d"):  # "a" waits on the wire, "b" and "c" in the queue, "d" is one too many
            box.put(text)
        assert box.overflowed and box.closed
        box.put("e")  # ignored once closed
        wire.blocked.set()
        await asyncio.wait_for(runner, WAIT)
        assert wire.sent == ["a"]  # the one already on its way; the queue was dropped

    asyncio.run(scenario())


def test_a_failing_send_closes_the_outbox() -> None:
    async def scenario() -> None:
        wire = Transport()
        wire.fail = OSError("the client has gone")
        box = Outbox(4, wire.send)
        box.put("a")  # fails at once: not raised to the game that sent it
        assert box.closed and not box.overflowed
        await asyncio.wait_for(box.run(), WAIT)
        wire.fail = None
        box.put("b")
        assert wire.sent == []

    asyncio.run(scenario())


def test_a_failure_after_waiting_is_raised_by_the_task() -> None:
    async def scenario() -> None:
        wire, box, runner = backed_up(4)
        box.put("a")
        wire.fail = OSError("reset")
        wire.blocked.set()
        with pytest.raises(OSError, match="reset"):
            await asyncio.wait_for(runner, WAIT)

    asyncio.run(scenario())


def test_cancelling_the_task_reaches_the_waiting_send() -> None:
    async def scenario() -> None:
        wire, box, runner = backed_up(4)
        box.put("a")
        await settle()  # the task waits for the send to finish
        runner.cancel()
        with pytest.raises(asyncio.CancelledError):
            await runner
        assert wire.cancelled == 1  # the send itself was cancelled where it waited
        wire.blocked.set()
        await settle()
        assert wire.sent == []  # so it never went on

    asyncio.run(scenario())
