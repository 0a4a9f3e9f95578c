"""Every margin, band and tolerance a knapsack verdict is decided with: one place.

The claims' rule texts (:mod:`.claim_list`) are written over these constants and the evaluators
(:mod:`.claims`) decide with them, so the two cannot drift apart. Each constant says where it
comes from: the paper's words, or, marked [I], our reading of them.
"""

from __future__ import annotations

#: Printed precision of the worked example of section II (4 decimals).
KN_WORKED_TOL = 5e-5
#: Section III: Monte Carlo found the optimum of the adversarial pool in 11% of the
#: simulations, SA in 96%.
KN_PAPER_MC, KN_PAPER_SA = 0.11, 0.96
#: SA - MC success rate the claim needs: half the paper's 85-point gap.
KN_GAP_MARGIN = (KN_PAPER_SA - KN_PAPER_MC) / 2
#: [I] The paper gives neither the pool size nor the budget of its MC and SA runs: a reading
#: (MC sampler, SA move set) produces the paper's pair when at one pool size and budget both
#: its rates lie within this of 11% and 96%.
KN_READING_TOL = 0.05
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
#: A Beta law not rejected counts as a fit only when the test had at least this power against
#: the two-point alternative (:mod:`ensemble_repro.knapsack.beta_gof`).
KN_GOF_POWER = 0.8
#: [I] Parametric-bootstrap draws of the goodness-of-fit null; power replicates (each with
#: KN_GOF_POWER_DRAWS null draws); pool sizes tried (multiples of the pool's) for the members
#: that would reach KN_GOF_POWER.
KN_GOF_DRAWS = 999
KN_GOF_POWER_REPS = 100
KN_GOF_POWER_DRAWS = 199
KN_GOF_SIZE_MULTIPLES = (2, 4, 8, 16)
#: [I] "SA is close to the global extremum": SA's best q at most this far below the optimum.
KN_NEAR_GLOBAL = 0.005
#: Exact computations (Lemma I.1, backward selection on small pools) agree within this.
KN_EXACT_TOL = 1e-12
#: [I] Eq. (29)'s MAXSTEP is "too small" when more than this share of stochastic-search runs
#: on small pools stop before they reach the optimum.
KN_MAXSTEP_MISS = 0.05
