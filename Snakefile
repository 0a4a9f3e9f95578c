# ensemble-repro: regenerates the figures and wall-clock tables of
#   Kim, Xu & Barber (2020) Jackknife+-after-bootstrap          -> results/jab/
#   Wang, Gupta & You (2018) Quit When You Can                   -> results/qwyc/
#   Hajdu et al. (2020) stochastic knapsack ensemble selection  -> results/knapsack/
# Usage: snakemake --cores N [--configfile config/quick.yaml]; see README.md.

import os
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version

min_version("9.0")

# This checkout: every file the workflow ships (configs, measured costs, profiles) is read from
# here, never from the run directory, so that a deploying workflow (module use,
# workflow/Snakefile) needs only its own config/config.yaml. workflow.basedir would be the
# deploying Snakefile's folder there.
REPO = Path(workflow.current_basedir.get_path_or_uri(secret_free=True)).resolve()

try:
    from ensemble_repro.config import (
        BASE_CONFIG,
        CONTAINER_ENV,
        ConfigError,
        base_config,
        load_yaml_file,
    )
except ModuleNotFoundError as err:
    raise WorkflowError(
        f"The workflow needs the ensemble-repro package in the Python that runs Snakemake "
        f"({err}). Install it with its workflow layer from this checkout: "
        f"pip install '{REPO}[workflow]' "
        f"(or `make reproduce`, which makes .venv with it)."
    ) from None

# The base config: the run directory's config/config.yaml, else the one beside this Snakefile.
# Each --configfile (config/quick.yaml, config/smoke.yaml, yours) is an overlay merged on top.
BASE = str(base_config(".", fallback=REPO / BASE_CONFIG))

# Snakemake's own message for a config file it cannot parse names neither file nor line.
try:
    load_yaml_file(BASE)
except ConfigError as err:
    raise WorkflowError(str(err)) from None


configfile: BASE


# The image for `--sdm apptainer` (built from the Dockerfile; docs/deploy.md), when named.
container: os.environ.get(CONTAINER_ENV) or None


# The report's front page: what the workflow does and the verdict summary.
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


rule all:
    default_target: True
    input:
        all_targets,


include: "workflow/rules/data.smk"


# Each paper's rules (a built-in paper's in workflow/rules/<key>.smk, a plug-in's in its folder).
for _paper in PAPERS.values():

    include: _paper.rules


include: "workflow/rules/claims.smk"
include: "workflow/rules/report.smk"


# Targets by paper (`snakemake --cores N <key>`, `make <key> CONFIG=...`): each paper's final
# outputs and its verdict rows.
for _paper in PAPERS.values():

    rule:
        name:
            _paper.key
        input:
            paper_targets(_paper.key),
            _paper.claims_csv,


rule figures:
    """Every figure (PDF + PNG) of the papers switched on."""
    input:
        figure_targets(),


check_targets(TARGET_RULES)

# Cost estimate (and, on SLURM, the cluster check) before any job: workflow/rules/common.smk.
start_of_run()
