"""Numeric margins of the claim rules, defined once: the evaluators decide with these and the
registry's rule text is built from them."""

from __future__ import annotations

# ---------------------------------------------------------------- QWYC (Wang, Gupta & You 2018)
#: qwyc.fewer_models: test differences (%) at most this. The paper's ~0.5% operating point of
#: its real-world timing tables (Tables 2-3), carried over to the benchmark data sets.
QWYC_FAITHFUL_PCT = 0.5
#: qwyc.fewer_models: T / mean # models at least this (the low end of "2x-4x").
QWYC_MIN_SPEEDUP = 2.0
#: qwyc.faster_than_fan: per-example time Fan* / QWYC* above this.
QWYC_FASTER_THAN = 1.0
#: qwyc.faster_than_fan: QWYC*'s timing point counts as matched when its test differences are
#: within this factor of the target level.
QWYC_MATCH_FACTOR = 1.5
#: qwyc.fan_vs_algorithm2 and qwyc.more_accurate_than_fan: the difference level (%) at which
#: methods are compared (the paper's ~0.5% operating point, as for qwyc.fewer_models).
QWYC_COMPARE_PCT = QWYC_FAITHFUL_PCT
#: qwyc.fan_vs_algorithm2: "many" orderings = at least this share of the orderings run with
#: both Fan and Algorithm 2.
QWYC_MANY_SHARE = 0.5
#: qwyc.fan_below_smaller: the claim holds when more than this share of the Fan* points is
#: decisively worse than the smaller GBTs, fails when more than this share is decisively not.
QWYC_POINT_SHARE = 0.5
