"""A guided tour of the game in the terminal, until the browser game lands (`asteroid-mining demo`)."""

from .tour import play_tour

__all__ = ["play_tour"]
