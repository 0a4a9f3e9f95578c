"""What the cost estimate needs of the knapsack jobs beside their cost functions
(:mod:`.cost`): the kernel family of each unit cost and the modules a job starts with."""

#: Unit cost -> its machine-calibration family.
UNIT_FAMILIES = {"knapsack_pool": "pool", "knapsack_eval": "numeric", "knapsack_mc_draw": "numeric"}
#: What a job imports before its work.
START_MODULES = (f"{__package__}.cells",)
