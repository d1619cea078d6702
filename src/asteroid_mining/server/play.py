"""The WebSocket endpoint `/api/games/{id}/ws?token=T`: play with a seat's token, watch without one.

On connect the client receives the `state`; then one `update` per accepted command. Its own refused or
malformed messages are answered with an `error`, and the connection stays usable. `&choices=false`: the client
judges its moves itself (a bot with its own engine) and is sent no choices. Close codes: 4400 a query parameter
with a value it cannot take, 4401 a wrong token, 4403 an origin that may not connect, 4404 no such game, 4410 a
stored game that cannot be loaded (listed as `damaged`), 4408 the client could not keep up (reconnect and sync),
4409 the game, or the client's address, has as many connections as it may, 4429 flooding, 1011 a server failure,
1012 the game moved to another node of a cluster (reconnect), 1000 after `ended` (the game was abandoned: do not
reconnect to play), 1007 a text message that is not UTF-8 (`transport.GuardedWebSocket`).

An address opening new connections faster than `connect_rate_per_second` (past `connect_rate_burst` at once) has
its handshake answered `429 rate_limited` with `Retry-After`, before the connection is accepted or anything is
built for it: a client backs off and connects again then.

A client too slow to take what is sent to it (`send_queue` messages or `send_buffer_bytes` bytes waiting for it, or
the most waiting when the process's `send_buffer_total_bytes` are) is closed with 4408 at once, its close frame
written behind what it has not read, and its socket aborted once it has taken nothing for `SLOW_CLIENT_GRACE`
seconds (`direct.close_now`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import weakref

from fastapi import APIRouter, WebSocket
from fastapi.responses import JSONResponse
from starlette.websockets import WebSocketDisconnect

from ..storage import StorageError
from .config import Settings
from .direct import SCOPE_KEY, close_now
from .errors import ServerError, error_body
from .hub import GameHub
from .live import Connection, LiveGame
from .lobby import BAD_TOKEN, charge_load, client_of
from .messages import MessageError, dumps, error, parse
from .outbox import Outbox
from .rebuild import DamagedGame
from .schemas import SyncMessage
from .security import TokenBucket, origin_allowed

log = logging.getLogger(__name__)
router = APIRouter()

CLOSE_ENDED = 1000
CLOSE_BAD_REQUEST = 4400
CLOSE_BAD_TOKEN = 4401
CLOSE_ORIGIN = 4403
CLOSE_NO_GAME = 4404
CLOSE_TOO_SLOW = 4408
CLOSE_FULL = 4409
CLOSE_DAMAGED = 4410
CLOSE_FLOOD = 4429
CLOSE_INTERNAL = 1011
CLOSE_MOVED = 1012
TOO_SLOW = "too slow: reconnect and sync"

SLOW_CLIENT_GRACE = 5.0
"""Seconds a client closed as too slow may take nothing of what it has not read yet (its close frame last) before
its socket is aborted."""
SYNC_BURST = 4
"""`sync` messages a connection may send at once (the bucket of `sync_per_second`)."""

CHOICES = {"true": True, "false": False}
"""The values of the `choices` query parameter: whether the client is sent its settlers' choices."""


@router.websocket("/api/games/{game_id}/ws")
async def play(websocket: WebSocket, game_id: str, token: str | None = None, choices: str = "true") -> None:
    """Play (with a seat's token) or watch (without) one game."""
    settings: Settings = websocket.app.state.settings
    hub: GameHub = websocket.app.state.hub
    if not origin_allowed(websocket.headers.get("origin"), websocket.headers.get("host"), settings.allowed_origins):
        await _deny(websocket, "origin_not_allowed", "WebSocket connections from this origin are not allowed")
        return
    client = client_of(websocket)
    try:  # before anything is built for it: a connection is sent the whole state, and may load the game
        if not getattr(websocket.app.state, "connect_checked_below", False):  # (else `transport` counted it)
            websocket.app.state.connect_limiter.check(client)
    except ServerError as refused:
        await _deny(websocket, refused.code, refused.message, refused.status, refused.headers)
        return
    await websocket.accept()
    wants = CHOICES.get(choices)
    if wants is None:
        await _close(websocket, "invalid", f"choices: 'true' or 'false', not {choices[:40]!r}", CLOSE_BAD_REQUEST,
                     "choices")
        return
    if not hub.connect(client):
        await _close(websocket, "too_many_client_connections", "this address has as many connections open as it "
                     f"may ({settings.max_connections_per_client}); close some", CLOSE_FULL)
        return
    try:
        await _serve(websocket, hub, settings, game_id, token, wants)
    finally:
        hub.disconnect(client)


async def _serve(websocket: WebSocket, hub: GameHub, settings: Settings, game_id: str, token: str | None,
                 choices: bool) -> None:
    """The connection, once accepted and counted: find the game and the seat, then play or watch until it closes.

    The game is acquired from the hub for the whole connection, and released however it ends (`GameHub.acquire`).
    """
    # a wrong token for a game not held here is refused before the game is loaded for it, where the hub can tell
    # cheaply: the connection would never join it, and the game would be let go again at once
    if token is not None and await hub.token_refused(game_id, token):
        await _close(websocket, "bad_token", BAD_TOKEN, CLOSE_BAD_TOKEN)
        return
    async with contextlib.AsyncExitStack() as held:
        try:
            # a seat's connection loads a game let go uncharged (it is how a game is served again); a spectator's
            # is charged like a REST read: one address watching idle games one after another loaded each free
            await charge_load(websocket, game_id, seat=token is not None)
            live = await held.enter_async_context(hub.acquire(game_id))
        except DamagedGame as damaged:  # listed as damaged in the lobby; REST answers 409 game_damaged
            await _close(websocket, "game_damaged", f"this game cannot be loaded ({damaged.reason})", CLOSE_DAMAGED)
            return
        except StorageError as failure:  # the store is away (a cluster's database restarting): the client retries
            log.warning("game %s could not be loaded: %s", game_id, failure)
            await _close(websocket, "storage_failed", "the game cannot be loaded at the moment; try again",
                         CLOSE_INTERNAL)
            return
        except ServerError as failed:  # (`server_full`: a game let go while idle, and no room to load it again)
            close_code = {"rate_limited": CLOSE_FLOOD, "server_full": CLOSE_FULL}.get(failed.code, CLOSE_INTERNAL)
            await _close(websocket, failed.code, failed.message, close_code)
            return
        except Exception:
            log.exception("game %s could not be loaded", game_id)
            await _close(websocket, "internal", "the game could not be loaded", CLOSE_INTERNAL)
            return
        if live is None:
            await _close(websocket, "game_not_found", f"there is no game {game_id!r}", CLOSE_NO_GAME)
            return
        await _attend(websocket, hub, live, settings, token, choices)


async def _attend(websocket: WebSocket, hub: GameHub, live: LiveGame, settings: Settings, token: str | None,
                  choices: bool) -> None:
    """Play or watch `live` (acquired by the caller) until the connection closes."""
    seat = None
    if token is not None:
        seat = live.seat_for(token)
        if seat is None:
            await _close(websocket, "bad_token", BAD_TOKEN, CLOSE_BAD_TOKEN)
            return
    if len(live.connections) >= settings.max_connections_per_game:
        await _close(websocket, "too_many_connections", "this game has as many connections as it takes",
                     CLOSE_FULL)
        return
    send = websocket.scope.get(SCOPE_KEY, websocket.send)
    client = client_of(websocket)

    def cut_off() -> None:
        box = mine()
        log.info("game %s: a client at %s does not keep up (%d bytes waiting): closed with %d", live.id, client,
                 box.waiting if box else 0, CLOSE_TOO_SLOW)
        close_now(send, CLOSE_TOO_SLOW, TOO_SLOW, SLOW_CLIENT_GRACE)

    outbox = Outbox(settings.send_queue, send, settings.send_buffer_bytes, hub.send_budget, cut_off)
    # weakly: the outbox holds `cut_off`, and a strong reference back would make a cycle of the outbox, this
    # closure and the game, which only a full collection frees (rare in the server: `main.GC_THRESHOLDS`)
    mine = weakref.ref(outbox)
    conn = Connection(seat, outbox, choices=choices)
    live.join(conn)
    sender = asyncio.create_task(_send_all(websocket, conn))
    try:
        await _receive_all(websocket, hub, live, conn, settings, client)
    except WebSocketDisconnect:
        pass
    except RuntimeError:
        if not conn.outbox.closed:  # not a socket we closed ourselves: a real failure
            log.exception("game %s: connection failed", live.id)
    except Exception:
        log.exception("game %s: connection failed", live.id)
        with contextlib.suppress(Exception):
            await websocket.close(CLOSE_INTERNAL, "internal error")
    finally:
        live.leave(conn)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sender


async def _receive_all(websocket: WebSocket, hub: GameHub, live: LiveGame, conn: Connection, settings: Settings,
                       client: str) -> None:
    # a program's seat has a budget of its own, for a few connections of one address at once (`GameHub`'s count)
    program = conn.seat is not None and conn.seat.program and hub.take_program_budget(client)
    try:
        await _receive_messages(websocket, live, conn, settings, program)
    finally:
        if program:
            hub.give_program_budget(client)


async def _receive_messages(websocket: WebSocket, live: LiveGame, conn: Connection, settings: Settings,
                            program: bool) -> None:
    rate = settings.program_rate_per_second if program else settings.rate_per_second
    bucket = TokenBucket(rate, settings.program_rate_burst if program else settings.rate_burst)
    syncs = TokenBucket(settings.sync_per_second, SYNC_BURST)
    refused = 0
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if not bucket.take():
            refused += 1
            if refused >= settings.rate_violations:
                conn.outbox.close()
                await websocket.close(CLOSE_FLOOD, "too many messages")
                return
            conn.outbox.put(rate_limited(f"too many messages: at most {rate:g} a second on average", bucket))
            continue
        # one served message takes one drop off the count, not all of them: a client sending ten times its rate
        # had one in ten served, the count went back to 0 each time and it was never closed, each drop costing
        # what a served message does (256 connections of one address so cost the event loop's core)
        refused = max(0, refused - 1)
        if text is None:
            conn.outbox.put(error("invalid", "send JSON as text messages, not binary"))
            continue
        try:
            msg = parse(text, settings.max_message_bytes)
        except MessageError as bad:
            conn.outbox.put(error(bad.code, bad.message, bad.field))
            continue
        if isinstance(msg, SyncMessage):
            if not syncs.take():  # an answer may be the whole state: syncs have a bucket of their own
                conn.outbox.put(rate_limited(f"too many syncs: at most {settings.sync_per_second:g} a second on "
                                             "average", syncs))
                continue
            live.sync(conn, msg.after)
        else:
            live.submit(conn, msg)


def rate_limited(message: str, bucket: TokenBucket) -> str:
    """The `error rate_limited` for a message the bucket had no token for: `retry_after` says in how many seconds
    (rounded up to the millisecond) the next one is taken, so that a program waits that long and then sends it."""
    wait = bucket.wait()
    if not math.isfinite(wait):  # a bucket never refilled (a rate of 0): no time to say
        return error("rate_limited", message)
    return dumps({"type": "error", "code": "rate_limited", "message": message,
                  "retry_after": max(math.ceil(wait * 1000) / 1000, 0.001)})


async def _send_all(websocket: WebSocket, conn: Connection) -> None:
    """Finish the sends to this client that had to wait (`Outbox.run`); close the connection when it falls too
    far behind."""
    try:
        await conn.outbox.run()
        if conn.outbox.overflowed:
            await websocket.close(CLOSE_TOO_SLOW, TOO_SLOW)  # unless closed already (`close_now`)
        elif conn.live is not None and conn.live.moved:
            await websocket.close(CLOSE_MOVED, "the game moved to another server: reconnect")
        elif conn.live is not None and conn.live.abandoned:
            await websocket.close(CLOSE_ENDED, "the game was abandoned")
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass  # the client has gone; the receiving side notices and cleans up
    finally:
        conn.outbox.close()


async def _close(websocket: WebSocket, code: str, message: str, close_code: int, field: str | None = None) -> None:
    """Tell the client why (and which `field` is at fault), then close with `close_code`."""
    with contextlib.suppress(Exception):
        await websocket.send_text(error(code, message, field))
        await websocket.close(close_code, message[:120])


async def _deny(websocket: WebSocket, code: str, message: str, status: int = 403,
                headers: dict[str, str] | None = None) -> None:
    """Refuse the handshake: an HTTP `status` (403, or 429 with `Retry-After`) with a JSON body where the server
    can send one, else a close (4403, or 4429)."""
    try:
        await websocket.send_denial_response(JSONResponse(error_body(code, message), status_code=status,
                                                          headers=headers))
    except RuntimeError:
        await websocket.close(CLOSE_FLOOD if status == 429 else CLOSE_ORIGIN, message[:120])
