# One J+aB grid job (rules jab_main_cell, jab_jplus_cell, jab_fixed_vs_random_cell,
# jab_without_replacement_cell): all trials.
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.io import write_parquet  # noqa: E402
from ensemble_repro.papers.jab.cells import RULE_KINDS, run_job  # noqa: E402

kind = RULE_KINDS[snakemake.rule]
wc, cfg = snakemake.wildcards, snakemake.params.cfg
df = run_job(
    kind,
    snakemake.input.table,
    dataset=wc.jab_data,
    learner=wc.jab_learner,
    jab_cfg=cfg["jab"],
    seed=cfg["seed"],
    m_ratio=float(wc.jab_m) if kind != "jplus" else None,
    n_jobs=snakemake.threads,
)
write_parquet(df, snakemake.output[0])
