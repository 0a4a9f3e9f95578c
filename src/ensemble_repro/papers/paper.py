"""What the workflow, the estimate, the report and the claims know about one paper.

Each paper package (:mod:`.jab`, :mod:`.qwyc`, :mod:`.knapsack`) declares one :class:`Paper`
from its light modules (:meth:`Paper.declare`); :data:`ensemble_repro.papers.PAPERS` lists
them in report order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module

#: The key every experiment job reads: the run's seed.
SEED = ("seed",)


def union(*groups) -> tuple[str, ...]:
    """The keys of ``groups`` in first-seen order, each once."""
    return tuple(dict.fromkeys(k for g in groups for k in g))


def _no_wildcards(config: Mapping) -> dict[str, list]:
    return {}


@dataclass(frozen=True)
class Paper:
    """One paper of the pipeline.

    Attributes
    ----------
    key : str
        Its config section (``jab``), switch (``experiments.<key>``), results folder
        (``results/<key>``) and rule-name prefix.
    title : str
        Its name in the verdict pages.
    category : str
        Its outputs' category in the Snakemake report.
    claims : tuple of Claim
        The claims the pipeline checks (:class:`ensemble_repro.claims.claim.Claim`), in
        report order.
    rule_keys : mapping
        Rule -> the dotted config keys its jobs read (``{qwyc_data}`` stands for a wildcard).
    only_when : mapping
        Key -> (wildcard, test of its value): keys only the jobs passing the test read.
    dag_keys : tuple of str
        Keys read only to build the job list.
    dag_param_rules : tuple of str
        Rules whose params are derived from the job list.
    verdict_rules : tuple of str
        Its claims rule and every rule whose outputs its verdicts are computed from.
    benchmarks : mapping
        Rule -> its ``benchmark:`` file, formatted with the job's wildcards.
    job_wildcards : callable
        Config -> wildcard -> the values its jobs take (the wildcards of ``rule_keys``).
    """

    key: str
    title: str
    category: str
    claims: tuple
    rule_keys: Mapping[str, tuple[str, ...]]
    dag_keys: tuple[str, ...]
    dag_param_rules: tuple[str, ...]
    verdict_rules: tuple[str, ...]
    benchmarks: Mapping[str, str]
    only_when: Mapping[str, tuple[str, Callable[[str], bool]]] = field(default_factory=dict)
    job_wildcards: Callable[[Mapping], dict[str, list]] = _no_wildcards

    @classmethod
    def declare(cls, key: str, title: str, category: str, *, keys, names, registry) -> Paper:
        """The paper whose claims, rule keys and benchmark files are those of its modules.

        Parameters
        ----------
        key, title, category : str
            As the attributes.
        keys : module
            ``RULE_KEYS``, ``DAG_KEYS``, ``DAG_PARAM_RULES``, ``VERDICT_RULES``, and, when its
            rules read some keys for some wildcard values only, ``ONLY_WHEN`` and
            ``job_wildcards``.
        names : module
            ``BENCHMARKS``.
        registry : module
            ``CLAIMS``.
        """
        return cls(
            key,
            title,
            category,
            registry.CLAIMS,
            keys.RULE_KEYS,
            keys.DAG_KEYS,
            keys.DAG_PARAM_RULES,
            keys.VERDICT_RULES,
            names.BENCHMARKS,
            getattr(keys, "ONLY_WHEN", {}),
            getattr(keys, "job_wildcards", _no_wildcards),
        )

    @property
    def claims_csv(self) -> str:
        """``results/<key>/claims.csv``: its verdict rows (kept when it is switched off)."""
        return f"results/{self.key}/claims.csv"

    def costs(self) -> dict:
        """Rule -> cost function of its jobs (its ``cost`` module, imported on first use: it
        imports the experiment code)."""
        return import_module(f"{__package__}.{self.key}.cost").COSTS

    def serial_units(self) -> dict:
        """Rule -> unit cost of the start of its jobs that runs on one thread, for its rules
        with more than one (its ``cost`` module's ``SERIAL``)."""
        return getattr(import_module(f"{__package__}.{self.key}.cost"), "SERIAL", {})
