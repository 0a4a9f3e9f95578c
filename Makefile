# Two entry points (see README.md): `make reproduce CORES=4 [MIRROR=../shared/data] [CONFIG=...]`
# and `make test`. Both create .venv with the package and its dependencies on first use.

PYTHON ?= python3
VENV   ?= .venv
CORES  ?= 2
CONFIG ?= config/config.yaml
MIRROR ?=
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

export ENSEMBLE_REPRO_MIRROR := $(MIRROR)

.PHONY: reproduce report test lint dry-run estimate clean-results

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip >/dev/null
	$(BIN)/python -m pip install -e ".[test]"
	touch $(STAMP)

## Run the whole pipeline, then build the HTML report.
reproduce: $(STAMP)
	$(BIN)/snakemake --cores $(CORES) --configfile $(CONFIG) --workflow-profile workflow/profiles/default
	$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report results/report.html

report: $(STAMP)
	$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report results/report.html

## Unit tests, end-to-end smoke runs, and (as root with SLURM up) the cluster tests.
test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/snakemake --lint --configfile $(CONFIG)

dry-run: $(STAMP)
	$(BIN)/snakemake -n --configfile $(CONFIG)

## Estimated jobs, CPU-hours and wall time of CONFIG on CORES cores and on SLURM (runs nothing).
estimate: $(STAMP)
	$(BIN)/python -m ensemble_repro.estimate --config $(CONFIG) --cores $(CORES)

clean-results:
	rm -rf results
