"""Which config keys each workflow rule reads: its ``params``, and so its rerun triggers.

Every rule passes ``config_params(*job_keys(rule, wildcards))`` (``workflow/rules/common.smk``)
as ``params``, and its script reads the config only from there: Snakemake then reruns a job
when, and only when, a value it reads changes. A dotted key names a value or a whole section
(``knapsack.sa``); ``{qwyc_data}`` stands for the job's data set. Table rules list the keys of
the rules upstream of them too, so that their provenance sidecars (written from these params)
name everything that made the table. Each paper's lists live in its package
(``ensemble_repro.papers.<paper>.keys``, gathered through :data:`ensemble_repro.paper_loader.PAPERS`,
and again whenever plug-in papers are added);
the data and report stages' are here. ``tests/pipeline/test_rerun_triggers.py`` checks these lists
against dry runs for every key of the smoke config.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from .logs import benchmark_file, log_of_benchmark
from .paper_loader import PAPERS, follow, union

#: Rule -> the config keys its jobs read (a job may read fewer: :func:`job_keys`).
RULE_KEYS: dict[str, tuple[str, ...]] = {}
#: Keys only some jobs of a rule read: key -> (wildcard, test of its value).
_ONLY_WHEN: dict = {}

#: Keys read only to build the job list: changing one adds or removes jobs (and reruns the
#: jobs that gather them), and reruns no existing job of a rule that does not read it.
DAG_KEYS: tuple[str, ...] = ()

#: Rules with params derived from the job list (J+aB figure ids and missing data sets, the
#: papers run, the output catalogue of the results index): a DAG key may change them.
DAG_PARAM_RULES: tuple[str, ...] = ()

#: Each paper's claims rule and every rule whose outputs its verdicts are computed from
#: (``tests/pipeline/test_claims.py`` checks them against the rule graph): the keys they read
#: make the verdicts' scale label (:func:`verdict_keys`).
VERDICT_RULES: dict[str, tuple[str, ...]] = {}

#: The ``benchmark:`` file of each rule that runs a script, formatted with the job's wildcards
#: (the rules take it from here; ``ensemble_repro.estimate`` reads the measured CPU time back).
BENCHMARKS: dict[str, str] = {}
#: The ``log:`` file of each rule with a benchmark, mirroring it (the rules take it from here).
LOGS: dict[str, str] = {}


def _tables() -> None:
    """The tables above from the papers in use (:func:`.paper_loader.follow`), in place."""
    global DAG_KEYS, DAG_PARAM_RULES
    papers = PAPERS.values()
    RULE_KEYS.clear()
    RULE_KEYS.update(
        {
            "fetch": (),
            "prepare": (),
            **{rule: keys for p in papers for rule, keys in p.rule_keys.items()},
            "paper_vs_ours": (),
            "verdict_forest": (),
            "results_index": (),
        }
    )
    _ONLY_WHEN.clear()
    _ONLY_WHEN.update({k: when for p in papers for k, when in p.only_when.items()})
    DAG_KEYS = (
        *(f"experiments.{p}" for p in PAPERS),
        "data.require_all",
        *(k for p in papers for k in p.dag_keys),
    )
    DAG_PARAM_RULES = (
        *(r for p in papers for r in p.dag_param_rules),
        "paper_vs_ours",
        "results_index",
    )
    VERDICT_RULES.clear()
    VERDICT_RULES.update({key: p.verdict_rules for key, p in PAPERS.items()})
    BENCHMARKS.clear()
    BENCHMARKS.update(
        {
            "fetch": benchmark_file("data/fetch", "{group}/{filename}"),
            "prepare": benchmark_file("data/prepare", "{name}"),
            **{rule: path for p in papers for rule, path in p.benchmarks.items()},
            "verdict_forest": benchmark_file("claims/forest_{paper}"),
            "table_html": benchmark_file("claims/table_html"),
            "paper_vs_ours": benchmark_file("report/paper_vs_ours"),
            "results_index": benchmark_file("report/results_index"),
        }
    )
    LOGS.clear()
    LOGS.update({rule: log_of_benchmark(path) for rule, path in BENCHMARKS.items()})


follow(_tables)

#: How raw files are fetched. Every file is checked against its pinned sha256, so these
#: change no result and rerun nothing; the fetch jobs read them from the environment
#: (``FETCH_SETTINGS_ENV``), set when the workflow is parsed.
TRANSPORT_KEYS = (
    "data.mirror",
    "data.sources",
    "data.base_url",
    "data.timeout_seconds",
    "data.retries",
)
FETCH_SETTINGS_ENV = "ENSEMBLE_REPRO_FETCH_SETTINGS"


def job_keys(rule: str, wildcards: Mapping[str, str] | None = None) -> list[str]:
    """The config keys one job of ``rule`` reads, given its wildcards.

    Examples
    --------
    >>> job_keys("qwyc_model", {"qwyc_data": "adult"})[2]
    'qwyc.gbt.max_depth.adult'
    >>> "knapsack.cost" in job_keys("knapsack_select", {"kn_pool": "synthetic_n20"})
    False
    >>> "qwyc.nomao_n_features" in job_keys("qwyc_model", {"qwyc_data": "adult"})
    False
    """
    wildcards = dict(wildcards or {})
    keys = [k.format_map(wildcards) for k in RULE_KEYS[rule]]
    return [
        k
        for k in keys
        if k not in _ONLY_WHEN
        or _ONLY_WHEN[k][0] not in wildcards
        or _ONLY_WHEN[k][1](wildcards[_ONLY_WHEN[k][0]])
    ]


def reads(declared: str, key: str) -> bool:
    """Whether a declared key (a value or a section) covers the dotted config key ``key``."""
    return key == declared or key.startswith(declared + ".") or declared.startswith(key + ".")


def verdict_keys(paper: str, config: Mapping) -> list[str]:
    """The config keys a paper's verdicts rest on in this config: those read by the jobs of
    its :data:`VERDICT_RULES` (for the configured data sets and pools) and those shaping its
    job list (:data:`DAG_KEYS` of its section).

    A change of any of them reruns the paper's claims job (through its params or its inputs),
    so a label made from their values is never stale.

    Examples
    --------
    >>> cfg = {"qwyc": {"datasets": ["adult"]}, "knapsack": {"datasets": ["sonar"],
    ...        "synthetic": {"sizes": [20]}}}
    >>> keys = verdict_keys("qwyc", cfg)
    >>> "qwyc.gbt.max_depth.adult" in keys, "qwyc.gbt.max_depth.nomao" in keys
    (True, False)
    >>> "knapsack.cost" in verdict_keys("knapsack", cfg), "jab.alpha" in keys
    (True, False)
    """
    # every combination of the wildcard values; a wildcard without values (no pool) is left
    # out, and then every key that depends on it counts
    values = {w: v for w, v in PAPERS[paper].job_wildcards(config).items() if v}
    jobs = [dict(zip(values, combo, strict=True)) for combo in itertools.product(*values.values())]
    keys = [k for rule in VERDICT_RULES[paper] for wc in jobs for k in job_keys(rule, wc)]
    return list(union(keys, PAPERS[paper].dag_keys))
