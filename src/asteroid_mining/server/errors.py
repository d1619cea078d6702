"""The server's errors and how they reach clients: always JSON with a code and a sentence, never a traceback.

REST answers `{"error": {"code", "message", "field"?}}`; WebSocket errors are `{"type": "error", "code",
"message", "field"?, "ref"?}`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException

from ..storage import DamagedRecord, StorageError

log = logging.getLogger(__name__)

_HTTP_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
    409: "conflict", 413: "too_large", 415: "unsupported_media_type", 422: "invalid", 429: "too_many",
    500: "internal", 503: "unavailable", 507: "storage_full",
}


class ServerError(Exception):
    """An error the server reports to a client: HTTP `status`, stable `code`, a sentence, the field at fault."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
        """Headers of the answer besides its body (`Retry-After` of a `429`)."""
        self.charge = 0
        """Bytes of a new game's belt to charge its creator's address all the same (`lobby.create_charged`): a
        create the store refused (a full disk) had cost the set-up of its game."""

    def body(self) -> dict[str, Any]:
        """The REST error body."""
        return error_body(self.code, self.message, self.field)


STORAGE_RETRY = {"Retry-After": "5"}
"""What a `503 storage_failed` adds: when to try again (a store restarting, or that did not answer by its
deadline)."""


def storage_refusal(failure: Exception) -> ServerError:
    """What a client is told when the store failed: 507 `storage_full` for a full disk, else 503
    `storage_failed` (the server itself is fine; trying later may work)."""
    text = str(failure).lower()
    if "full" in text or "no space" in text:
        return ServerError(507, "storage_full", "the server's disk is full: nothing could be saved")
    return ServerError(503, "storage_failed", "the server could not read or save games at the moment; try later",
                       headers=STORAGE_RETRY)


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    """`{"error": {"code", "message", "field"?}}`."""
    detail: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        detail["field"] = field
    return {"error": detail}


def field_of(loc: Sequence[int | str], skip: int = 0) -> str | None:
    """A field's name for people from a pydantic error location (`seats`, `bots.2`); None for the whole."""
    parts = [str(p) for p in loc[skip:]]
    if not parts:
        return None
    if parts[0] in ("bots", "options", "stand_in") and len(parts) > 1:
        return f"{parts[0]}.{parts[1]}"
    if parts[0] == "programs" and len(parts) > 1 and isinstance(loc[skip + 1], int):
        return f"programs[{parts[1]}]"
    return parts[0]


def first_problem(errors: Sequence[Any], skip: int = 0) -> tuple[str, str | None]:
    """The message and field of the first of pydantic's errors (`skip` location parts dropped)."""
    if not errors:
        return "invalid request", None
    first = errors[0]
    loc = first.get("loc", ())
    field = field_of(loc, skip)
    kind = first.get("type", "")
    if kind == "json_invalid":
        return f"malformed JSON: {first.get('ctx', {}).get('error', first.get('msg', ''))}", None
    if kind == "extra_forbidden":
        return f"unknown field {field!r}", field
    if kind == "missing":
        if field is None:  # the whole body: nothing was sent
            return "the request needs a JSON body: an object ({} takes every default)", None
        return f"{field} is required", field
    message = str(first.get("msg", "invalid value"))
    return (f"{field}: {message}" if field else message), field


def validation_message(error: ValidationError, skip: int = 0) -> tuple[str, str | None]:
    """The message and field of a pydantic ValidationError."""
    return first_problem(error.errors(include_url=False), skip)


def install(app: FastAPI) -> None:
    """Make every error of `app` answer JSON: validation errors name the field, crashes say only `internal`."""

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = list(exc.errors())
        skip = 1 if errors and errors[0].get("loc", ("",))[0] in ("body", "query", "path") else 0
        message, field = first_problem(errors, skip)
        return JSONResponse(error_body("invalid", message, field), status_code=422)

    async def server_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ServerError)
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        code = _HTTP_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        return JSONResponse(error_body(code, message), status_code=exc.status_code, headers=exc.headers)

    async def storage_failed(request: Request, exc: Exception) -> JSONResponse:
        log.warning("storage failed on %s %s: %s", request.method, request.url.path, exc)
        return JSONResponse(error_body("storage_failed", "the games' storage cannot be reached at the moment; try "
                                       "again"), status_code=503, headers=STORAGE_RETRY)

    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse(error_body("internal", "internal server error"), status_code=500)

    async def storage_error(request: Request, exc: Exception) -> JSONResponse:
        log.error("storage failed on %s %s: %s", request.method, request.url.path, exc)
        refusal = storage_refusal(exc)
        return JSONResponse(refusal.body(), status_code=refusal.status)

    async def damaged(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, DamagedGame | DamagedRecord)  # (a game's rows that cannot be read: DamagedRecord)
        body = error_body("game_damaged", f"game {exc.game_id} cannot be loaded ({exc.reason}); its log is "
                          f"still at /api/games/{exc.game_id}/log (for its seats' tokens until it has ended)")
        return JSONResponse(body, status_code=409)

    from .rebuild import DamagedGame

    app.add_exception_handler(StorageError, storage_error)
    app.add_exception_handler(DamagedGame, damaged)
    app.add_exception_handler(DamagedRecord, damaged)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(ServerError, server_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(StorageError, storage_failed)
    app.add_exception_handler(Exception, crash)
