"""Seats: who plays which settlers. A seat is a person (with a token) or a bot played by the server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .security import token_matches

SeatKind = Literal["human", "bot"]


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a game. `token_digest` is all the server keeps of the seat's token."""

    number: int
    kind: SeatKind
    settlers: tuple[str, ...]
    token_digest: str
    bot: str | None = None
    program: bool = False
    """Played by a program over the WebSocket (chosen at creation, `CreateGame.programs`): its connections have
    the program message budget (`Settings.program_rate_per_second`)."""

    def public(self) -> dict[str, Any]:
        """The seat as anyone may see it (no token)."""
        return {"seat": self.number, "kind": self.kind, "bot": self.bot, "settlers": list(self.settlers)}

    def to_meta(self) -> dict[str, Any]:
        """The seat as stored with the game."""
        return {**self.public(), "token": self.token_digest, **({"program": True} if self.program else {})}


def deal_settlers(settlers: list[str], seats: int) -> list[tuple[str, ...]]:
    """The game's settlers, in the engine's order, dealt round-robin to `seats` seats, so that seats take turns
    (seat 1: the first, third…; seat 2: the second, fourth…).

    The ids are the ones the engine gave (`s1…sN`, skipping any a belt already uses for an asteroid or a gate):
    a seat must own exactly the settlers the game has, or a turn would belong to nobody.
    """
    return [tuple(settlers[seat::seats]) for seat in range(seats)]


def seat_for_token(seats: list[Seat], token: str) -> Seat | None:
    """The seat whose token this is; every seat is compared (in constant time each), whichever matches."""
    found = None
    for seat in seats:
        if token_matches(token, seat.token_digest):
            found = seat
    return found
