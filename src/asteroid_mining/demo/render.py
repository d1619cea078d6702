"""How the demo looks: chapters, narration, statements and their events, and the status of the belt."""

from __future__ import annotations

import re

from rich import box
from rich.columns import Columns
from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from ..rules import KINDS, Game

# The first pattern that matches an event's text gives its style.
_EVENT_STYLES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), style)
    for pattern, style in (
        (r"\bwon\b|\bbase\b|\bwin\b", "bold green"),
        (r"\blost\b", "bold red"),
        (r"explode", "bold red"),
        (r"\bdied\b|destroyed", "red"),
        (r"storm", "yellow"),
        (r"sublimat", "cyan"),
        (r"landed|survived", "green"),
        (r"refused", "magenta"),
        (r"gate", "blue"),
    )
)

_KIND_STYLE = {"ice": "cyan", "iron": "bright_white", "carbon": "grey62", "uranium": "green", "hollow": "dim"}


def _event_style(text: str) -> str:
    for pattern, style in _EVENT_STYLES:
        if pattern.search(text):
            return style
    return "white"


def title(console: Console) -> None:
    """The opening banner."""
    console.print(
        Panel.fit(
            "[bold]ASTEROID MINING[/bold]\n[dim]a guided tour of the belt[/dim]",
            border_style="bright_yellow",
            padding=(1, 6),
        )
    )


def chapter(console: Console, name: str) -> None:
    """A chapter heading."""
    console.print()
    console.print(Rule(f"[bold bright_yellow]{escape(name)}[/bold bright_yellow]", style="yellow"))


def narration(console: Console, lines: list[str]) -> None:
    """The story told before a statement, as one flowing paragraph."""
    console.print(Text(" ".join(lines), style="italic bright_white"), width=min(console.width, 100))



def statement(
    console: Console, words: tuple[str, ...], aside: str, lines: list[tuple[str, str]], check_held: bool
) -> None:
    """One statement as written, then what it caused."""
    text = Text("  › ", style="dim")
    text.append(" ".join(words), style="bold cyan" if words[0] != "expect" else "cyan")
    if aside:
        text.append(f"   # {aside}", style="dim")
    if check_held:
        text.append("  ✔", style="bold green")
    console.print(text)
    for kind, line in lines:
        if kind == "event":
            shown = Text(line, style=_event_style(line))
        elif kind == "failed":
            shown = Text(f"✘ check failed: {line}", style="bold red")
        else:
            shown = Text(f"✘ error: {line}", style="bold red")
        console.print(Padding(shown, (0, 0, 0, 6), expand=False))


def _where(game: Game, aid: str) -> str:
    asteroid = game.asteroids[aid]
    people = [*asteroid.settlers, *asteroid.robots, *asteroid.ufos]
    return " ".join(people)


def status(console: Console, game: Game) -> None:
    """A compact picture of the belt: the asteroids, and what the settlers carry."""
    rocks = Table(box=box.SIMPLE_HEAD, title=f"Round {game.round}", title_style="bold", show_edge=False)
    rocks.add_column("asteroid")
    rocks.add_column("sun")
    rocks.add_column("mantle", justify="right")
    rocks.add_column("core")
    rocks.add_column("here")
    for aid, asteroid in game.asteroids.items():
        if not asteroid.exists:
            rocks.add_row(Text(aid, style="dim strike"), "", "", Text("exploded", style="red"), "")
            continue
        near = game.is_near(aid)
        core = asteroid.core
        core_text = Text(core, style=_KIND_STYLE.get(core, "white"))
        if asteroid.shelter:
            core_text.append(" (shelter)", style="green")
        gates = [g for g in asteroid.gates if game.gates[g].exists]
        here = Text(_where(game, aid))
        if gates:
            here.append((" " if here else "") + " ".join(f"⊙{g}" for g in gates), style="blue")
        rocks.add_row(
            aid,
            Text("☀ near", style="bold yellow") if near else Text("far", style="dim"),
            str(asteroid.mantle),
            core_text,
            here,
        )

    crew = Table(box=box.SIMPLE_HEAD, title="Settlers' cargo", title_style="bold", show_edge=False)
    crew.add_column("settler")
    crew.add_column("at")
    for kind in KINDS:
        crew.add_column(kind, justify="right", style=_KIND_STYLE[kind])
    crew.add_column("gates")
    totals = dict.fromkeys(KINDS, 0)
    for sid, settler in game.settlers.items():
        if not settler.alive:
            crew.add_row(Text(sid, style="dim strike"), Text("dead", style="red"), *[""] * (len(KINDS) + 1))
            continue
        for kind in KINDS:
            totals[kind] += settler.cargo[kind]
        crew.add_row(
            sid, settler.at or "", *(str(settler.cargo[kind]) for kind in KINDS), " ".join(settler.gates)
        )
    crew.add_row(Text("total", style="bold"), "", *(Text(str(totals[k]), style="bold") for k in KINDS), "")
    forecasts = [f for f in game.forecasts if f.round >= game.round]
    if forecasts:
        crew.caption = "; ".join(f"storm forecast: round {f.round} on {', '.join(f.asteroids)}" for f in forecasts)
        crew.caption_style = "yellow"
    console.print(Columns([rocks, crew], padding=(0, 4)))
    console.print()


def finale(console: Console, game: Game, passed: int, failed: int, errors: int) -> None:
    """The closing words, and the summary line every scenario run ends with."""
    console.print()
    if game.status == "won":
        message = (
            "[bold green]The settlers built the base. The belt is yours![/bold green]\n\n"
            "Now write your own: [bold]asteroid-mining script[/bold] runs scenario files like this tour.\n"
            "The rules, in plain words, are in docs/rules.md."
        )
        console.print(Panel.fit(message, border_style="green", padding=(1, 4)))
    elif game.status == "lost":
        console.print(Panel.fit("[bold red]Every settler is lost. The belt wins this time.[/bold red]"))
    else:
        console.print(Panel.fit("[bold yellow]The tour ended before the base was built.[/bold yellow]"))
    console.print(f"{passed} passed, {failed} failed", style="dim")
