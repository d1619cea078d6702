"""The `asteroid-mining` command line: one entry point whose sub-commands call the packages below it.

Users never see a traceback: a usage mistake or an unexpected failure is reported as one line on standard
error, `asteroid-mining: error: …`, with exit status 2.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, NoReturn

import typer
from typer.main import get_command

from . import __version__

PROG = "asteroid-mining"


class _App(typer.Typer):
    """A Typer app whose errors are one line for people, never a traceback."""

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        argv = kwargs.get("args", args[0] if args else None)
        command = get_command(self)
        try:
            result = command.main(args=argv, prog_name=PROG, standalone_mode=False)
        except typer.Exit as done:
            sys.exit(done.exit_code)
        except typer.Abort:
            _fail("aborted", code=130)
        except KeyboardInterrupt:
            print(file=sys.stderr)
            sys.exit(130)
        except typer.TyperException as mistake:
            if type(mistake).__name__ == "NoArgsIsHelpError":
                # `asteroid-mining` alone (or a group alone): show its help, as a user expects.
                print(mistake.format_message())
                sys.exit(0)
            ctx = getattr(mistake, "ctx", None)
            where = ctx.command_path if ctx is not None else PROG
            message = mistake.format_message().rstrip(".")
            _fail(f"{message} (see '{where} --help')", code=mistake.exit_code or 2)
        except BrokenPipeError:
            sys.exit(1)
        except Exception as crash:  # the last line of defence: one line, not a traceback
            _fail(f"{type(crash).__name__}: {crash}" if str(crash) else type(crash).__name__)
        sys.exit(result if isinstance(result, int) else 0)


def _fail(message: str, code: int = 2) -> NoReturn:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(code)


app = _App(
    name=PROG,
    help="Asteroid Mining: a cooperative strategy game of settlers, drills, solar storms and teleport gates.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        from .rules import ENGINE

        print(f"{PROG} {__version__} ({ENGINE} engine)")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", help="Show the version and exit.", callback=_show_version, is_eager=True),
    ] = False,
) -> None:
    """Asteroid Mining: a cooperative strategy game of settlers, drills, solar storms and teleport gates."""


@app.command()
def script(
    files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="FILE", help="Scenario files to run; '-' reads standard input.", show_default=False
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only failures, errors and the summary.")
    ] = False,
) -> None:
    """Run scenario files (.scn); with no file, an interactive prompt (or standard input when piped).

    Exit status: 0 when every check held, 1 when a check failed, 2 when a file had an error.
    """
    paths = list(files or [])
    if not paths:
        if sys.stdin is not None and sys.stdin.isatty():
            from .script.repl import main as prompt

            raise typer.Exit(prompt())
        paths = ["-"]
    from .script.runner import run_files

    raise typer.Exit(run_files(paths, quiet=quiet, out=sys.stdout))


@app.command()
def demo(
    fast: Annotated[bool, typer.Option("--fast", help="Do not pause between steps.")] = False,
) -> None:
    """A guided tour of the game in the terminal: drilling, mining, storms, explosions, robots and gates."""
    from .demo import play_tour

    raise typer.Exit(play_tour(fast=fast))


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8000,
    data: Annotated[str | None, typer.Option(help="Where games are kept (default: your data directory).")] = None,
    open_browser: Annotated[bool, typer.Option("--open", help="Once up, open the browser on a new hot-seat game "
                                               "(or print its address where there is no browser).")] = False,
    database: Annotated[str | None, typer.Option(help="Keep games in PostgreSQL at this postgresql:// URL instead "
                                                 "of SQLite (or ASTEROID_MINING_DATABASE).")] = None,
    redis: Annotated[str | None, typer.Option(help="With --database: a node of a cluster, coordinated through "
                                              "Redis at this redis:// URL (or ASTEROID_MINING_REDIS).")] = None,
    forwarded_allow_ips: Annotated[str | None, typer.Option(
        help="Comma-separated addresses or networks of the proxies trusted to name their client in "
             "X-Forwarded-For (or ASTEROID_MINING_FORWARDED_ALLOW_IPS); default none: every client counts as "
             "the address it connects from.")] = None,
) -> None:
    """Run the game server (lobby, games over WebSocket, the browser client) until interrupted."""
    from .server.main import comma_list
    from .server.main import serve as run_server

    if open_browser:
        from .server.opener import open_when_ready

        open_when_ready(host, port)
    raise typer.Exit(run_server(host=host, port=port, data=data, database=database, redis=redis,
                                forwarded_allow_ips=comma_list(forwarded_allow_ips)))


@app.command()
def train(
    out: Annotated[str, typer.Option(help="The output directory: policy.npz (the best checkpoint) and its "
                                     ".json, checkpoints/, curve.csv, curve.png, config.json.")] = "runs/learned",
    steps: Annotated[int, typer.Option(help="Reinforcement steps (MaskablePPO) after imitation.")] = 1_000_000,
    imitate: Annotated[int, typer.Option(help="Planner moves to imitate first (0: none), DAgger's included.")
                       ] = 200_000,
    dagger: Annotated[int, typer.Option(help="DAgger rounds: the learner plays, the planner labels.")] = 3,
    seed: Annotated[int, typer.Option(help="Seeds the networks, the games and the demonstrations.")] = 0,
    belt: Annotated[str, typer.Option(help="A shipped belt, a generator preset or a belt file.")] = "small",
    difficulty: Annotated[str, typer.Option(help="easy, normal, hard or brutal; 'none': the belt as it is.")
                          ] = "normal",
    rules: Annotated[str, typer.Option(help="classic or extended.")] = "classic",
    envs: Annotated[int, typer.Option(help="Games played side by side during reinforcement.")] = 8,
    threads: Annotated[int, typer.Option(help="Torch's threads (the games run in this process too).")] = 1,
    eval_every: Annotated[int, typer.Option(help="Steps between checkpoints (each evaluated).")] = 100_000,
    eval_games: Annotated[int, typer.Option(help="Fixed games each checkpoint is evaluated on.")] = 40,
    hidden: Annotated[str, typer.Option(help="The hidden layers' widths, comma-separated.")] = "128,128",
    learning_rate: Annotated[float, typer.Option(help="MaskablePPO's learning rate.")] = 1e-4,
) -> None:
    """Train a policy for the `learned` bot (needs the extra: pip install asteroid-mining\\[learn]).

    Imitates the planner, then runs MaskablePPO on the Gymnasium environment.
    Writes checkpoints, a learning curve and the best policy as numpy weights (docs/ai.md, A learned agent).
    """
    from pathlib import Path

    from .rl.train import TrainConfig, TrainError
    from .rl.train import train as run

    try:
        widths = tuple(int(w) for w in hidden.split(","))
    except ValueError:
        _fail(f"--hidden: {hidden!r} is not comma-separated widths (such as 128,128)")
    config = TrainConfig(Path(out), steps=steps, imitate=imitate, dagger=dagger, seed=seed, belt=belt,
                         difficulty=None if difficulty == "none" else difficulty, rules=rules, envs=envs,
                         hidden=widths, threads=threads, eval_every=eval_every, eval_games=eval_games,
                         learning_rate=learning_rate)
    try:
        run(config)
    except TrainError as wrong:
        _fail(str(wrong))


def _mount_maps() -> None:
    """Mount `asteroid-mining map …` from the maps package.

    Guarded so that the rest of the command line keeps working while that package is missing; a failure
    inside the maps package itself (any other import error) is not hidden.
    """
    try:
        from .maps.cli import app as maps_app
    except ModuleNotFoundError as missing:
        if not (missing.name or "").startswith(f"{__package__}.maps"):
            raise
        detail = f"{missing}"

        @app.command(name="map", help="Generate, check and show belts (not available in this build).")
        def map_unavailable() -> None:
            _fail(f"the map commands are not available in this build ({detail})")

        return
    app.add_typer(maps_app, name="map")


_mount_maps()

from .ai.cli import SimulateCommand as _SimulateCommand  # noqa: E402
from .ai.cli import simulate as _simulate  # noqa: E402  (the bots' self-play, issue 6)

app.command(name="simulate", cls=_SimulateCommand)(_simulate)
