"""The choices' cost counted in instructions, which a shared machine's load does not change: `Game.choices_text`
of the settler whose turn comes, after each step of 4 standard-belt games of 150 random steps (moves, drills and
waits, as the server benchmark's clients play), 600 calls.

Run it under callgrind, collecting inside `choices_text` only (the compiled engine's function, in
`rules/json_text.py`), and divide the instructions by the calls it prints:

    valgrind --tool=callgrind --toggle-collect=CPyDef_json_text___choices_text \\
        python benchmarks/choices_instructions.py
"""

from __future__ import annotations

import random

from bench_choices import new_games, step  # beside this file


def main() -> None:
    """Play the games, asking for the choices of the settler whose turn comes after every step."""
    rng = random.Random(3)
    calls = 0
    for game in new_games(4):
        for _ in range(150):
            if game.status != "running" or game.turn is None:
                break
            step(game, rng)
            if game.turn is not None:
                game.choices_text(game.turn)
                calls += 1
    print(f"{calls} calls of Game.choices_text")


if __name__ == "__main__":
    main()
