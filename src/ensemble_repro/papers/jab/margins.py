"""Every margin, band and tolerance a J+aB verdict is decided with: one place.

The claims' rule texts (:mod:`.registry`) are written over these constants and the evaluators
(:mod:`.claims`) decide with them, so the two cannot drift apart. Each constant says where it
comes from: the paper's words, or, marked [I], our reading of them.
"""

from __future__ import annotations

#: jab.coverage: "near the nominal level" read as validity, mean coverage >= 1 - alpha minus
#: this margin [I]; over-coverage is reported beside the verdict, not counted against it.
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
