"""The `asteroid-mining` command line."""

import typer

app = typer.Typer(help="Asteroid Mining: a cooperative strategy game.", no_args_is_help=True)
