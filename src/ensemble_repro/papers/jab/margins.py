"""Every margin, band and tolerance a J+aB verdict is decided with: one place.

The claims' rule texts (:mod:`.claim_list`) are written over these constants and the evaluators
(:mod:`.claims`) decide with them, so the two cannot drift apart. Each constant says where it
comes from: the paper's words, or, marked [I], our reading of them.
"""

from __future__ import annotations

from .paper_seconds import paper_range

#: jab.coverage: "near the nominal level" read as mean coverage within 1 - alpha +- this
#: margin [I], two-sided: over-coverage beyond it is as far from nominal as under-coverage.
COVERAGE_MARGIN = 0.05
#: jab.theorem1: Theorem 1 guarantees coverage >= 1 - THEOREM1_FACTOR * alpha.
THEOREM1_FACTOR = 2
#: jab.width_no_winner: width ratios J+aB / J+ensemble treated as "no winner" [I]: within
#: +-10% ("slight variations", Section 5).
EQUAL_WIDTH = (0.9, 1.1)
#: jab.bagging_helps_rf: Ridge "not so" (not narrower) read as a pooled ratio J+aB /
#: J+non-ensemble of at least this [I].
RIDGE_NOT_NARROWER = 0.95
#: jab.bagging_helps_nn: an m/n cell shows no gain when its whole ratio interval lies at or
#: above this [I] (the same 5% as for Ridge).
NO_GAIN = RIDGE_NOT_NARROWER
#: jab.fixed_vs_random_b: "essentially the same" [I]: coverage difference random - fixed within
#: +-FVR_COVERAGE_TOL and width ratio random / fixed within FVR_WIDTH.
FVR_COVERAGE_TOL = 0.02
FVR_WIDTH = (0.95, 1.05)
#: jab.cheaper_than_ensemble: J+ensemble / J+aB seconds above this (J+aB cheaper).
CHEAPER_THAN = 1.0
#: jab.cheaper_than_ensemble, its magnitude: the smallest and largest J+ensemble / J+aB ratio
#: of mean seconds in the paper's Tables S1-S2 (every learner and aggregation; 5.4x, MEPS
#: Ridge trimmed mean, to 29.3x, MEPS NN mean). One band for all learners [I]: two data sets
#: per learner are too few to bound each learner's ratio on other hardware.
PAPER_ENSEMBLE_RATIO = tuple(round(x, 1) for x in paper_range(1))
#: jab.faster_than_non_ensemble: J+non-ensemble / J+aB seconds above this (J+aB faster).
FASTER_THAN = 1.0
#: jab.aggregation_robust: Median and Trimmed mean "did not behave much differently" from
#: Mean [I]: the coverage difference within +-AGG_COVERAGE_TOL, the width ratio within
#: AGG_WIDTH (the same bands as "essentially the same", fixed vs random B).
AGG_COVERAGE_TOL = FVR_COVERAGE_TOL
AGG_WIDTH = FVR_WIDTH
#: jab.fits_o_b: J+aB's model fits are O(B) (Table 1): at most this many times B, the
#: ensemble's size (J+ensemble's fits / n). The paper's B-tilde matched per leave-one-out set
#: makes E[fits] = B / (1 - 1/n)^m, at most 4 B for every m <= n and n >= 2.
FITS_PER_B = 4.0
