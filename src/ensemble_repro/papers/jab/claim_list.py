"""The J+aB claims the pipeline checks (Kim, Xu & Barber 2020, Section 5, Theorem 1, Table 1,
Appendices D.2-D.4, Tables S1-S3): paper item, quote, metric, decision rule and the result
tables it reads.
:mod:`.claims` applies exactly these rules.
"""

from __future__ import annotations

from ...claims.claim import Claim
from ...claims.rules import CELL_LEVEL, LEVEL
from . import margins as mg

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
_LOGITS = (
    " Coverage intervals are t intervals on the logits of the per-trial coverages, mapped back "
    "(inside [0, 1]); the cells' tests run on the logits too."
)
_RATIO_OF_MEANS = (
    f"Per learner, the ratio of mean seconds over the trials (the estimator of Tables S1-S3) "
    f"with its percentile-bootstrap interval ({LEVEL:.0%}, trials resampled in pairs)"
)
#: The claims checked, in report order.
CLAIMS = (
    Claim(
        "jab.coverage",
        "jab",
        "Section 5, Figures 1, S1, S3",
        "it is clear that the coverage of the J+aB is near the nominal level. This is also the "
        "case for J+ensemble or J+non-ensemble",
        "test coverage of J+aB, J+ensemble and J+non-ensemble, pooled per trial",
        _POOLED + f"Two-sided: reproduced when the pooled coverage's interval lies within "
        f"1 - alpha +- {mg.COVERAGE_MARGIN}, not reproduced when "
        "it lies wholly outside; over-coverage beyond the band counts against 'near' as "
        "under-coverage does." + _LOGITS + _CELLS + _UNDECIDED + _ACROSS,
        _JAB_IN,
        effect="coverage",
        title="the coverage of the J+aB is near the nominal level",
    ),
    Claim(
        "jab.theorem1",
        "jab",
        "Theorem 1",
        "Suppose the jackknife+-after-bootstrap method (Algorithm 2) is run with (i) B ~ "
        "Binomial(...) ... Then ... the jackknife+-after-bootstrap prediction interval "
        "satisfies P[Y_{n+1} in C] >= 1 - 2 alpha",
        "test coverage of J+aB per learner x m/n cell",
        f"Every J+aB cell (learner x m/n) one-sided: its t interval over trials on the logits "
        f"of the coverages ({LEVEL:.0%}, mapped back) "
        f"lies at or above 1 - {mg.THEOREM1_FACTOR} alpha in every cell -> reproduced; a "
        f"cell decisively below it (one-sided t-test, Holm at {CELL_LEVEL}) -> not "
        "reproduced; else inconclusive, with the trials that would decide the least "
        "covered cell. The effect shown is the least covered cell.",
        ("results/jab/main.csv",),
        effect="coverage",
        title="Theorem 1: coverage at least 1 - 2 alpha",
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
        title="no method always outperforming the other in precision",
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
        "the other way -> not reproduced, decided both ways -> partly; not testable unless "
        "both learners ran." + _CELLS + _UNDECIDED,
        _JAB_IN,
        effect="width ratio J+aB / J+non-ensemble",
        title="improved precision in the case of RF, not so for Ridge",
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
        f"above {mg.NO_GAIN}; else inconclusive. The effect shown is the cell that decides: "
        "the most decisively narrower one (smallest p-value), or when none gains, the one "
        "whose interval comes lowest.",
        _JAB_IN,
        effect="width ratio J+aB / J+non-ensemble",
        title="improved precision for some data sets and m, in the case of NN",
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
        title="J+aB fixed and J+aB random behave essentially the same",
    ),
    Claim(
        "jab.cheaper_than_ensemble",
        "jab",
        "Tables S1-S3, Table 1",
        "J+aB 3.0 s vs J+ensemble 61.6 s (MEPS, RF, mean); the cost of model fitting is "
        "identical for the J+aB algorithm and the ensemble learning",
        "wall-clock ratio J+ensemble / J+aB at m = timing_m_ratio * n, per learner",
        _RATIO_OF_MEANS + f", the same numbers as the tables. Two tests per learner: cheaper "
        f"(the interval above {mg.CHEAPER_THAN}) and the paper's magnitude (the interval inside "
        f"[{mg.PAPER_ENSEMBLE_RATIO[0]}, {mg.PAPER_ENSEMBLE_RATIO[1]}], the smallest and largest "
        "J+ensemble / J+aB ratio of Tables S1-S2 over learners and aggregations; our reading, "
        "one band for all learners); both reproduced -> reproduced, decided both ways -> "
        "partly; learners combined as parts. The paper's ratios for the data set are reported "
        "beside ours. Wall clock decides (the paper's clock); CPU time is the sensitivity "
        "setting 'cpu seconds'. Machine-dependent." + _UNDECIDED,
        ("results/jab/main.csv", "results/jab/tables/*.csv"),
        timing=True,
        effect="seconds J+ensemble / J+aB",
        title="J+aB 3.0 s vs J+ensemble 61.6 s",
    ),
    Claim(
        "jab.faster_than_non_ensemble",
        "jab",
        "Tables S1-S2 (Mean rows), Appendix D.4",
        "J+aB 0.2 s vs J+non-ensemble 0.4 s (MEPS, Ridge, Mean) ... 36.8 s vs 46.4 s (Blog, NN, "
        "Mean): J+aB takes less time than J+non-ensemble in every Mean row of Tables S1-S2",
        "wall-clock ratio J+non-ensemble / J+aB at m = timing_m_ratio * n, per learner",
        _RATIO_OF_MEANS + f": reproduced when it lies above {mg.FASTER_THAN} (J+aB faster), not "
        "reproduced when it lies below; learners combined as parts (decided both ways -> "
        "partly). Read from the Mean rows: with Median and Trimmed mean the paper's own MEPS "
        "Ridge rows have J+aB slower (0.5 s vs 0.4 s). Wall clock decides; CPU time is the "
        "sensitivity setting 'cpu seconds'. Machine-dependent." + _UNDECIDED,
        ("results/jab/main.csv", "results/jab/jplus.csv"),
        timing=True,
        effect="seconds J+non-ensemble / J+aB",
        title="J+aB takes less time than J+non-ensemble",
    ),
    Claim(
        "jab.fits_o_b",
        "jab",
        "Table 1, Section 3",
        "our method will require only O(B) many calls to R ... the jackknife+ would require a "
        "total of Bn calls to R",
        "J+aB model fits per trial over B, the ensemble size (J+ensemble's fits / n)",
        _POOLED + f"One-sided: reproduced when the pooled J+aB fits / B lies at or below "
        f"{mg.FITS_PER_B} (our bound for O(B): the paper's B-tilde makes E[fits] = "
        "B / (1 - 1/n)^m, at most 4 B for m <= n), not reproduced when it lies above; the "
        "J+ensemble fits (n B) and how many times fewer J+aB fits are reported beside it."
        + _CELLS
        + _UNDECIDED
        + _ACROSS,
        ("results/jab/main.csv",),
        effect="J+aB fits / B",
        title="only O(B) many calls to R, against Bn",
    ),
    Claim(
        "jab.aggregation_robust",
        "jab",
        "Appendix D.2, Figures S1-S4",
        "For the data sets and the base regression methods we looked at, Median or Trimmed mean "
        "did not behave much differently from Mean",
        "coverage difference and width ratio of each other aggregation against Mean (J+aB and "
        "J+ensemble), pooled per trial",
        _POOLED + f"Per other aggregation two equivalence parts against the first (Mean): the "
        f"coverage difference within +-{mg.AGG_COVERAGE_TOL} and the width ratio within "
        f"[{mg.AGG_WIDTH[0]}, {mg.AGG_WIDTH[1]}] (our reading of 'not much differently'); all "
        "inside -> reproduced, all wholly outside -> not reproduced, decided both ways -> "
        "partly. Sampling without replacement is its sensitivity setting."
        + _CELLS
        + _UNDECIDED
        + _ACROSS,
        _JAB_IN,
        effect="width ratio other aggregation / Mean",
        title="median and trimmed mean did not behave much differently",
    ),
)
