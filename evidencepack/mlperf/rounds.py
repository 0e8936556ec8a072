"""The LoadGen seeds that identify each MLPerf Inference round evidencepack knows.

The rounds themselves are the spec's (``spec.types.KNOWN_ROUNDS``): a spec names one.

Seeds are the checker's ``seeds`` per round (mlcommons/inference
``tools/submission/submission_checker/constants.py``); v4.0's are those every v4.0 log carries,
and v6.1's those every v6.1 result read so far carries (LoadGen summaries, and the endpoint
tool's ``run_config`` ``dataloader_random_seed``/``scheduler_random_seed``): the checker's v6.1
table was not at hand.
"""

from __future__ import annotations

from ..core._models import StrictModel
from ..spec.types import KNOWN_ROUNDS

__all__ = ["KNOWN_ROUNDS", "ROUND_SEEDS", "Seeds", "round_for_seeds"]


class Seeds(StrictModel):
    """The three LoadGen RNG seeds a round fixes."""

    qsl_rng_seed: int
    sample_index_rng_seed: int
    schedule_rng_seed: int


ROUND_SEEDS: dict[str, Seeds] = {
    "v4.0": Seeds(
        qsl_rng_seed=13281865557512327830,
        sample_index_rng_seed=198141574272810017,
        schedule_rng_seed=7575108116881280410,
    ),
    "v4.1": Seeds(
        qsl_rng_seed=3066443479025735752,
        sample_index_rng_seed=10688027786191513374,
        schedule_rng_seed=14962580496156340209,
    ),
    "v5.0": Seeds(
        qsl_rng_seed=6023615788873153749,
        sample_index_rng_seed=15036839855038426416,
        schedule_rng_seed=9933818062894767841,
    ),
    "v5.1": Seeds(
        qsl_rng_seed=1780908523862526354,
        sample_index_rng_seed=14771362308971278857,
        schedule_rng_seed=18209322760996052031,
    ),
    # The checker marks these "TODO: Update random seeds"; they are what it enforces today.
    "v6.0": Seeds(
        qsl_rng_seed=2465351861681999779,
        sample_index_rng_seed=14276810075590677512,
        schedule_rng_seed=3936089224930324775,
    ),
    "v6.1": Seeds(
        qsl_rng_seed=2085463073848966840,
        sample_index_rng_seed=2747215439041700203,
        schedule_rng_seed=16159082839903944936,
    ),
}


# Rounds whose seeds are the ones LoadGen itself ships (``mlperf.conf`` of LoadGen 6.0.17 holds
# v6.1's): every run of that LoadGen carries them, a team's own included, so they identify no
# submission's round. Such a result's round comes from its folder, the official table or
# ``--round``; its seeds are still checked against the round's.
BUILT_IN_SEEDS_ROUNDS = frozenset({"v6.1"})


def round_for_seeds(seeds: Seeds | None) -> str | None:
    """The round whose official seeds these are, or None (a team's own run, a typo, or
    LoadGen's built-in seeds)."""
    if seeds is None:
        return None
    for name, known in ROUND_SEEDS.items():
        if known == seeds and name not in BUILT_IN_SEEDS_ROUNDS:
            return name
    return None
