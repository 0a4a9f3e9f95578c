"""The claims of the three papers that the pipeline checks: one registry.

Each :class:`Claim` names its paper item, quotes the paper, and states the metric, the
decision rule with its tolerance and the result tables it reads. The evaluators
(``claims.jab``, ``claims.qwyc``, ``claims.knapsack``) apply exactly these rules; the verdict
pages are generated from their output. Output file names are defined here and imported by
the workflow rules.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from . import margins as mg
from .margins import (
    KN_BOOTSTRAP,
    KN_COMPETITIVE_MARGIN,
    KN_GAP_MARGIN,
    KN_GOF_LEVEL,
    KN_INDEPENDENCE_MARGIN,
    KN_INIT_MARGIN,
    KN_LEMMA_MEAN_TOL,
    KN_LEMMA_TAIL,
    KN_LEMMA_VAR_TOL,
    KN_LOSS_MARGIN,
    KN_PAPER_MC,
    KN_PAPER_SA,
    KN_PROP_TOL,
    KN_SATURATED,
    KN_SAVED_MIN,
    KN_SLIGHT_FACTOR,
    KN_WORKED_TOL,
)
from .rules import CELL_LEVEL, LEVEL

#: Papers, in the order of every report.
PAPERS = {
    "jab": "Jackknife+-after-bootstrap (Kim, Xu & Barber 2020)",
    "qwyc": "Quit When You Can (Wang, Gupta & You 2018)",
    "knapsack": "Stochastic knapsack ensemble selection (Hajdu et al. 2020)",
}
#: Every paper's claims merged (one row per claim x data set).
CLAIMS_CSV = "results/claims.csv"
#: The verdict pages generated from CLAIMS_CSV.
VERDICT_MD = "results/paper_vs_ours.md"
VERDICT_HTML = "results/paper_vs_ours.html"
#: The verdict summary included by the report's front page (workflow/report/workflow.rst).
VERDICT_SUMMARY_RST = "results/claims_summary.rst"
#: HTML renderings of result tables for the Snakemake report: results/<table>.csv ->
#: TABLE_HTML.format(table=<table>).
TABLE_HTML = "results/html/{table}.html"
#: Report category of each paper's outputs.
REPORT_CATEGORY = {
    "jab": "Jackknife+-after-bootstrap",
    "qwyc": "Quit When You Can",
    "knapsack": "Knapsack ensembles",
}
#: Columns of every claims table, in order.
COLUMNS = (
    "paper",
    "claim_id",
    "item",
    "dataset",
    "paper_says",
    "ours",
    "verdict",
    "repeats_needed",
    "reason",
    "scale",
    "made_on",
    "n_repeats",
    "interval",
    "robust_to",
    "rule",
    "timing",
    "effect",
    "effect_low",
    "effect_high",
    "band_low",
    "band_high",
    "effect_log",
)
#: Scale names of the shipped config files (``config/<stem>.yaml``).
SCALES = {"config": "paper", "quick": "quick", "smoke": "smoke"}
#: Environment variable holding each paper's scale label as JSON, set when the workflow is
#: parsed (``workflow/rules/claims.smk``). The label is made from the values the verdicts rest
#: on, and any change of those reruns the claims anyway: as a param it would only add reruns.
SCALE_ENV = "ENSEMBLE_REPRO_SCALES"
#: Changed keys a custom scale label names before "and N more".
SCALE_KEYS_SHOWN = 3
_MISSING = object()


def paper_claims_csv(paper: str) -> str:
    """``results/<paper>/claims.csv``: one paper's verdict rows (kept when it is switched off)."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}; got {paper!r}")
    return f"results/{paper}/claims.csv"


def shipped_scales(config_dir: str | Path) -> dict[str, dict]:
    """The shipped config files as a run reads them (each over ``config.yaml``), by scale name.

    Parameters
    ----------
    config_dir : str or Path
        The directory holding ``config.yaml``, ``quick.yaml`` and ``smoke.yaml``.

    Returns
    -------
    dict
        Scale name (:data:`SCALES`) -> config.
    """
    from ..config import load_config

    config_dir = Path(config_dir)
    return {
        scale: load_config(
            *([] if stem == "config" else [config_dir / f"{stem}.yaml"]),
            base=config_dir / "config.yaml",
        )
        for stem, scale in SCALES.items()
    }


def _value(config: Mapping, dotted: str):
    node = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def scale_label(config: Mapping, keys: Iterable[str], shipped: Mapping[str, Mapping]) -> str:
    """Which config made a paper's verdicts, told from the config values they rest on.

    Parameters
    ----------
    config : mapping
        The run's config.
    keys : iterable of str
        The dotted keys the verdicts rest on
        (:func:`ensemble_repro.experiments.rule_keys.verdict_keys`).
    shipped : mapping
        Scale name -> config of the shipped config files (:func:`shipped_scales`).

    Returns
    -------
    str
        The first scale whose config agrees with ``config`` on every key; else
        ``custom (<nearest>; changed: <keys>)``, the scale differing on the fewest keys and
        those keys (the first :data:`SCALE_KEYS_SHOWN`). Keys no verdict rests on (how data
        are fetched, another paper's settings) never change it.

    Examples
    --------
    >>> shipped = {"paper": {"seed": 1, "jab": {"n_trials": 20}},
    ...            "smoke": {"seed": 1, "jab": {"n_trials": 2}}}
    >>> run = {"seed": 1, "jab": {"n_trials": 2}, "data": {"timeout_seconds": 5}}
    >>> scale_label(run, ["seed", "jab.n_trials"], shipped)
    'smoke'
    >>> scale_label({**run, "seed": 7}, ["seed", "jab.n_trials"], shipped)
    'custom (smoke; changed: seed)'
    """
    keys = list(keys)
    changed = {
        scale: [k for k in keys if _value(config, k) != _value(cfg, k)]
        for scale, cfg in shipped.items()
    }
    nearest = min(changed, key=lambda s: len(changed[s]))
    diff = changed[nearest]
    if not diff:
        return nearest
    shown = ", ".join(diff[:SCALE_KEYS_SHOWN])
    more = len(diff) - SCALE_KEYS_SHOWN
    return f"custom ({nearest}; changed: {shown}{f' and {more} more' if more > 0 else ''})"


def run_scale(paper: str) -> str:
    """The scale label of ``paper``'s verdicts in the running workflow (:data:`SCALE_ENV`)."""
    return json.loads(os.environ[SCALE_ENV])[paper]


@dataclass(frozen=True)
class Claim:
    """One claim of one paper, as the pipeline checks it."""

    id: str
    paper: str
    item: str
    quote: str
    metric: str
    rule: str
    inputs: tuple[str, ...]
    timing: bool = False
    #: What the ``effect`` columns of its rows measure (the forest plot's axis).
    effect: str = ""


_JAB_IN = ("results/jab/main.csv", "results/jab/jplus.csv")
_POOLED = (
    f"The unit of replication is the trial: within each trial the claim's cells (learner x "
    f"method x m/n) are averaged (log ratios for widths and times), and the pooled effect gets "
    f"a t interval over trials ({LEVEL:.0%}; a one-sided claim is decided on its relevant end, "
    f"an equivalence claim on both ends). "
)
_CELLS = (
    f" Each cell is also tested alone (one-sided t-tests, Holm at {CELL_LEVEL}): a decided "
    f"verdict with a cell decisively on the other side is partly reproduced."
)
_UNDECIDED = (
    " An interval that straddles a bound is inconclusive, with the trials that would decide "
    "it at the observed variance."
)
_ACROSS = (
    " The row 'all data sets' is the random-effects mean of the data sets' pooled effects, "
    "with its heterogeneity."
)
_QWYC_ROWS = (
    "results/qwyc/<data>/rows/<method>.parquet",
    "results/qwyc/<data>/rows/sensitivity_*.parquet",
)
_QWYC_REFITS = ("results/qwyc/<data>/refits.csv",)
_QWYC_COMMON = (
    f"Intervals are {LEVEL:.0%}; one-sided bounds decide: reproduced when the interval lies on "
    "the claim's side of the bound, not reproduced when it lies wholly on the other, else "
    "inconclusive (with the refits or test rows that would decide). The main fit is the "
    "paper's protocol (fit_on: train_full at the learning rate most carve-outs choose); test "
    "rows are the held-out test set; refits are qwyc.n_refits bootstrap resamples of the "
    "fitting rows with the GBT held fixed. robust_to: the same rule on each sensitivity "
    "setting's main fit on test rows alone (the refits are of the main setting), counting "
    "decided verdicts only. "
)
CLAIMS: dict[str, Claim] = {
    c.id: c
    for c in [
        Claim(
            "jab.coverage",
            "jab",
            "Section 5, Figures 1, S1, S3",
            "it is clear that the coverage of the J+aB is near the nominal level. This is also the "
            "case for J+ensemble or J+non-ensemble",
            "test coverage of J+aB, J+ensemble and J+non-ensemble, pooled per trial",
            _POOLED + f"Validity: reproduced when the pooled coverage's low end is >= 1 - alpha - "
            f"{mg.COVERAGE_MARGIN}, not reproduced when its high end is below that; "
            "over-coverage is reported beside the verdict, not counted against it."
            + _CELLS
            + _UNDECIDED
            + _ACROSS,
            _JAB_IN,
            effect="coverage",
        ),
        Claim(
            "jab.theorem1",
            "jab",
            "Theorem 1",
            "Suppose the jackknife+-after-bootstrap method (Algorithm 2) is run with (i) B ~ "
            "Binomial(...) ... Then ... the jackknife+-after-bootstrap prediction interval "
            "satisfies P[Y_{n+1} in C] >= 1 - 2 alpha",
            "test coverage of J+aB per learner x m/n cell",
            f"Every J+aB cell (learner x m/n) one-sided: its t interval over trials ({LEVEL:.0%}) "
            f"lies at or above 1 - {mg.THEOREM1_FACTOR} alpha in every cell -> reproduced; a "
            f"cell decisively below it (one-sided t-test, Holm at {CELL_LEVEL}) -> not "
            "reproduced; else inconclusive, with the trials that would decide the least "
            "covered cell. The effect shown is the least covered cell.",
            ("results/jab/main.csv",),
            effect="coverage",
        ),
        Claim(
            "jab.width_no_winner",
            "jab",
            "Section 5, Figure 2",
            "we observe no evidence of a consistent trend of one method always outperforming the "
            "other in terms of the precision of the intervals",
            "width ratio J+aB / J+ensemble (geometric mean over learner x m/n cells, per trial)",
            _POOLED + f"Equivalence: reproduced when the pooled ratio's interval lies within "
            f"[{mg.EQUAL_WIDTH[0]}, {mg.EQUAL_WIDTH[1]}], not reproduced when it lies wholly "
            "outside." + _CELLS + _UNDECIDED + _ACROSS,
            _JAB_IN,
            effect="width ratio J+aB / J+ensemble",
        ),
        Claim(
            "jab.bagging_helps_rf",
            "jab",
            "Section 5, Figure 2",
            "we see improved precision in the case of RF ... We expect the former to be narrower "
            "than the latter when the base regression method is unstable (e.g., RF), but not so "
            "when it is already stable (e.g., Ridge)",
            "width ratio J+aB / J+non-ensemble, per learner, pooled over m/n per trial",
            _POOLED + "Two parts: RF, the pooled ratio lies below 1 (narrower); Ridge, it lies "
            f"at or above {mg.RIDGE_NOT_NARROWER} (not narrower by more than "
            f"{1 - mg.RIDGE_NOT_NARROWER:.0%}). Both decided the claim's way -> reproduced, both "
            "the other way -> not reproduced, decided both ways -> partly." + _CELLS + _UNDECIDED,
            _JAB_IN,
            effect="width ratio J+aB / J+non-ensemble",
        ),
        Claim(
            "jab.bagging_helps_nn",
            "jab",
            "Section 5, Figure 2",
            "we see improved precision in the case of RF, and for some data sets and at some "
            "values of m, in the case of NN",
            "width ratio J+aB / J+non-ensemble of the NN, per data set x m/n cell",
            f"Per cell a paired t interval on per-trial log ratios ({LEVEL:.0%}). Reproduced when "
            f"some data set has an m/n cell decisively narrower (one-sided t-test, Holm at "
            f"{CELL_LEVEL} over all cells); not reproduced when every cell's interval lies at or "
            f"above {mg.NO_GAIN}; else inconclusive. The effect shown is the narrowest cell.",
            _JAB_IN,
            effect="width ratio J+aB / J+non-ensemble",
        ),
        Claim(
            "jab.fixed_vs_random_b",
            "jab",
            "Appendix D.3, Figures S5-S10",
            "J+aB fixed and J+aB random behave essentially the same",
            "coverage difference random - fixed B and width ratio random / fixed, pooled per trial",
            _POOLED + f"Two equivalence parts: the coverage difference within "
            f"+-{mg.FVR_COVERAGE_TOL} and the width ratio within [{mg.FVR_WIDTH[0]}, "
            f"{mg.FVR_WIDTH[1]}]; both inside -> reproduced, both wholly outside -> not "
            "reproduced, decided both ways -> partly." + _CELLS + _UNDECIDED + _ACROSS,
            ("results/jab/fixed_vs_random.csv",),
            effect="width ratio random / fixed B",
        ),
        Claim(
            "jab.cheaper_than_ensemble",
            "jab",
            "Tables S1-S3, Table 1",
            "J+aB 3.0 s vs J+ensemble 61.6 s (MEPS, RF, mean); the cost of model fitting is "
            "identical for the J+aB algorithm and the ensemble learning",
            "wall-clock ratio J+ensemble / J+aB at m = timing_m_ratio * n, per learner",
            f"Per learner, a paired t interval on per-trial log ratios of total seconds "
            f"({LEVEL:.0%}): reproduced when it lies above {mg.CHEAPER_THAN} (J+aB cheaper), not "
            "reproduced when it lies below; learners combined as parts. Wall clock decides (the "
            "paper's clock); CPU time is the sensitivity setting 'cpu seconds'. "
            "Machine-dependent." + _UNDECIDED,
            ("results/jab/main.csv", "results/jab/tables/*.csv"),
            timing=True,
            effect="seconds J+ensemble / J+aB",
        ),
        Claim(
            "qwyc.fewer_models",
            "qwyc",
            "Abstract / Section 1; Figure 1",
            "QWYC can speed up computation time by 2x-4x while classifying faithfully compared to "
            "the full ensemble on held-out examples",
            f"QWYC*'s % test differences and T / mean # models at its alpha with the fewest "
            f"models at <= {mg.QWYC_FAITHFUL_PCT}% test differences on the main fit (else its "
            "lowest-differences alpha)",
            _QWYC_COMMON
            + f"Two parts at that alpha: test differences <= {mg.QWYC_FAITHFUL_PCT}% and T / mean "
            f"# models >= {mg.QWYC_MIN_SPEEDUP:g}x, each on the mean over the refits with a t "
            "interval whose variance adds the test rows' (binomial for differences, per-row "
            "models for the ratio); without refits, Wilson / t over the main fit's test rows. "
            "Parts combined: both reproduced -> reproduced, both not -> not, one each -> partly, "
            f"else inconclusive. The {mg.QWYC_FAITHFUL_PCT}% level is the paper's operating point "
            "of its real-world timing tables (Tables 2-3) carried over to the benchmark data.",
            _QWYC_ROWS + _QWYC_REFITS,
        ),
        Claim(
            "qwyc.beats_fixed_orders",
            "qwyc",
            "Section 5 Discussion; Figure 1",
            "QWYC*'s joint optimization of ordering and early stopping thresholds outperformed any "
            "pre-selected ordering combined with Algorithm 2 or Fan et al. (2002) early stopping",
            "mean # models at matched test differences (qwyc.timing.target_differences): QWYC* "
            "vs the best other method of the paper at each level",
            _QWYC_COMMON
            + "Per level, each method's point with the fewest models at <= the level on the main "
            "fit; the best other method (fixed ordering with Algorithm 2 or Fan; the cross-fitted "
            "QWYC*, an extension, is left out) against QWYC*: a paired t interval over test rows "
            "of models per row (rival - QWYC*) above 0, and, when the rival is refitted too, a "
            "paired log-ratio t interval over the refits above 1. A level only QWYC* reaches "
            "counts for it; one it cannot reach fails when its lowest-differences point's Wilson "
            "interval lies above the level. Tests and levels combined as parts (mixed decided -> "
            "partly, any undecided -> inconclusive).",
            _QWYC_ROWS + _QWYC_REFITS,
        ),
        Claim(
            "qwyc.fan_below_smaller",
            "qwyc",
            "Section 5 Discussion (Experiment 1, Adult)",
            "In Experiment 1, Fan* performed worse than the baseline of smaller ensembles alone in "
            "terms of accuracy and classification differences",
            "per Fan* point: paired differences Fan* - smaller GBT over test rows in % test "
            "differences and in accuracy",
            _QWYC_COMMON
            + "One fit decides (the test rows are the repeats). A Fan* point with m mean models "
            "holds when it is worse on both measures than the largest smaller GBT with <= m trees "
            "(both paired intervals on the worse side of 0), fails when it is better on either "
            "than the smallest smaller GBT with >= m trees; else undecided. Reproduced when more "
            f"than {mg.QWYC_POINT_SHARE:.0%} of the Fan* points hold, not reproduced when more than "
            f"{mg.QWYC_POINT_SHARE:.0%} fail (a finding against the paper), partly when the rest "
            "are decided, else inconclusive.",
            ("results/qwyc/<data>/rows/fan_individual_mse.parquet",)
            + ("results/qwyc/<data>/rows/smaller_same_lr.parquet",),
        ),
        Claim(
            "qwyc.faster_than_fan",
            "qwyc",
            "Abstract; Tables 2-4",
            "Timing experiments ... show faster mean evaluation speeds from QWYC* than Fan*, "
            "ranging from 1.8x ... to 4x",
            f"per-example time Fan* / QWYC* at ~{mg.QWYC_FAITHFUL_PCT}% differences (timing runs)",
            _QWYC_COMMON
            + "Paired log-ratio t interval over the timing runs (the methods take turns within a "
            f"run) above {mg.QWYC_FASTER_THAN:g}, when QWYC*'s timing point is within "
            f"{mg.QWYC_MATCH_FACTOR:g}x of the target level; not reproduced when it is not "
            "(QWYC* does not reach the level, so it is not faster there). The fits of other "
            "learning rates are timed too and are its sensitivity settings. Machine-dependent "
            "(wall clock); the paper's timings are on real-world lattices, these on the "
            "benchmark GBT.",
            ("results/qwyc/<data>/timing.csv", "results/qwyc/<data>/timing_runs.csv"),
            timing=True,
        ),
        Claim(
            "qwyc.fan_vs_algorithm2",
            "qwyc",
            "Section 5 Discussion; Figure 1 (Adult natural order: Fan 72.2 vs Algorithm 2 93.0 "
            "models at <= 0.5%)",
            "For many pre-selected orderings, the Fan et al. (2002) early stopping mechanism "
            "performed better than the simple early stopping mechanism in Algorithm 2",
            f"per ordering run with both: mean # models at <= {mg.QWYC_COMPARE_PCT}% test "
            "differences, Algorithm 2 / Fan",
            _QWYC_COMMON
            + "Per ordering, each mechanism's point with the fewest models at <= the level; a "
            "paired t interval over test rows of models per row (Algorithm 2 - Fan): Fan better "
            "above 0, worse below (a mechanism that alone reaches the level is better). "
            f"Reproduced when Fan is better on at least {mg.QWYC_MANY_SHARE:.0%} of the orderings, "
            "not reproduced when it falls short even counting every undecided ordering, else "
            "inconclusive.",
            _QWYC_ROWS,
        ),
        Claim(
            "qwyc.more_accurate_than_fan",
            "qwyc",
            "Section 5 Discussion",
            "QWYC*'s joint optimization of orderings an thresholds was both faster and more "
            "accurate than the Fan et al. (2002) early stopping criteria combined with any "
            "pre-selected orderings",
            f"test accuracy QWYC* - Fan (percentage points) at <= {mg.QWYC_COMPARE_PCT}% test "
            "differences, per Fan ordering",
            _QWYC_COMMON + "The accuracy half (the speed half is qwyc.beats_fixed_orders and "
            "qwyc.faster_than_fan). Each method's point with the fewest models at <= the level "
            "(QWYC*'s lowest-differences point when it reaches none); a paired t interval over "
            "test rows of accuracy QWYC* - Fan above 0, per Fan ordering; orderings combined as "
            "parts.",
            _QWYC_ROWS,
        ),
        Claim(
            "qwyc.real_world",
            "qwyc",
            "Experiments 3-6, Figure 2, Tables 2-3",
            "For the real-world case studies, we were given ensemble models where the base models "
            "are lattices",
            "-",
            "Not testable: the lattice ensembles and their data are internal to the authors.",
            (),
        ),
        Claim(
            "knapsack.worked_example",
            "knapsack",
            "Section II, eq. (1) worked example",
            "q1(I1) = 0.5100, q3(I3) = 0.5100, and q5(I5) = 0.5112, which shows that the greedy "
            "forward selection strategy is stuck at the single",
            "q1, q3, q5 and the greedy forward ensemble size",
            "Exact computation (no randomness, a degenerate interval): reproduced when every q "
            f"matches the paper to its 4 printed decimals (|diff| <= {KN_WORKED_TOL:g}) and "
            "greedy stops at size 1; not reproduced when none matches; else partly.",
            ("results/knapsack/worked_example.csv",),
        ),
        Claim(
            "knapsack.greedy_error",
            "knapsack",
            "Section II, Propositions II.1-4",
            "the 1/2 error rates remain valid for both greedy selection approaches",
            "error q* - q_greedy of greedy forward / backward selection by accuracy (II.1, "
            "II.2) and by usefulness p/t (II.3, II.4), on pool families approaching the worst "
            "case and on random pools with every p > 1/2",
            "Exact computation, per proposition: not reproduced when any error exceeds 1/2; "
            f"reproduced when an error on the pool family comes within {KN_PROP_TOL:g} of 1/2 "
            "(the bound is approached); else inconclusive (our family stops short of the limit). "
            "Families: D1 = (1/2 + 2 eps, T) beside m members (1/2 + eps, T/(m + 1)) for the "
            "accuracy keys, section III's adversarial pool for usefulness.",
            ("results/knapsack/greedy_worst_case.csv",),
        ),
        Claim(
            "knapsack.mc_vs_sa",
            "knapsack",
            "Section III, adversarial pool",
            "the precision of the MC method was only 11%, while SA found the most accurate "
            "ensemble in 96% of the simulations",
            "SA - MC success rate after N evaluations each (N fixed in config before the run, "
            "knapsack.adversarial.evaluations), per pool size, MC reading and SA move set",
            "Newcombe interval (95%) on the difference of the two success rates over seeds: "
            f"reproduced when it lies at or above {KN_GAP_MARGIN:g} (half the paper's "
            f"{KN_PAPER_SA - KN_PAPER_MC:.2f} gap), not reproduced when it lies below, else "
            "inconclusive. One row per MC reading and SA move set; the primary reading "
            "(knapsack.mc_sampler, the first of adversarial.sa_moves) decides, the others are "
            "sensitivity settings.",
            ("results/knapsack/adversarial.csv",),
        ),
        Claim(
            "knapsack.lemma_iv1",
            "knapsack",
            "Section IV, Lemma IV.1 and Fig. 1",
            "see Figure 1 regarding the three possible accuracy limits described in (8) with "
            "respective Beta(alpha_p, beta_p) distributions for p",
            "exact E[q_l] and Var[q_l] of the Beta model at odd l against their limits "
            "(1, 1/2, 0 as mu_p is above, at or below 1/2)",
            "Exact computation, per Beta law of Fig. 1: reproduced when at the largest size "
            f"|E[q_l] - limit| <= {KN_LEMMA_MEAN_TOL:g} and |Var[q_l] - limit| <= "
            f"{KN_LEMMA_VAR_TOL:g}, both distances non-increasing over the last "
            f"{KN_LEMMA_TAIL} sizes; else not reproduced; laws combined (mixed: partly).",
            ("results/knapsack/lemma_iv1.csv",),
        ),
        Claim(
            "knapsack.eq33_sizes",
            "knapsack",
            "Section IV-B, eq. (33)",
            "we have used (22) instead of (33) to obtain the ensemble size, since the latter "
            "provided slightly too large estimated size values",
            "log of eq. (33)'s size (Poisson upper 5% quantile at lambda T = T / mean t) over "
            "the mean size of random-order fills of the budget, per synthetic pool draw "
            "(time profile lambda = 1 - p, averaged over the budget multiples)",
            "t interval over pool draws (knapsack.size_draws), two parts: larger (interval "
            f"above 0) and slightly (interval below log {KN_SLIGHT_FACTOR:g}, i.e. at most "
            f"{KN_SLIGHT_FACTOR:g}x); each part reproduced / not reproduced when the interval "
            "lies on one side, else inconclusive; parts combined (mixed: partly).",
            ("results/knapsack/size_estimates.csv",),
        ),
        Claim(
            "knapsack.beta_fit",
            "knapsack",
            "Abstract; Section IV-A",
            "with a special focus on beta distributions that fit practical problems very well",
            "Cramér-von Mises goodness of fit of a Beta law (maximum likelihood, parametric "
            "bootstrap null) to each UCI pool's member accuracies",
            f"Per pool: not reproduced when Holm's procedure over the pools rejects the Beta law at "
            f"family-wise level {KN_GOF_LEVEL:g}, "
            "else reproduced (not rejected; with about 30 members per pool only a gross misfit "
            "is detectable). The all-pools row combines the pools (mixed: partly).",
            ("results/knapsack/beta_fit.csv",),
        ),
        Claim(
            "knapsack.stopping_saves",
            "knapsack",
            "Abstract; Section VI",
            "including the stochastic estimation as a stopping rule saves a large amount of "
            "search time to build accurate ensembles",
            "per SA and stochastic-search run with the primary rule (the paper's left-sided "
            "test), against the same search and seed without a rule: the share of evaluations "
            f"saved and the best q lost, budget x seed runs in unsaturated cells (optimum q < "
            f"{KN_SATURATED:g} and fewer members than the pool)",
            "Two parts per search, t intervals over runs: saved (reproduced when the interval "
            f"lies at or above {KN_SAVED_MIN:.0%}, not reproduced below) and accurate (loss "
            f"non-inferior: reproduced when the interval lies below {KN_LOSS_MARGIN:g}, not "
            "reproduced when it lies at or above); a straddling part is inconclusive; parts "
            "combined (mixed decided parts: partly). Per pool, and all pools by random "
            "effects. The savings-vs-loss trade-off of every stop_rules entry is shown "
            "beside it; the other stop_rules and cost_sensitivity kinds are sensitivity "
            "settings; not testable when every cell is saturated.",
            ("results/knapsack/runs/<pool>.csv",),
        ),
        Claim(
            "knapsack.ss_competitive",
            "knapsack",
            "Abstract; Section V",
            "our novel search strategy is proven to be very competitive with SA",
            "best q of the stochastic search minus SA's (no stopping rule), paired by budget "
            "and seed",
            "t interval over runs in unsaturated cells (optimum q < "
            f"{KN_SATURATED:g} and fewer members than the pool), per pool: reproduced when it "
            f"lies at or above -{KN_COMPETITIVE_MARGIN:g}, not reproduced when it lies below, "
            "else inconclusive; all pools by a random-effects estimate over the pools with a "
            "heterogeneity flag; not testable when every cell is saturated. cost_sensitivity "
            "kinds are the sensitivity settings.",
            ("results/knapsack/runs/<pool>.csv",),
        ),
        Claim(
            "knapsack.sa_initial_conditions",
            "knapsack",
            "Section III (simulated annealing)",
            "whose solutions are close to the global extremum ... and are independent of the "
            "initial conditions",
            "SA's best q from each start of knapsack.sa_init_check minus from the configured "
            "start (knapsack.sa.init), no rule, paired by budget and seed",
            "Equivalence: t interval over runs in unsaturated cells, per pool: reproduced when "
            f"it lies within +-{KN_INIT_MARGIN:g}, not reproduced when it lies wholly outside, "
            "else inconclusive; all pools by a random-effects estimate with a heterogeneity "
            "flag.",
            ("results/knapsack/runs/<pool>.csv",),
        ),
        Claim(
            "knapsack.independence",
            "knapsack",
            "Section VI",
            "We have assumed independent member accuracy behavior, providing solid estimation "
            "power in our tests",
            "q of eq. (1) at the members' test-row accuracies minus the held-out majority-vote "
            "accuracy, over the ensembles SA and the stochastic search chose (no rule)",
            f"Percentile bootstrap over test rows ({KN_BOOTSTRAP} resamples, seeded), per UCI "
            f"pool: reproduced when the interval lies within +-{KN_INDEPENDENCE_MARGIN:g}, not "
            "reproduced when it lies wholly outside, else inconclusive.",
            ("results/knapsack/runs/<pool>.csv", "results/knapsack/pools/<pool>_votes.parquet"),
        ),
        Claim(
            "knapsack.kaggle",
            "knapsack",
            "Section V (Kaggle experiment)",
            "Kaggle challenges ... leaderboard scores",
            "-",
            "Not testable: the challenges are not named and the leaderboards are not "
            "downloaded here; synthetic Beta pools stand in.",
            (),
        ),
    ]
}


def claims_of(paper: str) -> list[Claim]:
    """The registered claims of one paper, in registry order."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}; got {paper!r}")
    return [c for c in CLAIMS.values() if c.paper == paper]
