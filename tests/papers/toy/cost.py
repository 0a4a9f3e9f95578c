"""CPU time of the toy's jobs: a start-up and the draws (``light_job`` each)."""

from ensemble_repro.cost.basic import light

COSTS = {"toy_experiment": light, "toy_claims": light}
