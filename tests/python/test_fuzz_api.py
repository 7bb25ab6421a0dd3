"""The randomized API fuzz (fuzz_api.py) under pytest: every family's case for a fixed
list of seeds, on a Hopper GPU. A failure's message is one line with the seed, every
drawn parameter and the command that replays it:

    python3 tests/python/fuzz_api.py --family <family> --seed <seed> --cases 1

More seeds: python3 tests/python/fuzz_api.py --cases 500 --seed 1000.
Skipped cleanly without torch; the GPU cases without a Hopper GPU (torch_support).
"""

import pytest

torch = pytest.importorskip("torch")

import fuzz_api  # noqa: E402
from torch_support import needs_hopper  # noqa: E402

# Fixed, so a run is reproducible; arbitrary, so they are not all small numbers.
SEEDS = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765, 10946, 17711,
         28657, 46368, 75025, 121393]


def run(family, seed, corruption=None):
    try:
        fuzz_api.run_case(family, seed, corruption)
    except fuzz_api.FuzzSkip as e:
        pytest.skip(str(e))


def test_cases_are_drawn_deterministically():
    # Pure Python (no GPU): the same seed draws the same case, and every description
    # is one line naming the family and the seed.
    for family in fuzz_api.FAMILIES:
        for seed in SEEDS:
            params = fuzz_api.draw(family, seed)
            assert params == fuzz_api.draw(family, seed)
            line = fuzz_api.describe(family, seed, params)
            assert "\n" not in line and f"--family {family} --seed {seed}" in line
    # Each bad case names a corruption the table knows, for a target it supports.
    for seed in range(300):
        p = fuzz_api.draw("bad", seed)
        assert p["corruption"] in fuzz_api.CORRUPTIONS[p["target"]]
    for corruption in fuzz_api.all_corruptions():
        p = fuzz_api.draw("bad", 7, corruption)
        assert f"{p['target']}:{p['corruption']}" == corruption


@needs_hopper
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("family", fuzz_api.FAMILIES)
def test_family(family, seed):
    # Each family's case for each seed (the "bad" family: a random corruption of a random call).
    run(family, seed)


@needs_hopper
@pytest.mark.parametrize("corruption", fuzz_api.all_corruptions())
def test_every_bad_input(corruption):
    # The random seeds reach a fraction of the corruptions: each one once, on its own case.
    run("bad", 7, corruption)
