"""`asteroid-mining map …`: generate, check, show and list belts.

Mounted by the main command line as `app.add_typer(maps.cli.app, name="map")`; it also runs on its own
(`python -m asteroid_mining.maps.cli`). Bad input is never a traceback: a clear message and exit status 2.
A FILE argument may also name a shipped belt (`tutorial`, `puzzle-storm`, …) or a generator preset (its belt
of seed 0) when no such file exists: `maps.resolve`, as for games.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from ..rules.belt import Belt
from .format import load_belt
from .problems import BeltError, MapError
from .resolve import ResolveError, belt_catalog, belt_source

app = typer.Typer(
    name="map",
    help="Generate, check, show and list belts (maps).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Preset(StrEnum):
    """The generator's presets (see `generator.PRESETS`)."""

    tutorial = "tutorial"
    small = "small"
    standard = "standard"
    large = "large"
    huge = "huge"


PROG = "asteroid-mining map"
"""How the commands are known to users, for messages."""


def _fail(message: str) -> NoReturn:
    typer.echo(f"{PROG}: error: {message}", err=True)
    raise typer.Exit(2)


def _load(file: str) -> Belt | None:
    """A belt from a file, or a shipped belt's or preset's name; None after printing every problem, one a line."""
    try:
        if Path(file).exists():
            return load_belt(Path(file))
        return belt_source(file, files=True)(0).belt
    except ResolveError as unknown:
        typer.echo(f"{file}: {unknown}", err=True)
        return None
    except BeltError as wrong:
        for line in wrong.lines(prefix=file):
            typer.echo(line)
        count = len(wrong.problems)
        typer.echo(f"{file}: not a valid belt ({count} problem{'s' if count != 1 else ''})", err=True)
        return None


def _read(file: str) -> Belt:
    """A belt from a file, or a shipped belt's name; exits 2 after printing every problem."""
    belt = _load(file)
    if belt is None:
        raise typer.Exit(2)
    return belt


def _summary(belt: Belt) -> str:
    gates = f", {len(belt.gates)} gate pair{'s' if len(belt.gates) != 1 else ''}" if belt.gates else ""
    name = f"'{belt.name}'" if belt.name else "an unnamed belt"
    return f"{name}: {len(belt.asteroids):,} asteroids, {len(belt.links):,} links{gates}, start {belt.start}"


@app.command()
def generate(
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the belt (.json).")],
    preset: Annotated[
        Preset | None, typer.Option("--preset", "-p", help="A named size: its density, hubs and the rest.")
    ] = None,
    size: Annotated[
        int | None, typer.Option("--size", "-n", help="How many asteroids (overrides the preset's).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="The random seed: same seed, same belt.")] = 0,
    hubs: Annotated[int | None, typer.Option(help="How many hubs (asteroids with hundreds of neighbours).")] = None,
    density: Annotated[float | None, typer.Option(help="About how many neighbours an asteroid has.")] = None,
    richness: Annotated[float | None, typer.Option(help="Share of cores holding a material, 1 = normal.")] = None,
    storms: Annotated[float | None, typer.Option(help="Storm frequency, 1 = normal, 0 = none.")] = None,
    name: Annotated[str | None, typer.Option(help="The belt's name.")] = None,
    difficulty: Annotated[
        str | None, typer.Option("--difficulty", "-d", help="easy, normal, hard or brutal: its generator "
                                 "parameters (explicit options above still win) and recommended options.")
    ] = None,
) -> None:
    """Generate a belt from a preset (default standard) or a size, and write it as JSON."""
    from .difficulty import difficulty_named
    from .format import save_belt
    from .generator import PRESETS, GeneratorError, generate_belt
    from .storms import recommended_storm_interval

    try:
        level = None if difficulty is None else difficulty_named(difficulty)
    except ResolveError as unknown:
        _fail(str(unknown))

    if output.suffix.lower() != ".json":
        _fail(f"{output}: a belt file must end in .json")
    if preset is None:
        base = "standard"
        if size is not None:  # the biggest preset not bigger than the size asked for
            fitting = [p for p, params in PRESETS.items() if params.size <= size]
            base = fitting[-1] if fitting else "tutorial"
    else:
        base = preset.value
    overrides: dict[str, object] = dict(level.generator) if level else {}
    overrides |= {
        key: value
        for key, value in (
            ("size", size),
            ("hubs", hubs),
            ("density", density),
            ("richness", richness),
            ("storms", storms),
            ("name", name),
        )
        if value is not None
    }
    try:
        belt = generate_belt(base, seed=seed, **overrides)
        save_belt(belt, output)
    except GeneratorError as wrong:
        _fail(str(wrong))
    except OSError as wrong:
        _fail(f"{output}: cannot write it: {wrong.strerror or wrong}")
    frequency = overrides.get("storms", PRESETS[base].storms)
    interval = recommended_storm_interval(belt.storm_sector, float(frequency))  # type: ignore[arg-type]
    typer.echo(f"{output}: {_summary(belt)}")
    extra = "".join(f", {k}={v}" for k, v in (level.options_for(belt, generated=True) if level else {}).items())
    typer.echo(f"suggested options: storm_interval={interval}{extra} (storm sector {belt.storm_sector:g}°)")


@app.command()
def check(
    files: Annotated[list[str], typer.Argument(metavar="FILE...", help="Belt files (or shipped belts' names).")],
) -> None:
    """Check belt files: a short summary of each, or every problem, one a line (`FILE: PATH: message`).

    Exit status 0 when every file is a valid belt, 2 otherwise. Fairness notes (too few shelters, a belt
    in pieces, …) are printed as warnings and do not fail the check.
    """
    from .fairness import fairness_report

    failed = False
    for file in files:
        belt = _load(file)
        if belt is None:
            failed = True
            continue
        typer.echo(f"{file}: ok: {_summary(belt)}")
        for note in fairness_report(belt).warnings():
            typer.echo(f"{file}: warning: {note}")
    if failed:
        raise typer.Exit(2)


@app.command()
def show(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A belt file (or a shipped belt's name).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The picture to write: .png or .svg.")],
    cores: Annotated[bool, typer.Option("--cores/--no-cores", help="Colour asteroids by core.")] = True,
) -> None:
    """Draw a belt as a picture: the Sun, links, cores, shelters, hubs, the start."""
    from .picture import SUFFIXES, render_belt

    if output.suffix.lower() not in SUFFIXES:
        _fail(f"{output}: a picture must end in .png or .svg")
    belt = _read(file)
    try:
        render_belt(belt, output, color_by_core=cores)
    except MapError as wrong:
        _fail(str(wrong))
    typer.echo(f"{output}: {_summary(belt)}")


@app.command(name="list")
def list_shipped() -> None:
    """List the belts a game can be played on by name: the shipped ones, then the generator presets."""
    from .shipped import load_shipped

    for info in belt_catalog():
        title = load_shipped(info.name).name if info.kind == "shipped" else "generated from the seed"
        typer.echo(f"{info.name:<16} {title} ({info.asteroids:,} asteroids)")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
