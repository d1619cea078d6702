"""Pictures of belts: files are made, in both formats, for laid-out belts and others."""

from __future__ import annotations

from pathlib import Path

import pytest

from asteroid_mining.maps import load_shipped
from asteroid_mining.maps.picture import PictureError, render_belt
from asteroid_mining.rules.belt import AsteroidSpec, Belt, GatePairSpec


def test_png_of_a_generated_belt(standard: Belt, tmp_path: Path) -> None:
    path = render_belt(standard, tmp_path / "belt.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 50_000


def test_svg_without_cores(small: Belt, tmp_path: Path) -> None:
    path = render_belt(small, tmp_path / "belt.svg", color_by_core=False)
    text = path.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert len(text) > 20_000
    assert "Small belt 5" in text or "Small" in text


def test_shipped_belt_with_gates(tmp_path: Path) -> None:
    path = render_belt(load_shipped("puzzle-gates"), tmp_path / "gates.png")
    assert path.stat().st_size > 30_000


def test_belt_without_positions_is_laid_out_for_the_picture(tmp_path: Path) -> None:
    belt = Belt(
        asteroids=(AsteroidSpec("A", 0), AsteroidSpec("B", core="iron"), AsteroidSpec("C", core="uranium")),
        links=(("A", "B"), ("B", "C")),
        start="A",
        gates=(GatePairSpec("g1", "A", "g2", "C"),),
    )
    assert render_belt(belt, tmp_path / "plain.png").stat().st_size > 10_000


def test_cores_change_the_picture(small: Belt, tmp_path: Path) -> None:
    a = render_belt(small, tmp_path / "a.png").read_bytes()
    b = render_belt(small, tmp_path / "b.png", color_by_core=False).read_bytes()
    assert a != b


def test_unknown_format(small: Belt, tmp_path: Path) -> None:
    with pytest.raises(PictureError, match=r"must be \.png or \.svg"):
        render_belt(small, tmp_path / "belt.gif")


def test_unwritable_place(small: Belt, tmp_path: Path) -> None:
    with pytest.raises(PictureError, match="cannot write"):
        render_belt(small, tmp_path / "no" / "such" / "dir.png")
