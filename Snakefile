# ensemble-repro: regenerates the figures and wall-clock tables of
#   Kim, Xu & Barber (2020) Jackknife+-after-bootstrap          -> results/jab/
#   Wang, Gupta & You (2018) Quit When You Can                   -> results/qwyc/
#   Hajdu et al. (2020) stochastic knapsack ensemble selection  -> results/knapsack/
# Usage: snakemake --cores N [--configfile config/quick.yaml]; see README.md.

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"


rule all:
    input:
        all_targets,
    default_target: True


include: "workflow/rules/data.smk"
include: "workflow/rules/jab.smk"
include: "workflow/rules/qwyc.smk"
include: "workflow/rules/knapsack.smk"
include: "workflow/rules/report.smk"


# Cost estimate (and, on SLURM, the cluster check) before any job: workflow/rules/common.smk.
start_of_run()
