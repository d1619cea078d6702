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
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..rules.belt import Belt
from ..rules.materials import HOLLOW, KINDS
from .graph import BeltArrays, FloatArray, degrees, hub_mask
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


def _positions(belt: Belt, arrays: BeltArrays) -> tuple[FloatArray, bool]:
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


def _draw(fig: Figure, belt: Belt, color_by_core: bool, svg: bool) -> None:
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    arrays = BeltArrays.of(belt)
    n = arrays.n
    xy, laid_out = _positions(belt, arrays)
    deg = degrees(n, arrays.edges)
    hubs = hub_mask(deg)
    size, width = _sizes(n)
    raster = svg and n > 2000  # an SVG of 200,000 vector lines would be unreadably slow

    ax = fig.add_axes((0.02, 0.075, 0.96, 0.84))
    ax.set_facecolor(BACKGROUND)
    ax.set_aspect("equal")
    ax.axis("off")
    radius = float(np.hypot(xy[:, 0], xy[:, 1]).max()) if n else 1.0
    inner = float(np.hypot(xy[:, 0], xy[:, 1]).min()) if n else 0.5
    pad = radius * 0.06
    ax.set_xlim(-radius - pad, radius + pad)
    ax.set_ylim(-radius - pad, radius + pad)

    if laid_out:
        _sun(ax, max(inner * 0.1, radius * 0.028))
        _storm_wedge(ax, belt.storm_sector, inner, radius)

    # links: ordinary ones, then a hub's spokes fainter
    if len(arrays.edges):
        spoke = hubs[arrays.edges[:, 0]] | hubs[arrays.edges[:, 1]]
        segments = xy[arrays.edges]
        alpha = 0.55 if n <= 400 else 0.4 if n <= 3000 else 0.3
        for chosen, a, w in ((~spoke, alpha, width), (spoke, alpha * 0.25, width * 0.7)):
            if chosen.any():
                lines = LineCollection(
                    list(segments[chosen]), colors=LINK_COLOUR, linewidths=w, alpha=a, zorder=1, rasterized=raster
                )
                ax.add_collection(lines)

    near = np.array([(a.orbit.is_near(1) if a.orbit is not None else a.sun == "near") for a in belt.asteroids])
    cores = np.array([a.core for a in belt.asteroids])
    shelter = np.array([a.core == HOLLOW and a.mantle == 0 for a in belt.asteroids])
    area = np.where(hubs, size * 3.5 + np.sqrt(deg) * size * 0.15, size)
    if near.any():
        ax.scatter(
            xy[near, 0],
            xy[near, 1],
            s=area[near] * 5.0,
            c=HALO_COLOUR,
            alpha=0.38 if n <= 3000 else 0.5,
            linewidths=0,
            zorder=2,
            rasterized=raster,
        )
    if color_by_core:
        for kind in KINDS:
            chosen = cores == kind
            if chosen.any():
                ax.scatter(
                    xy[chosen, 0],
                    xy[chosen, 1],
                    s=area[chosen],
                    c=CORE_COLOURS[kind],
                    linewidths=0,
                    zorder=3,
                    rasterized=raster,
                )
        hollow = (cores == HOLLOW) & ~shelter
        if hollow.any():
            ax.scatter(
                xy[hollow, 0],
                xy[hollow, 1],
                s=area[hollow],
                facecolors="none",
                edgecolors=CORE_COLOURS[HOLLOW],
                linewidths=max(0.4, width),
                zorder=3,
                rasterized=raster,
            )
    else:
        plain = ~shelter
        ax.scatter(xy[plain, 0], xy[plain, 1], s=area[plain], c=PLAIN_COLOUR, linewidths=0, zorder=3, rasterized=raster)
    bare = np.array([a.core != HOLLOW and a.mantle == 0 for a in belt.asteroids])
    if bare.any() and color_by_core:
        ax.scatter(
            xy[bare, 0],
            xy[bare, 1],
            s=area[bare] * 1.25,
            facecolors="none",
            edgecolors="white",
            linewidths=max(0.4, width),
            zorder=4,
            rasterized=raster,
        )
    if shelter.any():
        ax.scatter(
            xy[shelter, 0],
            xy[shelter, 1],
            s=area[shelter] * 1.3,
            facecolors="none",
            edgecolors="white",
            linewidths=max(0.5, width * 1.6),
            zorder=4,
            rasterized=raster,
        )
    if hubs.any():
        ax.scatter(
            xy[hubs, 0],
            xy[hubs, 1],
            s=area[hubs] * 1.6,
            facecolors="none",
            edgecolors=TEXT,
            linewidths=0.6,
            alpha=0.8,
            zorder=4,
        )
    _gates(ax, belt, arrays.index, xy, size)
    start = arrays.index[belt.start]
    ax.scatter(
        [xy[start, 0]],
        [xy[start, 1]],
        s=max(size * 4, 150),
        marker="*",
        c="white",
        edgecolors=BACKGROUND,
        linewidths=0.8,
        zorder=6,
    )
    ax.scatter(
        [xy[start, 0]],
        [xy[start, 1]],
        s=max(size * 14, 600),
        facecolors="none",
        edgecolors="white",
        linewidths=1.2,
        alpha=0.8,
        zorder=6,
    )
    ax.annotate(
        "start",
        xy[start],
        xytext=(12, 10),
        textcoords="offset points",
        color="white",
        fontsize=9.5,
        fontweight="bold",
        zorder=6,
    )
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
    handles = []
    if color_by_core:
        for kind in KINDS:
            handles.append(Line2D([], [], ls="", marker="o", ms=8, mfc=CORE_COLOURS[kind], mec="none", label=kind))
        handles.append(Line2D([], [], ls="", marker="o", ms=8, mfc="none", mec=CORE_COLOURS[HOLLOW], label="hollow"))
        if bare.any():
            handles.append(
                Line2D(
                    [],
                    [],
                    ls="",
                    marker="o",
                    ms=8,
                    mfc=PLAIN_COLOUR,
                    mec="white",
                    mew=1.2,
                    label="bare core (mantle 0)",
                )
            )
    handles += [
        Line2D([], [], ls="", marker="o", ms=9, mfc="none", mec="white", mew=1.6, label="shelter (hollow, mantle 0)"),
        Line2D([], [], ls="", marker="o", ms=13, mfc=HALO_COLOUR, mec="none", alpha=0.5, label="near the Sun, round 1"),
        Line2D([], [], ls="", marker="*", ms=12, mfc="white", mec="none", label="start"),
    ]
    if hubs.any():
        handles.append(Line2D([], [], ls="", marker="o", ms=11, mfc=PLAIN_COLOUR, mec=TEXT, label="hub"))
    if belt.gates:
        handles.append(Line2D([], [], ls=(0, (3, 2)), lw=1.4, color=GATE_COLOUR, marker="D", ms=5, label="gate pair"))
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


def _gates(ax: Axes, belt: Belt, index: dict[str, int], xy: FloatArray, size: float) -> None:
    """Each gate pair as a dashed arc between the asteroids its gates orbit, a diamond at each end."""
    from matplotlib.patches import FancyArrowPatch

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
