"""Asteroid Mining: a cooperative strategy game of settlers, drills, storms and teleport gates."""

__version__ = "0.1.0"
