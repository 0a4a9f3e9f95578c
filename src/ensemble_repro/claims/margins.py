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
# ---------------------------------------------------------------- knapsack (Hajdu et al. 2020)
#: Printed precision of the worked example of section II (4 decimals).
KN_WORKED_TOL = 5e-5
#: Section III: Monte Carlo found the optimum of the adversarial pool in 11% of the
#: simulations, SA in 96%.
KN_PAPER_MC, KN_PAPER_SA = 0.11, 0.96
#: SA - MC success rate the claim needs: half the paper's 85-point gap.
KN_GAP_MARGIN = (KN_PAPER_SA - KN_PAPER_MC) / 2
#: "saves a large amount of search time": at least this share of the evaluations saved ...
KN_SAVED_MIN = 0.5
#: ... "to build accurate ensembles": while losing less than this much best q (non-inferiority
#: margin) against the same search and seed without the rule.
KN_LOSS_MARGIN = 0.005
#: "very competitive with SA": the stochastic search's best q at most this much below SA's.
KN_COMPETITIVE_MARGIN = 0.005
#: "independent of the initial conditions": SA's best q from the greedy start within +- this
#: of its best q from the empty start.
KN_INIT_MARGIN = 0.005
#: "solid estimation power": the independence model's q within +- this of the held-out
#: majority-vote accuracy.
KN_INDEPENDENCE_MARGIN = 0.02
#: Bootstrap resamples of test rows (independence claim) and the seed offset they use.
KN_BOOTSTRAP = 2000
#: Cells whose optimum reaches this q (or holds the whole pool) are saturated: every search
#: ties there, so they are left out of the search claims.
KN_SATURATED = 0.999
#: Lemma IV.1 / Fig. 1: at the largest size drawn, E[q_l] within this of its limit and
#: Var[q_l] within KN_LEMMA_VAR_TOL of its limit, each approached monotonically over the last
#: KN_LEMMA_TAIL sizes.
KN_LEMMA_MEAN_TOL = 0.02
KN_LEMMA_VAR_TOL = 0.002
KN_LEMMA_TAIL = 10
#: Propositions II.1-4: a greedy error within this of 1/2 counts as reaching the bound.
KN_PROP_TOL = 0.05
#: Eq. (33) "slightly too large": its size estimate above the sizes that fit, by at most this
#: factor (1.5 = up to 50% larger).
KN_SLIGHT_FACTOR = 1.5
#: "Beta distributions fit practical problems very well": the goodness-of-fit test's level.
KN_GOF_LEVEL = 0.05

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
