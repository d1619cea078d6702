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

    def public(self) -> dict[str, Any]:
        """The seat as anyone may see it (no token)."""
        return {"seat": self.number, "kind": self.kind, "bot": self.bot, "settlers": list(self.settlers)}

    def to_meta(self) -> dict[str, Any]:
        """The seat as stored with the game."""
        return {**self.public(), "token": self.token_digest}


def deal_settlers(seats: int, per_seat: int) -> list[tuple[str, ...]]:
    """Settlers `s1…sN` dealt round-robin, so that seats take turns (seat 1: s1, s3…; seat 2: s2, s4…)."""
    return [tuple(f"s{seat + 1 + i * seats}" for i in range(per_seat)) for seat in range(seats)]


def seat_for_token(seats: list[Seat], token: str) -> Seat | None:
    """The seat whose token this is; every seat is compared (in constant time each), whichever matches."""
    found = None
    for seat in seats:
        if token_matches(token, seat.token_digest):
            found = seat
    return found
