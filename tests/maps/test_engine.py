"""Belts meet the engine: generated and shipped belts start games, and storms cover the sectors maps computes."""

from __future__ import annotations

import pytest

from asteroid_mining.maps.generator import generate_belt
from asteroid_mining.maps.storms import asteroids_in_sector, sector_index
from asteroid_mining.rules import Game, Options, Wait
from asteroid_mining.rules.belt import Belt
from asteroid_mining.rules.events import Event, StormForecast


def play_waiting(game: Game, rounds: int) -> list[Event]:
    """Every settler waits, round after round; the events that happened."""
    events: list[Event] = []
    for _ in range(rounds):
        start = game.round
        while game.status == "running" and game.round == start and game.turn is not None:
            events += game.apply(Wait(game.turn))
    return events


def test_storm_regions_are_the_sectors_maps_computes(standard: Belt) -> None:
    game = Game.new(standard, options=Options(storm_interval=2), seed=3)
    events = play_waiting(game, 30)
    forecasts = [e for e in events if isinstance(e, StormForecast)]
    assert forecasts
    angles, ids = sector_index(standard)
    for forecast in forecasts:
        assert forecast.sector is not None
        start, width = forecast.sector
        assert width == standard.storm_sector
        assert list(forecast.asteroids) == asteroids_in_sector(angles, ids, start, width)
    assert game.status == "running"  # the start is a shelter: waiting there is safe


@pytest.mark.parametrize("preset", ["tutorial", "small", "large"])
def test_generated_belts_start_games(preset: str) -> None:
    belt = generate_belt(preset, seed=8)
    game = Game.new(belt, seed=1)
    assert game.status == "running" and game.winnable
    assert all(s.at == belt.start for s in game.settlers.values())
