"""Every margin, band and tolerance a verdict is decided with: one place.

The registry's rule texts (:mod:`ensemble_repro.claims.registry`) are written over these
constants and the evaluators decide with them, so the two cannot drift apart. Each constant
says where it comes from: the paper's words, or, marked [I], our reading of them.
"""

from __future__ import annotations

# --- Jackknife+-after-bootstrap (Kim, Xu & Barber 2020) -------------------------------------
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

# --- Quit When You Can (Wang, Gupta & You 2018) --------------------------------------------
#: qwyc.fewer_models: test differences (%) at most this: the paper's ~0.5% operating point of its
#: real-world timing tables (Tables 2-3), carried over to the benchmark data sets [I].
QWYC_FAITHFUL_PCT = 0.5
#: qwyc.fewer_models: T / mean # models at least this (the low end of the abstract's "2x-4x").
QWYC_MIN_SPEEDUP = 2.0
#: qwyc.faster_than_fan: per-example time Fan* / QWYC* above this ("faster").
QWYC_FASTER_THAN = 1.0
#: qwyc.faster_than_fan: QWYC*'s timing point counts as matched when its test differences are
#: within this factor of the target level [I].
QWYC_MATCH_FACTOR = 1.5
#: qwyc.fan_vs_algorithm2 and qwyc.more_accurate_than_fan: the difference level (%) at which the
#: methods are compared, the same ~0.5% operating point [I].
QWYC_COMPARE_PCT = QWYC_FAITHFUL_PCT
#: qwyc.fan_vs_algorithm2: "many" orderings read as at least this share of the orderings run
#: with both Fan and Algorithm 2 [I].
QWYC_MANY_SHARE = 0.5
#: qwyc.fan_below_smaller: the claim holds when more than this share of the Fan* points is
#: decisively worse than the smaller GBTs, fails when more than this share is decisively not [I].
QWYC_POINT_SHARE = 0.5
