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

from ..rules import Action, GameFormatError, Refusal, action_from_json
from ..texts import refusal_text
from .action_schemas import ARGUMENTS, SPEC_OF, ActBase
from .errors import first_problem
from .schemas import CLIENT_MESSAGE, SyncMessage


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


def error(code: str, message: str, field: str | None = None, ref: str | int | None = None,
          params: dict[str, Any] | None = None) -> str:
    """An `error` message for one client."""
    out: dict[str, Any] = {"type": "error", "code": code}
    if params is not None:
        out["params"] = params
    out["message"] = message
    if field is not None:
        out["field"] = field
    if ref is not None:
        out["ref"] = ref
    return dumps(out)


def refused(refusal: Refusal, ref: str | int | None = None) -> str:
    """The `error` answering an `act` the rules refuse: the engine's refusal as it is, `{"code", "params",
    "message"}`, so that a client translates it as it does the refusals of `choices`; the message is the English
    text of the translation files (`texts.refusal_text`)."""
    params = refusal.params
    return error(refusal.code, refusal_text(refusal.code, params), ref=ref, params=params)


MAX_PARTS = 64
"""The most members and items a client's message may have in all (counted as its `:` and `,`, strings included):
an `act` has half a dozen. The validation builds an error for each unknown member, a few microseconds each: a
`sync` of 64 KB with 6,500 members cost 124 ms, and one connection's burst of forty held the event loop for five
seconds."""

MAX_DIGITS = 256
"""The most digits a client's message may have (strings included) and still be read by pydantic-core's parser
(`parse`'s usual path); one with more takes the slower path, whose parser reads at most `MAX_INTEGER_CHARS` of
an integer. Both parsers read an integer's digits in time that grows with their square: fourteen integers of
4,299 digits (Python's most) in a message of 64 KB cost 2.3 ms of CPU a message, fourteen times a refused
`act`'s (0.16 ms), at the rate of any message. An `act` has a few dozen digits at most."""
MAX_INTEGER_CHARS = 24
"""The most characters (its sign included) of an integer of a message the slower path reads: a longer one is read
as its first `MAX_INTEGER_CHARS`, out of every integer field's range (64 bits, 20 characters at most) all the
same, and refused naming its field."""
_DIGITS = b"0123456789"


def _integer(digits: str) -> int:
    """An integer of a message read by the standard library's parser: its first `MAX_INTEGER_CHARS` characters."""
    return int(digits[:MAX_INTEGER_CHARS])


def _digits(text: str) -> int:
    """How many ASCII digits `text` has."""
    raw = text.encode("utf-8", "surrogatepass")
    return len(raw) - len(raw.translate(None, _DIGITS))


def parse(text: str, limit: int) -> ActBase | SyncMessage:
    """A client's message from its text; raises MessageError (`too_large`, `invalid`, `unknown_type`)."""
    if len(text) > limit // 4 and len(text.encode("utf-8", "surrogatepass")) > limit:
        raise MessageError("too_large", f"a message may be at most {limit} bytes")
    if len(text) > MAX_PARTS and text.count(":") + text.count(",") > MAX_PARTS:  # (a few microseconds at 64 KB)
        raise MessageError("invalid", f"a message has at most {MAX_PARTS} members and items in all")
    many_digits = len(text) > MAX_DIGITS and _digits(text) > MAX_DIGITS
    if not many_digits:
        try:  # the usual case, a valid message: parsed and validated in one pass by pydantic-core
            return CLIENT_MESSAGE.validate_json(text)
        except ValueError:  # ValidationError included: the slower path below says what is wrong, as it always has
            pass
    try:
        data = json.loads(text, parse_int=_integer)
    except (ValueError, RecursionError) as bad:
        raise MessageError("invalid", f"malformed JSON: {bad}") from None
    if not isinstance(data, dict):
        raise MessageError("invalid", "a message must be a JSON object with a type")
    try:
        return CLIENT_MESSAGE.validate_python(data)
    except ValidationError as bad:
        raise _problem(data, bad.errors(include_url=False)) from None


def _problem(data: dict[str, Any], errors: list[Any]) -> MessageError:
    """The MessageError for the first of pydantic's errors about a client message."""
    first = errors[0] if errors else {}
    kind, loc = first.get("type", ""), tuple(first.get("loc", ()))
    name = first.get("input")
    if kind == "string_unicode" and isinstance(name, str) and name in data:
        # a member's name holding a lone surrogate (`{"\ud800": 1}`) is reported by pydantic at the message, no
        # field named; it is named here escaped (the name as it is cannot be sent back: it is no UTF-8)
        escaped = name.encode("utf-8", "backslashreplace").decode()
        return MessageError("invalid", f"unknown field '{escaped}': a member's name must be text (a lone "
                            "surrogate is none)", escaped)
    if kind == "union_tag_invalid" and not loc:
        return MessageError("unknown_type", f"unknown message type {data.get('type')!r} (known: act, sync)", "type")
    if kind == "union_tag_not_found" and not loc:
        return MessageError("invalid", "a message needs a type (act or sync)", "type")
    if loc[:1] != ("act",):
        message, field = first_problem(errors, skip=1)  # the first location part is the message type
        return MessageError("invalid", message, field)
    # an act: the location is ("act", the action, the field)
    if kind == "union_tag_invalid":
        return MessageError("invalid", f"unknown action {data.get('action')!r} (known: {', '.join(SPEC_OF)})",
                            "action")
    if kind == "union_tag_not_found":
        return MessageError("invalid", f"an act needs an action ({', '.join(SPEC_OF)})", "action")
    action, field = str(loc[1]), str(loc[2]) if len(loc) > 2 else None
    if kind == "missing" and field in ARGUMENTS:
        return MessageError("invalid", f"{action} needs a {field}", field)
    if kind == "extra_forbidden" and field in ARGUMENTS:
        return MessageError("invalid", f"{action} takes no {field}", field)
    message, field = first_problem(errors, skip=2)
    return MessageError("invalid", message, field)


def to_action(msg: ActBase) -> Action:
    """The engine's action for an `act` message, read by the engine's one decoder of actions
    (`action_from_json`); MessageError naming the field when the engine cannot read it."""
    try:
        return action_from_json({"type": msg.action, "actor": msg.settler, **msg.arguments()})
    except GameFormatError as bad:
        field = bad.path.rpartition(".")[2] or None
        raise MessageError("invalid", f"{field}: {bad.reason}" if field else bad.reason, field) from None
