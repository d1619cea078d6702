"""WebSocket messages: reading a client's text, and the texts the server sends.

Client → server: `act` and `sync` (see `schemas`). Server → client: `state`, `update` and `error` (see
`docs/server.md`). Every text is compact JSON, written by orjson: an update is encoded once per action, and
orjson does that about ten times faster than the standard library, which mattered on the server's hottest path.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from pydantic import ValidationError

from ..rules import Action, BuildGates, BuildRobot, Deposit, Drill, Mine, Move, Place, Wait
from .errors import validation_message
from .schemas import ACTION_FIELDS, CLIENT_MESSAGE, ActMessage, SyncMessage


class MessageError(Exception):
    """A client message the server cannot take: a stable code, a sentence and the field at fault."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


def dumps(value: Any) -> str:
    """Compact JSON text (UTF-8 as is; tuples as arrays)."""
    return orjson.dumps(value).decode()


def frame(text: str) -> dict[str, Any]:
    """The ASGI message that sends `text` over a WebSocket; one such message can go to many connections."""
    return {"type": "websocket.send", "text": text}


def error(code: str, message: str, field: str | None = None, ref: str | int | None = None) -> str:
    """An `error` message for one client."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if field is not None:
        out["field"] = field
    if ref is not None:
        out["ref"] = ref
    return dumps(out)


def parse(text: str, limit: int) -> ActMessage | SyncMessage:
    """A client's message from its text; raises MessageError (`too_large`, `invalid`, `unknown_type`)."""
    if len(text) > limit // 4 and len(text.encode("utf-8", "surrogatepass")) > limit:
        raise MessageError("too_large", f"a message may be at most {limit} bytes")
    try:  # the usual case, a valid message: parsed and validated in one pass by pydantic-core
        return CLIENT_MESSAGE.validate_json(text)
    except ValueError:  # ValidationError included: the slower path below says what is wrong, as it always has
        pass
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as bad:
        raise MessageError("invalid", f"malformed JSON: {bad}") from None
    if not isinstance(data, dict):
        raise MessageError("invalid", "a message must be a JSON object with a type")
    try:
        return CLIENT_MESSAGE.validate_python(data)
    except ValidationError as bad:
        errors = bad.errors(include_url=False)
        if errors and errors[0]["type"] == "union_tag_invalid":
            known = "act, sync"
            raise MessageError("unknown_type", f"unknown message type {data.get('type')!r} (known: {known})",
                               "type") from None
        if errors and errors[0]["type"] == "union_tag_not_found":
            raise MessageError("invalid", "a message needs a type (act or sync)", "type") from None
        message, field = validation_message(bad, skip=1)  # the first location part is the message type
        raise MessageError("invalid", message, field) from None


def to_action(msg: ActMessage) -> Action:
    """The engine's action for an `act` message; MessageError naming the field when an argument is missing
    or is given to an action that takes none."""
    wanted = ACTION_FIELDS[msg.action]
    for name in ("target", "kind", "gate"):
        given = getattr(msg, name) is not None
        if name == wanted and not given:
            raise MessageError("invalid", f"{msg.action} needs a {name}", name)
        if name != wanted and given:
            raise MessageError("invalid", f"{msg.action} takes no {name}", name)
    actor = msg.settler
    match msg.action:
        case "move":
            return Move(actor, str(msg.target))
        case "drill":
            return Drill(actor)
        case "mine":
            return Mine(actor)
        case "deposit":
            return Deposit(actor, str(msg.kind))
        case "build_robot":
            return BuildRobot(actor)
        case "build_gates":
            return BuildGates(actor)
        case "place":
            return Place(actor, str(msg.gate))
        case _:
            return Wait(actor)
