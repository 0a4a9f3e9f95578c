"""What the toy paper declares: its claim, the config keys of its rules, its benchmark files
and its config rule."""

from __future__ import annotations

from collections.abc import Mapping

from ensemble_repro.claims.claim import Claim

#: The claim's margin: the mean of the draws lies within this distance of 0.
MARGIN = 0.5

CLAIMS = (
    Claim(
        id="toy.mean_zero",
        paper="toy",
        item="Toy claim 1",
        quote="Standard normal draws have mean zero.",
        metric="mean of the draws",
        rule=f"reproduced when the 95% t interval of the mean lies within +-{MARGIN}",
        inputs=("toy/draws.csv",),
        effect="mean of the draws",
        title="mean zero",
    ),
)
RULE_KEYS = {
    "toy_experiment": ("seed", "toy.n_draws"),
    "toy_claims": ("seed", "toy.n_draws"),
}
DAG_KEYS: tuple[str, ...] = ()
DAG_PARAM_RULES: tuple[str, ...] = ()
VERDICT_RULES = ("toy_experiment", "toy_claims")
BENCHMARKS = {
    "toy_experiment": "results/benchmarks/toy/experiment.tsv",
    "toy_claims": "results/benchmarks/claims/toy.tsv",
}


def check_config(config: Mapping) -> list[tuple[list, str]]:
    """At least two draws when the toy runs (a t interval needs two)."""
    n = config["toy"]["n_draws"]
    if config["experiments"]["toy"] and n < 2:
        return [
            (
                ["toy", "n_draws"],
                f"config value toy.n_draws = {n} gives no t interval of the mean. Use 2 or more",
            )
        ]
    return []
