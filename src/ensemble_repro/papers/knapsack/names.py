"""Names of the knapsack pools and outputs (Hajdu et al. 2020, Sections IV-VI): synthetic pool
names, the measured-cost files, the summary tables and the benchmark file of each rule.

The rules (``workflow/rules/knapsack.smk``) import them to build their job lists and output
paths, the experiment modules to label what they write.
"""

from __future__ import annotations

from ...logs import paper_benchmarks

#: Pool names of the synthetic Beta pools: ``synthetic_n<size>``.
SYNTHETIC_PREFIX = "synthetic_n"


def synthetic_size(pool: str) -> int | None:
    """Members of a synthetic pool (``synthetic_n<size>``); None for a UCI data set's pool.

    Examples
    --------
    >>> synthetic_size("synthetic_n20"), synthetic_size("sonar")
    (20, None)
    """
    return int(pool.removeprefix(SYNTHETIC_PREFIX)) if pool.startswith(SYNTHETIC_PREFIX) else None


#: Measured training-time costs of each UCI pool, relative to the repository root: an input,
#: committed, written only by the deliberate ``knapsack_costs`` target
#: (:mod:`.measured_costs`).
KNAPSACK_COSTS = "config/knapsack_costs/{kn_data}.csv"
#: Where the ``knapsack_costs`` target's measurements land before they are installed.
KNAPSACK_MEASURED_COSTS = "results/knapsack/costs/{kn_data}.csv"
#: The ``knapsack:`` settings ([I] switches and parameters) that shape every knapsack result,
#: named at the top of its numbers page (``results/knapsack/paper_vs_ours.md``).
KNAPSACK_PAGE_SETTINGS = (
    "cost",
    "cost_sensitivity",
    "budget_multiples",
    "majority",
    "beta_fit",
    "size_estimate",
    "stop_rules",
    "tail_law",
    "MAXSTEP",
    "maxstep_bounds",
    "maxstep_sensitivity",
    "member_features",
    "sa",
    "stochastic_evaluate",
    "mc_sampler",
    "greedy_step",
    "exhaustive_max_n",
    "split",
    "sa_init_check",
)
#: Tables of the knapsack summary: name -> (file stem, Markdown title). Each is written as
#: <stem>.csv (with a provenance sidecar) and <stem>.md.
KNAPSACK_TABLES = {
    "summary": ("selection_summary", "Selection strategies: mean over seeds"),
    "savings": ("stopping_savings", "Evaluations saved by the stopping rule"),
    "levels": (
        "stopping_levels",
        "Stopping rule: evaluations saved vs accuracy lost per STOP level",
    ),
    "rule_check": ("stopping_rule_check", "Stopping threshold vs greedy start and optimum"),
    "costs": ("cost_model", "FLOP cost model vs measured training time"),
    "beta_fit": ("beta_fit", "Beta law fitted to each UCI pool's member accuracies"),
}
#: The summary tables the numbers page shows below the verdicts (``knapsack_claims`` reads them).
KNAPSACK_PAGE_TABLES = ("summary", "levels", "rule_check")
#: Tables of the examples job (sections II-IV): name -> file stem, each written as <stem>.csv,
#: those named in :data:`KNAPSACK_EXAMPLE_MD` also as <stem>.md.
KNAPSACK_EXAMPLE_TABLES = {
    "worked": "worked_example",
    "rates": "adversarial",
    "runs": "adversarial_runs",
    "lemma": "lemma_iv1",
    "greedy": "greedy_worst_case",
    "sizes": "size_estimates",
    "small": "small_pools",
}
KNAPSACK_EXAMPLE_MD = ("worked", "rates", "greedy")
#: Report caption (``workflow/report/tables/<caption>.rst``) of each knapsack table that has its
#: own, by file stem; the others get the generic table caption.
KNAPSACK_TABLE_CAPTIONS = {
    KNAPSACK_TABLES["summary"][0]: "knapsack_selection_summary",
    KNAPSACK_TABLES["savings"][0]: "knapsack_stopping",
    KNAPSACK_TABLES["levels"][0]: "knapsack_stopping",
    KNAPSACK_TABLES["beta_fit"][0]: "knapsack_beta_fit",
    KNAPSACK_EXAMPLE_TABLES["greedy"]: "knapsack_greedy_worst_case",
    KNAPSACK_EXAMPLE_TABLES["sizes"]: "knapsack_size_estimates",
}


#: The ``benchmark:`` file of each knapsack rule that declares one (its ``log:`` mirrors it):
#: ``knapsack_<name>`` -> results/benchmarks/knapsack/<name>/<wildcards>.tsv.
BENCHMARKS = paper_benchmarks(
    "knapsack",
    {
        "examples": "",
        "pool": "{kn_data}",
        "measure_costs": ("costs", "{kn_data}"),
        "select": "{kn_pool}",
        "summary": "",
        "costs": ("costs_install", ""),
    },
)
