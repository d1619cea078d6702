"""Materials as data (R1) and the named constants of the rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Final: compiled, a module's constant is then read directly (other names are dictionary look-ups at each use)
CARGO_LIMIT: Final = 10
"""Units of material a settler can carry (R11 `mine`)."""
GATE_LIMIT: Final = 2
"""Gates a settler can carry at once (R11 `build gates`)."""
WIN_TARGET: Final = 3
"""Units of every kind the settlers on one asteroid must carry to win (R14)."""
HOLLOW: Final = "hollow"
"""The core value of an asteroid that holds no material (R1)."""


@dataclass(frozen=True, slots=True)
class Material:
    """One kind of material that a core can hold (R1)."""

    kind: str
    radioactive: bool
    sublimates: bool

    @property
    def reactive(self) -> bool:
        """True when an exposed core of this kind reacts near the Sun (R6)."""
        return self.radioactive or self.sublimates


MATERIALS: Final[dict[str, Material]] = {
    m.kind: m
    for m in (
        Material("ice", radioactive=False, sublimates=True),
        Material("iron", radioactive=False, sublimates=False),
        Material("carbon", radioactive=False, sublimates=False),
        Material("uranium", radioactive=True, sublimates=False),
    )
}
"""Every material kind, in the order the game lists them."""

KINDS: Final[tuple[str, ...]] = tuple(MATERIALS)
"""The material kinds in canonical order."""

CORES: Final[tuple[str, ...]] = (*KINDS, HOLLOW)
"""Every value a core can take."""

ROBOT_COST: Final[dict[str, int]] = {"iron": 1, "carbon": 1, "uranium": 1}
"""What `build robot` takes from the settler's cargo (R11)."""
GATES_COST: Final[dict[str, int]] = {"iron": 2, "ice": 1, "uranium": 1}
"""What `build gates` takes from the settler's cargo (R11)."""


def is_reactive(core: str) -> bool:
    """True when an exposed core of this value reacts near the Sun (R6)."""
    material = MATERIALS.get(core)
    return material is not None and material.reactive
