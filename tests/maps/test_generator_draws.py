"""The generator's shortcuts around numpy's random API draw exactly what the documented calls draw: each stage's
generator is `default_rng([seed, stage])`, and the thin mantles are `Generator.choice` with their chances (the
pinned belts of test_generator_pinned.py hold the whole; these hold each shortcut over many more seeds)."""

from __future__ import annotations

import numpy as np
import pytest

from asteroid_mining.maps.cores import _THIN, _THIN_CDF
from asteroid_mining.maps.generator import _Stage

SEEDS = [0, 1, 2, 7, 255, 256, 65_535, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1, 2**32, 2**32 + 1, 2**40 + 3,
         2**64 - 1, 2**64, 10**30]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_stage_generator_is_default_rng_of_seed_and_stage(seed: int) -> None:
    for stage in range(1, 6):
        ours, reference = _Stage(seed).rng(stage), np.random.default_rng([seed, stage])
        assert ours.bit_generator.state == reference.bit_generator.state
        assert ours.integers(0, 2**62, 8).tolist() == reference.integers(0, 2**62, 8).tolist()


def test_stage_generators_over_many_seeds() -> None:
    rng = np.random.default_rng(15)
    for seed in [*range(2_000), *rng.integers(0, 2**63, 500).tolist()]:
        stage = 1 + seed % 5
        assert _Stage(seed).rng(stage).bit_generator.state == np.random.default_rng([seed, stage]).bit_generator.state


@pytest.mark.parametrize("n", [1, 2, 30, 80, 250, 2_000])
def test_thin_mantles_are_choice_with_their_chances(n: int) -> None:
    for seed in range(300):
        ours, reference = np.random.default_rng(seed), np.random.default_rng(seed)
        drawn = _THIN[_THIN_CDF.searchsorted(ours.random(n), side="right")]
        assert drawn.tolist() == reference.choice(_THIN, size=n, p=[0.35, 0.4, 0.25]).tolist()
        assert ours.bit_generator.state == reference.bit_generator.state  # the draws after it are the same too
