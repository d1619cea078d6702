"""`python -m asteroid_mining` runs the `asteroid-mining` command line."""

from .cli import app

app()
