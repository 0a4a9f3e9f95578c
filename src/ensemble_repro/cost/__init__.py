"""The parts of the cost estimate (:mod:`ensemble_repro.estimate`).

- :mod:`.dag`: the jobs of a run, as Snakemake's DAG has them;
- :mod:`.units`: the measured unit costs (``unit_costs.csv``);
- :mod:`.pricing`: the cost function of every rule (each lives with its paper's code);
- :mod:`.schedule`: wall time by list scheduling, locally and in SLURM bundles;
- :mod:`.machine`: the unit costs scaled to this machine, and its load.
"""
