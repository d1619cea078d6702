"""`planner`: placeholder while the planner is written (behaves like greedy)."""

from __future__ import annotations

from .greedy import GreedyBot


class PlannerBot(GreedyBot):
    """The cooperative team player."""

    name = "planner"
