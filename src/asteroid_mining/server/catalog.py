"""What a game can be created with: `GET /api/belts` (belts and difficulty levels) and `GET /api/bots`.

The lobby reads these instead of keeping its own lists: the belts come from `maps.resolve.belt_catalog` (the
shipped belts and the generator presets, as `POST /api/games` resolves them), the bots from the bot registry
(the built-in bots and those installed packages register).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from ..maps.difficulty import DIFFICULTIES
from ..maps.resolve import belt_catalog
from .bots import available_bots
from .config import Settings

router = APIRouter(prefix="/api")


class BeltEntry(BaseModel):
    """A belt a game can be created on by name."""

    name: str = Field(description="What to send as `belt` in `POST /api/games`.")
    kind: Literal["shipped", "generated"] = Field(description="A hand-made belt, or a new one from each game's seed.")
    asteroids: int
    description: str


class DifficultyEntry(BaseModel):
    """A difficulty level (`difficulty` in `POST /api/games`)."""

    name: str
    description: str


class Belts(BaseModel):
    """The answer to `GET /api/belts`."""

    belts: list[BeltEntry]
    difficulties: list[DifficultyEntry]


class Bots(BaseModel):
    """The answer to `GET /api/bots`: the names a bot seat may be given (`bots` in `POST /api/games`)."""

    bots: list[str]


@cache
def _belts(max_asteroids: int) -> dict[str, Any]:
    # The shipped files and the presets are part of the installed package: read once per process.
    return {
        "belts": [{"name": b.name, "kind": b.kind, "asteroids": b.asteroids, "description": b.description}
                  for b in belt_catalog() if b.asteroids <= max_asteroids],
        "difficulties": [level.to_json() for level in DIFFICULTIES.values()],
    }


@router.get("/belts", response_model=Belts)
async def belts(request: Request) -> dict[str, Any]:
    """The belts a game can be created on by name (those within this server's size limit), with their sizes and
    descriptions, and the difficulty levels."""
    settings: Settings = request.app.state.settings
    return _belts(settings.max_belt_asteroids)


@router.get("/bots", response_model=Bots)
async def bots() -> dict[str, Any]:
    """The bots this server can seat: the built-in ones and those installed packages register."""
    return {"bots": list(available_bots())}
