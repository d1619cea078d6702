"""The REST API: health, creating games, the lobby, a game's public state, its replay log, and abandoning it."""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import quote

import orjson
from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ValidationError
from starlette.requests import HTTPConnection

from ..storage import StorageError
from .errors import STORAGE_RETRY, ServerError, storage_refusal, validation_message
from .hub import GameHub
from .limits import CHARGED_KEY, parsed_body
from .live import LiveGame
from .meta import GameMeta
from .read_cache import (
    GZIP_MINIMUM,
    LOBBY_ORDER,
    Encoded,
    FinishedAnswers,
    Listing,
    LobbyCache,
    LobbyKey,
    lobby_key,
)
from .rebuild import DamagedGame, read_meta
from .replay_cache import ReadLimiter
from .schemas import (
    AbandonGame,
    CreatedGame,
    CreatedSeat,
    CreateGame,
    ErrorBody,
    GameDetail,
    GameLog,
    GameSummary,
    Health,
    Lobby,
)
from .seats import seat_for_token
from .security import client_key

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api")
Body = TypeVar("Body", bound=BaseModel)
_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "No such game"},
    422: {"model": ErrorBody, "description": "A field is invalid (named in `field`)"},
}


def hub_of(request: Request) -> GameHub:
    """The app's game hub."""
    hub: GameHub = request.app.state.hub
    return hub


def client_of(request: HTTPConnection) -> str:
    """The client's address as the limits per address count it (`security.client_key`: an IPv6 address's /64
    network)."""
    return client_key(request.client.host) if request.client else "unknown"


@contextlib.asynccontextmanager
async def _game(request: Request, game_id: str) -> AsyncIterator[LiveGame]:
    """The live game (404 when there is none), released however the request ends (`GameHub.acquire`)."""
    async with hub_of(request).acquire(game_id) as live:
        if live is None:
            raise ServerError(404, "game_not_found", f"there is no game {game_id!r}")
        yield live


@router.get("/health", response_model=Health, responses={
    503: {"model": ErrorBody, "description": "`storage_failed`: a cluster node whose store does not answer its "
          "probe within the read deadline (`Retry-After`): the balancer sends new clients elsewhere"}})
async def health(request: Request) -> dict[str, str]:
    """The server is up; on a cluster node, its store answers too."""
    if not getattr(hub_of(request), "store_available", True):
        raise ServerError(503, "storage_failed", "this node cannot reach the games' store at the moment",
                          headers=STORAGE_RETRY)
    return {"status": "ok"}


def json_body(request: Request, model: type[Body]) -> Body | None:
    """A request's body as `model`: the document `BodyLimit` parsed (in a worker thread when it is large: a belt
    may be megabytes), never parsed again on the event loop; None without a body; 422 naming the field when it is
    invalid (`null` is no body). Strict: nothing is coerced (`"5"` is no number)."""
    parsed, document = parsed_body(request.scope)
    if not parsed or document is None:  # (BodyLimit parses every body sent to the API): none, or `null`
        return None
    try:
        return model.model_validate(document, strict=True)
    except ValidationError as bad:
        message, field = validation_message(bad)
        raise ServerError(422, "invalid", message, field) from None


def _body_doc(model: type[BaseModel], required: bool) -> dict[str, Any]:
    """The OpenAPI request body of an endpoint that reads its body itself (`json_body`)."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    return {"requestBody": {"required": required, "content": {"application/json": {"schema": schema}}}}


@router.post("/games", status_code=201, response_model=CreatedGame, openapi_extra=_body_doc(CreateGame, True),
             responses={
    **_ERRORS, 429: {"model": ErrorBody, "description": "Too many games from this address"}})
async def create_game(request: Request, response: Response) -> CreatedGame:
    """Create a game. The answer holds each seat's token and invite link, and the spectator link: shown this
    once, never listed, never kept by a cache (`Cache-Control: no-store`)."""
    body = json_body(request, CreateGame)
    if body is None:
        raise ServerError(422, "invalid", "the request needs a JSON body: an object ({} takes every default)")
    live, seats = await create_charged(request, body)
    response.headers["cache-control"] = "no-store"
    return with_links(CreatedGame(id=live.id, seats=seats), site_of(request))


async def create_charged(request: Request, body: CreateGame, lesson: str | None = None,
                         ) -> tuple[LiveGame, list[CreatedSeat]]:
    """Create a game for the request's address, charging the bytes of its belt as stored to the address's bucket
    (`create_limiter`: 429 `rate_limited` while it is in debt). A game stays in the store for good, finished or
    not: without it, one client creating and abandoning games in a loop grew the database by 1.6 MB a second."""
    client = client_of(request)
    limiter: ReadLimiter = request.app.state.create_limiter
    limiter.check(client)
    charged = int(request.scope.get(CHARGED_KEY, 0))  # a large body's bytes, charged as it was read (`limits`)
    try:
        live, seats = await hub_of(request).create(body, client, lesson)
    except ServerError as refused:  # a create the store refused is charged too (`ServerError.charge`)
        limiter.charge(client, max(0, refused.charge - charged))
        raise
    limiter.charge(client, max(0, live.belt_bytes - charged))
    return live, seats


def site_of(request: Request) -> str:
    """The server's address as the client reached it (`http://host:port`, behind a trusted proxy its scheme),
    which the links of a new game start with."""
    return str(request.base_url).rstrip("/")


def with_links(created: CreatedGame, site: str) -> CreatedGame:
    """`created` with each person's seat's invite link and the spectator link, the links the browser's lobby
    makes (`web/src/session.ts`, `inviteLink`): the token is in the fragment, so it never reaches a server's
    log or a cache, and the service worker keeps no page with a query."""
    game = quote(created.id, safe="")
    for seat in created.seats:
        if seat.token is not None:
            seat.invite = f"{site}/#/game/{game}?seat={seat.seat}&token={quote(seat.token, safe='')}"
    created.watch = f"{site}/#/watch/{game}"
    return created


LobbyStatus = Literal["open", "running", "damaged"]
CURSOR_CHARS = 300
"""The longest cursor taken (one the server gives is about 60 characters)."""


@router.get("/games", response_model=Lobby, responses={
    422: {"model": ErrorBody, "description": "`limit`, `cursor` or `status` is invalid (named in `field`)"},
    429: {"model": ErrorBody, "description": "`rate_limited`: this address asked for the lobby too often "
          "(`Retry-After`)"}})
async def lobby(
    request: Request,
    limit: Annotated[int | None, Query(description="games on the page: `lobby_page_size` when not given, at most "
                                       "`lobby_max_page_size`")] = None,
    cursor: Annotated[str | None, Query(description="the `next` of the page before (absent: the first page)")] = None,
    status: Annotated[LobbyStatus | None, Query(description="only the games of this status (absent: every listed "
                                                "game, open ones first)")] = None,
) -> Response:
    """One page of the lobby: open games first (newest first), then games in play, then damaged ones, without
    tokens; how many are listed (`total`, of `status` when it is given) and the cursor of the next page (`next`,
    null on the last). A cursor is the place of the page's last game, so games created or gone meanwhile shift no
    page (a game that changes group, open to running, moves with it)."""
    settings = request.app.state.settings
    size = settings.lobby_page_size if limit is None else limit
    if not 1 <= size <= settings.lobby_max_page_size:
        raise ServerError(422, "invalid", f"limit must be between 1 and {settings.lobby_max_page_size}", "limit")
    after = None if cursor is None else _place(cursor)
    request.app.state.lobby_limiter.check(client_of(request))
    hub = hub_of(request)
    cache: LobbyCache = request.app.state.lobby_cache

    async def build() -> Listing:
        # each game's summary is checked against its model and encoded once per listing (once for good while it
        # is the same summary: a game let go's); a page joins its texts
        return Listing(_listing(await hub.lobby_games(), cache))

    # the listing is built again only when it has changed (it is a quarter of a second at the cap of games); a page
    # is sliced from it and kept gzipped too, as the server's other large answers are sent (GZipMiddleware leaves
    # an encoded one alone)
    listing: Listing = await cache.get(hub.lobby_version, build)
    group = None if status is None else LOBBY_ORDER.get(status, len(LOBBY_ORDER))
    return encoded_response(request, listing.page(group, after, size, _cursor))


def _listing(games: list[dict[str, Any]], cache: LobbyCache) -> list[tuple[LobbyKey, bytes]]:
    """Each game's place in the lobby and its summary's text (`_listed`), taken from the last building for a
    summary that is the same object (a game let go lists the summary it was let go with, unchanged for as long as
    it rests): a server that had run for long lets go of tens of thousands of games nobody finished, and checking
    and encoding each of them again at every building (once a second at most) was 0.39 s of CPU of a building's
    0.56 s, with 50,000 of them, on the event loop. What is kept is what this building lists, no more."""
    before = cache.listed

    def entry(game: dict[str, Any]) -> tuple[dict[str, Any], tuple[LobbyKey, bytes]]:
        found = before.get(id(game))
        return found if found is not None and found[0] is game else (game, _listed(game))

    # (the summary itself is kept with its text: its id() names no other object meanwhile)
    pairs = [entry(game) for game in games]
    cache.listed = {id(pair[0]): pair for pair in pairs}
    return [pair[1] for pair in pairs]


def _listed(game: dict[str, Any]) -> tuple[LobbyKey, bytes]:
    """A game's place in the lobby and its summary's JSON text, checked against its model. A summary that fails
    the check (built from a damaged row, which can hold anything) is listed as a damaged game whose row cannot be
    read, and logged: it failed the whole listing, every page of the lobby a `500` for everyone."""
    try:
        return lobby_key(game), GameSummary.model_validate(game).model_dump_json().encode()
    except (ValidationError, KeyError, TypeError, ValueError) as bad:
        game_id = str(game.get("id", ""))[:64]
        log.error("game %s cannot be listed as it is (%s): listed as damaged", game_id, str(bad)[:300])
        summary = {"id": game_id, "status": "damaged", "seq": 0, "round": 0, "turn": None, "rules": "", "belt": "",
                   "asteroids": 0, "turn_seconds": None, "created": 0.0, "seats": [],
                   "reason": "its stored summary cannot be read"}
        return lobby_key(summary), GameSummary.model_validate(summary).model_dump_json().encode()


def _cursor(place: LobbyKey) -> str:
    """The cursor of a page that ends at `place`: opaque to clients (URL-safe base64 of its JSON)."""
    return base64.urlsafe_b64encode(orjson.dumps(place)).decode().rstrip("=")


def _place(cursor: str) -> LobbyKey:
    """The place a cursor names (`_cursor`); 422 naming `cursor` when it is none the server gave."""
    refused = ServerError(422, "invalid", "cursor: not a cursor this server gave (use the `next` of a page)",
                          "cursor")
    if len(cursor) > CURSOR_CHARS:
        raise refused
    try:
        place = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, binascii.Error):
        raise refused from None
    if not (isinstance(place, list) and len(place) == 3 and type(place[0]) is int and 0 <= place[0] <= 9
            and type(place[1]) in (int, float) and math.isfinite(place[1]) and isinstance(place[2], str)):
        raise refused
    return (place[0], float(place[1]), place[2])


BAD_TOKEN = "this token plays no seat of this game"
"""What a token that plays no seat of the game is answered (`bad_token`), by REST and WebSocket alike."""
LOAD_REFUSED = "games loaded from the store (finished games read or watched) and replays, events and logs"
"""What a refused load names: a load takes a token of the history bucket (`history_limiter`)."""


async def charge_load(connection: HTTPConnection, game_id: str, seat: bool = False) -> None:
    """Take a token of the address's history bucket when reading `game_id` would load it from the store (a
    finished game is loaded for each read and let go after it: about 50 ms of CPU on a large belt; so is a running
    game let go while idle, and on a cluster node a game another node plays), unless the reader is a seat's
    WebSocket (`seat`: its token was checked first; a spectator's reads as a REST read does); 429 `rate_limited`
    past it. A game held in memory costs nothing (`GameHub.load_is_charged`)."""
    hub: GameHub = connection.app.state.hub
    if await hub.load_is_charged(game_id, seat):
        connection.app.state.history_limiter.check(client_of(connection), LOAD_REFUSED)


async def refuse_unknown_token(connection: HTTPConnection, game_id: str, token: str) -> None:
    """`403 bad_token` for a token that plays no seat of a game this server does not hold, when the hub can tell
    without loading the game (`GameHub.token_refused`): a wrong token is then refused without a load, and without
    taking a token of the address's history bucket for one."""
    hub: GameHub = connection.app.state.hub
    if await hub.token_refused(game_id, token):
        raise ServerError(403, "bad_token", BAD_TOKEN, "token")


async def finished_or_live(request: Request, game_id: str, part: str,
                           answer: Callable[[LiveGame], dict[str, Any]]) -> Response:
    """`answer(live)` as JSON text (gzipped for a client that takes it), kept by `part` in `FinishedAnswers`: a
    finished game's for good, so that asking again loads nothing (a load is charged to the address,
    `charge_load`); a game in play's until its seq, status or connections change, so that asking again before
    then encodes nothing."""
    kept_answers: FinishedAnswers = request.app.state.finished
    hub = hub_of(request)
    if game_id not in hub.games:
        kept = kept_answers.answer(game_id, part)
        if kept is not None:
            return encoded_response(request, kept)
        if part == "summary":  # a cluster node reads a game other nodes play from the shared store: no load
            stored = await hub.stored_summary(game_id)
            if stored is not None:
                return Response(orjson.dumps(stored), media_type="application/json")
        await charge_load(request, game_id)
    async with _game(request, game_id) as live:
        # (a seat's "connected" counts change while anyone is connected; the summary holds them, and seq and status)
        version = (orjson.dumps(live.summary()) if live.running or live.connections
                   else FinishedAnswers.FINAL)  # a finished game nobody is connected to: as loading it again
        kept = kept_answers.answer(game_id, part, version)
        if kept is None:
            text = orjson.dumps(answer(live))  # the view of a large belt: 2 ms (validated by a model: 30 ms)
            # gzipping a large belt's view is 20 ms: off the event loop (a summary is too short to gzip: no thread)
            kept = await asyncio.to_thread(Encoded.of, text) if len(text) >= GZIP_MINIMUM else Encoded.of(text)
            kept_answers.keep(game_id, part, kept, version)
        return encoded_response(request, kept)


def encoded_response(request: Request, answer: Encoded) -> Response:
    """An answer kept encoded: gzipped for a client that takes it (the GZip middleware leaves an encoded answer
    alone), else its text (which the middleware leaves alone too when it is this short)."""
    if answer.gzipped is not None and "gzip" in request.headers.get("accept-encoding", ""):
        return Response(answer.gzipped, media_type="application/json",
                        headers={"content-encoding": "gzip", "vary": "Accept-Encoding"})
    return Response(answer.text, media_type="application/json", headers={"vary": "Accept-Encoding"})


@router.get("/games/{game_id}", response_model=None, responses={
    200: {"model": GameDetail, "description": "The game's summary and public view"},
    **_ERRORS, 429: {"model": ErrorBody, "description": "`rate_limited`: this address loaded too many finished "
                     "games (`Retry-After`)"}})
async def game_detail(game_id: str, request: Request) -> Response:
    """A game's summary and public view (R17) after command `seq`."""
    return await finished_or_live(request, game_id, "detail", LiveGame.detail)


@router.post("/games/{game_id}/abandon", response_model=GameSummary, openapi_extra=_body_doc(AbandonGame, False),
             responses={
    **_ERRORS, 401: {"model": ErrorBody, "description": "No token was given"},
    403: {"model": ErrorBody, "description": "The token plays no human seat of this game"},
    409: {"model": ErrorBody, "description": "The game is over already (won, lost or abandoned), or damaged"}})
async def abandon_game(game_id: str, request: Request) -> dict[str, Any]:
    """End a running game as `abandoned`, with a human seat's token (in the body, or `Authorization: Bearer`).

    Its clients get an `ended` message and are disconnected, its timer and bots stop; it is listed and replayed
    as finished games are. The answer is the game's summary.
    """
    body = json_body(request, AbandonGame)
    token = body.token if body is not None and body.token is not None else bearer_token(request)
    if token is None:
        raise ServerError(401, "token_required", "send a seat's token: {\"token\": …} or Authorization: Bearer",
                          "token")
    await refuse_unknown_token(request, game_id, token)  # (a game let go: told without loading it)
    await charge_load(request, game_id)  # a finished game is loaded from the store to be refused (`charge_load`)
    async with _game(request, game_id) as live:
        seat = live.seat_for(token)
        if seat is None or seat.kind != "human":
            raise ServerError(403, "bad_token", BAD_TOKEN, "token")
        try:
            ended = await live.abandon(seat)
        except StorageError as failure:
            raise storage_refusal(failure) from None
        if not ended:
            raise ServerError(409, "game_over", f"this game is over already ({live.status})")
        return live.summary()


LOG_HIDDEN = ("running",)
"""The stored statuses whose log is not public: a game in play. Its belt document and seed show every hidden core
(R17) that the players' view hides (and a preset's belt is generated from the seed); once the game has ended (won,
lost, abandoned) the log is everyone's."""


@router.get("/games/{game_id}/log", response_model=None, responses={
    200: {"model": GameLog, "description": "The log, every command as stored"},
    **_ERRORS,
    409: {"model": ErrorBody, "description": "`game_running`: the game is in play (its log is public once it has "
          "ended; a damaged game's log is shown to its seats' tokens)"},
    429: {"model": ErrorBody, "description": "`rate_limited`: this address asked for too many logs, replays and "
          "events (`Retry-After`)"}})
async def game_log(game_id: str, request: Request) -> Response:
    """The replay: belt, options, seed and every accepted command with its seq (from the store), once the game
    has ended. A damaged game in play shows it to a seat's token (`Authorization: Bearer TOKEN`)."""
    request.app.state.history_limiter.check(client_of(request))  # (it reads the whole log: rate-limited)
    hub = hub_of(request)
    kept_answers: FinishedAnswers = request.app.state.finished
    kept = kept_answers.answer(game_id, "log")  # a finished game's, which never changes
    if kept is not None:
        return encoded_response(request, kept)
    # a game in play is refused before its log is read: reading and parsing 5,000 commands was 16-31 ms of CPU,
    # 30-60 times a health check's, for a refusal (a damaged game's seats may read it: that is told by the log)
    if game_id not in hub.damaged and await hub.in_play(game_id):
        raise _log_running()
    found = await hub.store.log(game_id)
    if found is None:
        raise ServerError(404, "game_not_found", f"there is no game {game_id!r}")
    record, progress, commands = found
    try:
        meta = read_meta(record)
    except DamagedGame as damaged:
        raise damaged from None  # 409 game_damaged (errors.install)
    if progress.status in LOG_HIDDEN and not (game_id in hub.damaged and _seated(meta, bearer_token(request))):
        raise _log_running()
    document = {
        "id": record.id, "belt": record.belt, "options": record.options, "seed": record.seed,
        "settlers": record.settlers, "seats": meta.seats_public(), "status": progress.status, "seq": progress.seq,
        "commands": [c.to_json() for c in commands],
    }
    # checked against its model, encoded and gzipped off the event loop (a long game's log is megabytes: the GZip
    # middleware compressed it on the event loop, 50 ms of CPU for 992 KB); a command that is JSON but no action
    # (a damaged row) makes the game damaged, as its replay says, rather than a 500
    answer = await asyncio.to_thread(_log_answer, record.id, document)
    if progress.status not in LOG_HIDDEN:  # an ended game's log never changes: kept, asking again reads nothing
        kept_answers.keep(game_id, "log", answer)
    return encoded_response(request, answer)


def _log_running() -> ServerError:
    """The refusal of a game in play's log."""
    return ServerError(409, "game_running", "this game is in play: its log (belt and seed) would show the cores "
                       "its players have not surveyed; it is public once the game has ended, and /replay and "
                       "/events show what the players see meanwhile")


def _log_answer(game_id: str, document: dict[str, Any]) -> Encoded:
    """The log's JSON text (and the same gzipped, unless it is short), once `GameLog` has taken it; DamagedGame
    naming the first field it does not."""
    return Encoded.of(_log_text(game_id, document))


def _log_text(game_id: str, document: dict[str, Any]) -> bytes:
    """The log's JSON text, once `GameLog` has taken it; DamagedGame naming the first field it does not."""
    try:
        GameLog.model_validate(document)
    except ValidationError as bad:
        first = bad.errors(include_url=False)[0]
        loc = list(first["loc"])
        if len(loc) > 1 and loc[0] == "commands" and isinstance(loc[1], int):  # named by seq, as the rebuild does
            loc[1] = document["commands"][loc[1]]["seq"]
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")
        raise DamagedGame(game_id, f"{where}: {first['msg']}"[:300]) from None
    return orjson.dumps(document)


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header, or None."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _seated(meta: GameMeta, token: str | None) -> bool:
    """Whether `token` plays a seat of the game (of any kind)."""
    return token is not None and seat_for_token(list(meta.seats), token[:256]) is not None
