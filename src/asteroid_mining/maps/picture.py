"""Pictures of a belt (PNG or SVG) with matplotlib's Agg backend, readable from 10 asteroids to 20,000.

What a picture shows: the Sun at the centre; the links (thin; a hub's links fainter, as spokes); the asteroids
coloured by core (the Okabe–Ito palette, safe for colour-blind readers, with hollow ones as rings) or all
alike (`color_by_core=False`, the players' view before surveying); a warm halo on those near the Sun in
round 1; shelters (hollow and drilled through, R4) as white rings; hubs larger; the start as a white star;
the reach of one storm as a faint wedge; a legend and a title.

Belts without positions are laid out for the picture (a spring layout), which the picture says.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..rules.belt import Belt
from ..rules.materials import HOLLOW, KINDS
from .graph import BeltArrays, BoolArray, FloatArray, degrees, hub_mask
from .problems import MapError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

CORE_COLOURS = {
    "ice": "#56B4E9",  # sky blue
    "iron": "#E69F00",  # orange
    "carbon": "#CC79A7",  # reddish purple
    "uranium": "#009E73",  # bluish green (uranium glass glows green)
    HOLLOW: "#A7B0C2",  # grey ring
}
"""Core colours: Okabe & Ito's colour-blind-safe palette."""
PLAIN_COLOUR = "#C9CEDB"
"""Asteroids when cores are not shown."""
BACKGROUND = "#0A0E1C"
TEXT = "#E8ECF4"
LINK_COLOUR = "#7F93BD"
HALO_COLOUR = "#FF7A45"
SUN_COLOUR = "#FFD54F"
GATE_COLOUR = "#C5A3FF"
SUFFIXES = (".png", ".svg")
"""The picture formats `render_belt` writes, by file suffix."""


class PictureError(MapError):
    """A picture could not be made (an unknown format, a file that cannot be written)."""

    code = "picture_failed"


def render_belt(belt: Belt, path: str | os.PathLike[str], color_by_core: bool = True, dpi: int = 150) -> Path:
    """Draw `belt` into `path` (`.png` or `.svg`); returns the path. Raises `PictureError`."""
    target = Path(path)
    if target.suffix.lower() not in SUFFIXES:
        raise PictureError(f"{target.name}: a picture must be .png or .svg, not {target.suffix or 'no suffix'!r}")
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 10.6), facecolor=BACKGROUND)
    try:
        _draw(fig, belt, color_by_core, svg=target.suffix.lower() == ".svg")
        fig.savefig(target, dpi=dpi, facecolor=BACKGROUND)
    except OSError as wrong:
        raise PictureError(f"{target}: cannot write the picture: {wrong.strerror or wrong}") from None
    return target


def _positions(arrays: BeltArrays) -> tuple[FloatArray, bool]:
    """The belt's positions, or a spring layout made for the picture (and False)."""
    if arrays.positions is not None:
        return arrays.positions, True
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(arrays.n))
    graph.add_edges_from(arrays.edges.tolist())
    if arrays.n > 3000:
        layout = nx.circular_layout(graph)
    else:
        layout = nx.spring_layout(graph, seed=1, iterations=200 if arrays.n < 500 else 60)
    xy = np.array([layout[i] for i in range(arrays.n)], dtype=np.float64) * 10.0
    return xy, False


def _sizes(n: int) -> tuple[float, float]:
    """Marker area (points²) of an asteroid, and link width, for a belt of n asteroids."""
    if n <= 60:
        return 110.0, 1.1
    if n <= 400:
        return 34.0, 0.7
    if n <= 3000:
        return 9.0, 0.35
    return 2.2, 0.18


@dataclass(frozen=True)
class _Scene:
    """What every layer of a picture needs: positions, masks and marker sizes."""

    ax: Axes
    xy: FloatArray
    area: FloatArray
    """Marker area of each asteroid (points²): hubs larger."""
    size: float
    width: float
    raster: bool
    """Rasterise dots and lines (big belts in SVG)."""

    def dots(self, mask: BoolArray, scale: float = 1.0, **style: Any) -> None:
        """Scatter the asteroids in `mask`."""
        if mask.any():
            style.setdefault("linewidths", 0)
            style.setdefault("rasterized", self.raster)
            self.ax.scatter(self.xy[mask, 0], self.xy[mask, 1], s=self.area[mask] * scale, **style)


def _draw(fig: Figure, belt: Belt, color_by_core: bool, svg: bool) -> None:
    arrays = BeltArrays.of(belt)
    n = arrays.n
    xy, laid_out = _positions(arrays)
    deg = degrees(n, arrays.edges)
    hubs = hub_mask(deg)
    size, width = _sizes(n)
    ax = fig.add_axes((0.02, 0.075, 0.96, 0.84))
    ax.set_facecolor(BACKGROUND)
    ax.set_aspect("equal")
    ax.axis("off")
    distance = np.hypot(xy[:, 0], xy[:, 1])
    radius, inner = float(distance.max()), float(distance.min())
    pad = radius * 0.06 + 1e-9
    ax.set_xlim(-radius - pad, radius + pad)
    ax.set_ylim(-radius - pad, radius + pad)
    area = np.where(hubs, size * 3.5 + np.sqrt(deg) * size * 0.15, size)
    # an SVG of 200,000 vector lines would be unreadably slow: big belts are rasterised inside the SVG
    scene = _Scene(ax, xy, area, size, width, raster=svg and n > 2000)

    if laid_out:
        _sun(ax, max(inner * 0.1, radius * 0.028))
        _storm_wedge(ax, belt.storm_sector, inner, radius)
    _links(scene, arrays, hubs)
    marks = _asteroids(scene, belt, color_by_core, hubs)
    _gates(scene, belt, arrays.index)
    _start(scene, arrays.index[belt.start])
    if n <= 60:
        for i, aid in enumerate(arrays.ids):
            ax.annotate(
                aid,
                xy[i],
                xytext=(0, -15),
                textcoords="offset points",
                ha="center",
                color=TEXT,
                alpha=0.8,
                fontsize=7,
                zorder=5,
            )
    _title(fig, belt, n, len(arrays.edges), int(hubs.sum()), laid_out)
    _legend(fig, color_by_core, marks | ({"hub"} if hubs.any() else set()) | ({"gate"} if belt.gates else set()))


def _links(scene: _Scene, arrays: BeltArrays, hubs: BoolArray) -> None:
    """Ordinary links, then a hub's links fainter (as spokes)."""
    from matplotlib.collections import LineCollection

    if len(arrays.edges) == 0:
        return
    spoke = hubs[arrays.edges[:, 0]] | hubs[arrays.edges[:, 1]]
    segments = scene.xy[arrays.edges]
    n = len(scene.xy)
    alpha = 0.55 if n <= 400 else 0.4 if n <= 3000 else 0.3
    for chosen, a, w in ((~spoke, alpha, scene.width), (spoke, alpha * 0.25, scene.width * 0.7)):
        if chosen.any():
            lines = LineCollection(
                list(segments[chosen]), colors=LINK_COLOUR, linewidths=w, alpha=a, zorder=1, rasterized=scene.raster
            )
            scene.ax.add_collection(lines)


def _asteroids(scene: _Scene, belt: Belt, color_by_core: bool, hubs: BoolArray) -> set[str]:
    """Halos, cores (or plain dots), rings for shelters and bare cores, hub rims; the marks used, for the legend."""
    near = np.array([a.orbit.is_near(1) if a.orbit is not None else a.sun == "near" for a in belt.asteroids])
    cores = np.array([a.core for a in belt.asteroids])
    drilled = np.array([a.mantle == 0 for a in belt.asteroids])
    shelter = (cores == HOLLOW) & drilled
    bare = (cores != HOLLOW) & drilled
    ring = max(0.4, scene.width)
    scene.dots(near, 5.0, c=HALO_COLOUR, alpha=0.38 if len(cores) <= 3000 else 0.5, zorder=2)
    if color_by_core:
        for kind in KINDS:
            scene.dots(cores == kind, c=CORE_COLOURS[kind], zorder=3)
        scene.dots(
            (cores == HOLLOW) & ~shelter, facecolors="none", edgecolors=CORE_COLOURS[HOLLOW], linewidths=ring, zorder=3
        )
        scene.dots(bare, 1.25, facecolors="none", edgecolors="white", linewidths=ring, zorder=4)
    else:
        scene.dots(~shelter, c=PLAIN_COLOUR, zorder=3)
    scene.dots(shelter, 1.3, facecolors="none", edgecolors="white", linewidths=max(0.5, scene.width * 1.6), zorder=4)
    scene.dots(hubs, 1.6, facecolors="none", edgecolors=TEXT, linewidths=0.6, alpha=0.8, zorder=4, rasterized=False)
    marks = {"shelter", "start"} | ({"near"} if near.any() else set())
    return marks | ({"bare"} if bare.any() and color_by_core else set())


def _start(scene: _Scene, start: int) -> None:
    """A white star in a ring, labelled."""
    x, y = scene.xy[start]
    scene.ax.scatter(
        [x], [y], s=max(scene.size * 4, 150), marker="*", c="white", edgecolors=BACKGROUND, linewidths=0.8, zorder=6
    )
    scene.ax.scatter(
        [x],
        [y],
        s=max(scene.size * 14, 600),
        facecolors="none",
        edgecolors="white",
        linewidths=1.2,
        alpha=0.8,
        zorder=6,
    )
    scene.ax.annotate(
        "start",
        (x, y),
        xytext=(12, 10),
        textcoords="offset points",
        color="white",
        fontsize=9.5,
        fontweight="bold",
        zorder=6,
    )


def _legend(fig: Figure, color_by_core: bool, marks: set[str]) -> None:
    from matplotlib.lines import Line2D

    def dot(label: str, **style: Any) -> Line2D:
        return Line2D([], [], ls="", marker=style.pop("marker", "o"), label=label, **style)

    handles = []
    if color_by_core:
        handles += [dot(kind, ms=8, mfc=CORE_COLOURS[kind], mec="none") for kind in KINDS]
        handles.append(dot("hollow", ms=8, mfc="none", mec=CORE_COLOURS[HOLLOW]))
    entries = {
        "bare": dot("bare core (mantle 0)", ms=8, mfc=PLAIN_COLOUR, mec="white", mew=1.2),
        "shelter": dot("shelter (hollow, mantle 0)", ms=9, mfc="none", mec="white", mew=1.6),
        "near": dot("near the Sun, round 1", ms=13, mfc=HALO_COLOUR, mec="none", alpha=0.5),
        "start": dot("start", marker="*", ms=12, mfc="white", mec="none"),
        "hub": dot("hub", ms=11, mfc=PLAIN_COLOUR, mec=TEXT),
        "gate": Line2D([], [], ls=(0, (3, 2)), lw=1.4, color=GATE_COLOUR, marker="D", ms=5, label="gate pair"),
    }
    handles += [handle for key, handle in entries.items() if key in marks]
    fig.legend(
        handles=handles,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.012),
        ncol=min(len(handles), 5),
        frameon=False,
        fontsize=9,
        labelcolor=TEXT,
        columnspacing=1.6,
        handletextpad=0.4,
    )


def _gates(scene: _Scene, belt: Belt, index: dict[str, int]) -> None:
    """Each gate pair as a dashed arc between the asteroids its gates orbit, a diamond at each end."""
    from matplotlib.patches import FancyArrowPatch

    ax, xy, size = scene.ax, scene.xy, scene.size
    for pair in belt.gates:
        a, b = xy[index[pair.first_at]], xy[index[pair.second_at]]
        arc = FancyArrowPatch(
            tuple(a),
            tuple(b),
            connectionstyle="arc3,rad=0.18",
            arrowstyle="-",
            color=GATE_COLOUR,
            lw=1.4,
            ls=(0, (3, 2)),
            alpha=0.9,
            zorder=4,
        )
        ax.add_patch(arc)
        # each gate is drawn a little way out along its arc, orbiting its asteroid
        step = (b - a) / max(float(np.hypot(*(b - a))), 1e-9) * float(np.ptp(xy[:, 0]) + 1e-9) * 0.02
        ends = np.array([a + step, b - step])
        ax.scatter(ends[:, 0], ends[:, 1], s=max(size * 0.5, 18), marker="D", c=GATE_COLOUR, zorder=5, linewidths=0)


def _sun(ax: Axes, r: float) -> None:
    from matplotlib.patches import Circle

    for k, alpha in ((2.8, 0.035), (2.2, 0.05), (1.75, 0.08), (1.4, 0.13), (1.15, 0.22)):
        ax.add_patch(Circle((0, 0), r * k, color="#FFB347", alpha=alpha, lw=0, zorder=0))
    ax.add_patch(Circle((0, 0), r, color=SUN_COLOUR, lw=0, zorder=0))


def _storm_wedge(ax: Axes, width: float, inner: float, outer: float) -> None:
    """A faint wedge showing how much of the belt one storm covers."""
    from matplotlib.patches import Wedge

    start = 52.0
    ring = outer * 1.03 - inner * 0.92
    ax.add_patch(
        Wedge((0, 0), outer * 1.03, start, start + width, width=ring, facecolor="#E05A47", alpha=0.09, lw=0, zorder=0)
    )
    ax.add_patch(
        Wedge(
            (0, 0),
            outer * 1.03,
            start,
            start + width,
            width=ring,
            facecolor="none",
            edgecolor="#E0806F",
            alpha=0.45,
            lw=0.8,
            ls=(0, (4, 3)),
            zorder=0,
        )
    )
    mid = math.radians(start + width)
    ax.annotate(
        f"one storm's reach ({width:g}°)",
        (outer * 1.04 * math.cos(mid), outer * 1.04 * math.sin(mid)),
        ha="left",
        va="bottom",
        color="#E0806F",
        fontsize=8.5,
        alpha=0.95,
        zorder=5,
    )


def _title(fig: Figure, belt: Belt, n: int, links: int, hubs: int, laid_out: bool) -> None:
    name = belt.name or "Untitled belt"
    facts = [f"{n:,} asteroids", f"{links:,} links"]
    if hubs:
        facts.append(f"{hubs} hub{'s' if hubs != 1 else ''}")
    facts.append(f"storm sector {belt.storm_sector:g}°" if laid_out else "no layout: drawn by the picture")
    fig.text(0.5, 0.962, name, ha="center", va="center", color=TEXT, fontsize=17, fontweight="bold")
    fig.text(0.5, 0.934, "  ·  ".join(facts), ha="center", va="center", color="#AAB3C8", fontsize=10)
