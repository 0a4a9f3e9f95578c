"""What the workflow, the estimate, the report and the claims know about one paper.

Each paper package declares one :class:`Paper` as its ``PAPER`` from its light modules
(:meth:`Paper.declare`); :mod:`ensemble_repro.paper_loader` finds the built-in ones (the
subpackages of :mod:`ensemble_repro.papers`) and the plug-ins a config names, and lists them
in report order (:attr:`Paper.order`).
"""

from __future__ import annotations

import re
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


def _no_checks(config: Mapping) -> list[tuple[list, str]]:
    return []


# ---------------------------------------------------------------- record and cost declarations


@dataclass(frozen=True)
class RecordCells:
    """A paper's per-job tables that a record keeps so that a later run resumes from them.

    Attributes
    ----------
    folder : str
        Their folder under ``results/`` (``jab/cells/``, with its trailing slash).
    suffix : str
        Their file ending (``.parquet``).
    rules : tuple of (str, str)
        (regex of a table's path under ``results/`` without ``suffix``, its wildcards as named
        groups; the rule writing it).
    in_config : callable
        ``(rule, wildcards, config) -> bool``: whether the config runs that job.
    data_wildcard : str
        The wildcard naming the prepared data table (``results/data/<name>.parquet``) the
        job reads.
    label : str
        What they are, in messages (``J+aB cell``).
    """

    folder: str
    suffix: str
    rules: tuple[tuple[str, str], ...]
    in_config: Callable[[str, Mapping[str, str], Mapping], bool]
    data_wildcard: str
    label: str

    @property
    def pattern(self) -> str:
        """Their ``Path.glob`` pattern relative to ``results/``."""
        return f"{self.folder}**/*{self.suffix}"

    def holds(self, rel: str) -> bool:
        """Whether ``rel`` (relative to ``results/``) is one of these tables' paths."""
        return rel.startswith(self.folder) and rel.endswith(self.suffix)

    def job(self, rel: str) -> tuple[str, dict[str, str]] | None:
        """Rule and wildcards of the table at ``rel``; None when no rule writes it."""
        stem = rel.removesuffix(self.suffix)
        for regex, rule in self.rules:
            m = re.fullmatch(regex, stem)
            if m:
                return rule, m.groupdict()
        return None


def _no_unit_costs(config: Mapping) -> list[tuple[str, str, str]]:
    return []


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
    order : int
        Its place in every report: papers are listed by ``order``, then key.
    package : str
        The module name of its package (its ``cost`` module is ``<package>.cost``).
    check_config : callable
        Config -> (path, sentence) pairs: the cross-field rules of its config section that a
        JSON schema cannot express (the sentence names the key, the bad value and the fix).
    rules : str
        Its Snakemake rules file: relative to the checkout for a built-in paper
        (``workflow/rules/<key>.smk``), absolute for a plug-in (a file in its folder).
    docs : str
        Its protocol page, in the same way (``docs/papers/<key>.md``).
    config_defaults, config_schema : str
        A plug-in's YAML files (absolute paths): the default values of its config section and
        the JSON schema of that section. Empty for a built-in paper, whose section is in
        ``config/config.yaml`` and ``workflow/schemas/config.schema.yaml``.
    folder : str
        A plug-in's folder (absolute); empty for a built-in paper.

    What the record and the cost estimate ask of it (from its ``cost_units`` and
    ``record_cells`` modules, :meth:`declare`):

    unit_families : mapping
        Unit cost of its jobs -> the machine-calibration kernel family its speed follows
        (:func:`ensemble_repro.cost.units.unit_family`).
    start_modules : tuple of str
        Modules each of its experiment jobs imports (timed by the ``start`` kernel).
    needed_unit_costs : callable
        Config -> ``(unit, key, why)`` of each unit cost its jobs are priced with that the
        unit-cost table must hold (checked before an estimate).
    record_cells : RecordCells or None
        Its per-job tables a record keeps for a later run to resume from.
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
    order: int = 0
    package: str = ""
    check_config: Callable[[Mapping], list[tuple[list, str]]] = _no_checks
    rules: str = ""
    docs: str = ""
    config_defaults: str = ""
    config_schema: str = ""
    folder: str = ""
    # ---- what the record and the cost estimate ask of it
    unit_families: Mapping[str, str | Callable[[str], str]] = field(default_factory=dict)
    start_modules: tuple[str, ...] = ()
    needed_unit_costs: Callable[[Mapping], list[tuple[str, str, str]]] = _no_unit_costs
    record_cells: RecordCells | None = None

    @classmethod
    def declare(
        cls,
        key: str,
        title: str,
        category: str,
        *,
        keys,
        names,
        claim_list,
        order: int,
        package: str,
        check_config: Callable[[Mapping], list[tuple[list, str]]] = _no_checks,
        rules: str = "",
        docs: str = "",
        config_defaults: str = "",
        config_schema: str = "",
        cost_units=None,
        cells=None,
    ) -> Paper:
        """The paper whose claims, rule keys and benchmark files are those of its modules.

        Parameters
        ----------
        key, title, category : str
            As the attributes.
        order, package, check_config, config_defaults, config_schema : optional
            As the attributes (``package``: the declaring package's ``__name__``).
        rules, docs : str, optional
            As the attributes; by default ``workflow/rules/<key>.smk`` and
            ``docs/papers/<key>.md`` (a built-in paper's places).
        keys : module
            ``RULE_KEYS``, ``DAG_KEYS``, ``DAG_PARAM_RULES``, ``VERDICT_RULES``, and, when its
            rules read some keys for some wildcard values only, ``ONLY_WHEN`` and
            ``job_wildcards``.
        names : module
            ``BENCHMARKS``.
        claim_list : module
            ``CLAIMS``.
        cost_units : module, optional
            ``UNIT_FAMILIES``, ``START_MODULES`` and, when the unit-cost table must hold rows
            for the config's values, ``needed_unit_costs``.
        cells : module, optional
            ``RECORD_CELLS``, when a record keeps some of its tables for resuming.
        """
        return cls(
            key,
            title,
            category,
            claim_list.CLAIMS,
            keys.RULE_KEYS,
            keys.DAG_KEYS,
            keys.DAG_PARAM_RULES,
            keys.VERDICT_RULES,
            names.BENCHMARKS,
            getattr(keys, "ONLY_WHEN", {}),
            getattr(keys, "job_wildcards", _no_wildcards),
            order,
            package,
            check_config,
            rules or f"workflow/rules/{key}.smk",
            docs or f"docs/papers/{key}.md",
            config_defaults,
            config_schema,
            **(
                {}
                if cost_units is None
                else {
                    "unit_families": cost_units.UNIT_FAMILIES,
                    "start_modules": cost_units.START_MODULES,
                    "needed_unit_costs": getattr(cost_units, "needed_unit_costs", _no_unit_costs),
                }
            ),
            record_cells=None if cells is None else cells.RECORD_CELLS,
        )

    @property
    def claims_csv(self) -> str:
        """``results/<key>/claims.csv``: its verdict rows (kept when it is switched off)."""
        return f"results/{self.key}/claims.csv"

    def costs(self) -> dict:
        """Rule -> cost function of its jobs (its ``cost`` module, imported on first use: it
        imports the experiment code)."""
        return import_module(f"{self.package}.cost").COSTS

    def serial_units(self) -> dict:
        """Rule -> unit cost of the start of its jobs that runs on one thread, for its rules
        with more than one (its ``cost`` module's ``SERIAL``)."""
        return getattr(import_module(f"{self.package}.cost"), "SERIAL", {})
