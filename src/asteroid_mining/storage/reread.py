"""Reading again only what changed: a list read over and over (every running game, for each node's lobby, once a
second) whose items mostly come back unchanged keeps what was made of each, and makes it again only for those new
or changed, together and off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Made = TypeVar("Made")


async def made_again(items: Sequence[Item], key: Callable[[Item], str],
                     before: dict[str, tuple[Item, Made]], same: Callable[[Item, Item], bool],
                     make: Callable[[Item], Made]) -> dict[str, tuple[Item, Made]]:
    """Each of `items` by its `key`, with what `make` makes of it: taken from `before` (the last call's answer)
    for an item `same` as the one it was made from there, made in a worker thread for the others. The answer
    holds `items`, in their order, and nothing else: it is what the next call is given as `before`."""
    changed = [item for item in items if (seen := before.get(key(item))) is None or not same(seen[0], item)]
    made = await asyncio.to_thread(lambda: [make(item) for item in changed]) if changed else []
    fresh = {key(item): (item, result) for item, result in zip(changed, made, strict=True)}
    return {key(item): fresh[key(item)] if key(item) in fresh else before[key(item)] for item in items}
