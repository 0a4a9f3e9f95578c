# Two entry points (see README.md): `make reproduce CORES=4 [MIRROR=<dir>] [CONFIG=...]`
# and `make test`. Both create .venv with the package, its workflow layer and the test tools on
# first use (and the hook making Snakemake read config files as data only:
# ensemble_repro.snakemake_guard); `make lint` adds the lint tools.

PYTHON ?= python3
VENV   ?= .venv
CORES  ?= 2
CONFIG ?= config/config.yaml
# The raw-data mirror: a sibling ../shared/data when there is one (checked against its
# MANIFEST.tsv before use), else the official sites.
MIRROR ?= $(if $(wildcard ../shared/data/MANIFEST.tsv),../shared/data,)
# The run of record (`make record`, `make record-resume`, `make record-readme`; README.md).
RECORD  ?= record/paper
RESULTS ?= results
SLICE   ?= all
NOTES   ?=
REPLACE ?=
# The built-in papers: the packages under src/ensemble_repro/papers/ (ensemble_repro.paper_loader).
BUILTIN_PAPERS := $(sort $(patsubst src/ensemble_repro/papers/%/__init__.py,%,$(wildcard src/ensemble_repro/papers/*/__init__.py)))
PAPER  ?=
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LINT_STAMP := $(VENV)/.installed-lint
DOCS_STAMP := $(VENV)/.installed-docs
DIST_STAMP := $(VENV)/.installed-dist
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check

# absolute, so that runs and tests in other directories find it too
export ENSEMBLE_REPRO_MIRROR := $(if $(MIRROR),$(abspath $(MIRROR)),)

.PHONY: reproduce report test unit lint format docs dist check-config config-readme readme-cost dry-run estimate clean-results paper $(BUILTIN_PAPERS) figures data knapsack-costs record record-resume record-readme record-report

$(STAMP): pyproject.toml src/ensemble_repro/snakemake_guard.py
	@echo "creating $(VENV) and installing ensemble-repro[workflow,test] (a few minutes the first time)"
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) -e ".[workflow,test]"
	$(BIN)/python -c "import ensemble_repro.snakemake_guard as g; print('installed', g.install())"
	touch $(STAMP)

$(LINT_STAMP): $(STAMP)
	@echo "installing the lint tools (ensemble-repro[lint])"
	$(PIP) -e ".[workflow,test,lint]"
	touch $(LINT_STAMP)

## Run the whole pipeline, then build the HTML report.
reproduce: check-config
	$(BIN)/snakemake --cores $(CORES) --configfile $(CONFIG) --workflow-profile workflow/profiles/default
	$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report results/report.html

## One paper's outputs and verdicts (`make paper PAPER=<key>`, a plug-in's key too, or
## `make <key>` for a built-in paper), every figure, or the prepared data sets.
paper: check-config
	@test -n "$(PAPER)" || { echo "make paper needs PAPER=<key>: one of $(BUILTIN_PAPERS), or the key of a plug-in CONFIG names" >&2; exit 2; }
	$(BIN)/snakemake --cores $(CORES) $(PAPER) --configfile $(CONFIG) --workflow-profile workflow/profiles/default

$(BUILTIN_PAPERS) figures data: check-config
	$(BIN)/snakemake --cores $(CORES) $@ --configfile $(CONFIG) --workflow-profile workflow/profiles/default

## Measure the knapsack pools' training times (one core, pool_timing_repeats fits per member)
## and write them into config/knapsack_costs/ (commit them): runs read them, never re-measure.
knapsack-costs: check-config
	$(BIN)/snakemake --cores 1 knapsack_costs --forcerun knapsack_measure_costs --configfile $(CONFIG) --workflow-profile workflow/profiles/default

report: check-config
	$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report results/report.html

## Check CONFIG, an overlay on config/config.yaml (the file exists, YAML syntax with file and
## line, schema, cross-field rules), without running; every target that passes CONFIG to
## Snakemake runs it first (all of its messages before Snakemake starts).
check-config: $(STAMP)
	$(BIN)/python -m ensemble_repro.config $(CONFIG)

## Rewrite README.md's cost table (between its markers) from the estimate of the three configs.
readme-cost: $(STAMP)
	$(BIN)/python -m ensemble_repro.estimate --readme README.md

## Regenerate config/README.md from the schema's descriptions and the config files' values.
config-readme: $(STAMP)
	$(BIN)/python -m ensemble_repro.config_doc --out config/README.md

## Every tier: unit, workflow (Snakemake runs), slow (full smoke runs) and, as root with SLURM
## up, cluster. Markers: pyproject.toml [tool.pytest.ini_options].
test: $(STAMP)
	$(BIN)/python -m pytest

## No Snakemake run, no cluster, nothing slow. Tests that need the data mirror are skipped, with
## the reason, when it is absent (MIRROR=... or ../shared/data).
unit: $(STAMP)
	$(BIN)/python -m pytest -m "not workflow and not cluster and not slow"

## Linters and format checks (`make format` applies the formatters).
lint: $(LINT_STAMP) check-config
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/snakefmt --check Snakefile workflow/Snakefile workflow/rules
	$(BIN)/snakemake --lint --configfile $(CONFIG)
	$(BIN)/snakemake --lint --snakefile workflow/Snakefile --configfile $(CONFIG)
	$(BIN)/lint-imports --no-cache

format: $(LINT_STAMP)
	$(BIN)/ruff check --select I --fix --quiet .
	$(BIN)/ruff format .
	$(BIN)/snakefmt Snakefile workflow/Snakefile workflow/rules

$(DOCS_STAMP): $(STAMP)
	@echo "installing the docs tools (ensemble-repro[docs])"
	$(PIP) -e ".[workflow,test,docs]"
	touch $(DOCS_STAMP)

$(DIST_STAMP): $(STAMP)
	@echo "installing the packaging tools (ensemble-repro[dist])"
	$(PIP) -e ".[workflow,test,dist]"
	touch $(DIST_STAMP)

## The API reference from the numpydoc docstrings (sources docs/api/) into build/docs/api;
## any Sphinx warning fails the build.
docs: $(DOCS_STAMP)
	rm -rf build/docs/api
	$(BIN)/sphinx-build -W --keep-going -q -b html docs/api build/docs/api
	@echo "API reference: build/docs/api/index.html"

## The sdist and wheel into dist/ (built in an isolated environment), checked by twine.
dist: $(DIST_STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	$(BIN)/twine check --strict dist/*

dry-run: check-config
	$(BIN)/snakemake -n --configfile $(CONFIG)

## Estimated jobs, CPU-hours and wall time of CONFIG on CORES cores and on SLURM (runs nothing).
estimate: check-config
	$(BIN)/python -m ensemble_repro.estimate --config $(CONFIG) --cores $(CORES)

## Compare the result tables of RESULTS with the record RECORD (exit 1 when they differ).
.PHONY: verify
verify: $(STAMP)
	$(BIN)/python -m ensemble_repro.verify $(RESULTS) $(RECORD)

## Publish a run (RESULTS, run with CONFIG on CORES cores) into RECORD: build its report, copy
## its small outputs, write RUN.md (SLICE names the part of the run; REPLACE=1 also deletes the
## slice's files the run no longer has; NOTES=file: the load while it ran).
record: check-config
	$(BIN)/python -m ensemble_repro.record publish $(RESULTS) $(RECORD) --configfile $(CONFIG) \
		--slice $(SLICE) --cores $(CORES) --build-report $(if $(NOTES),--notes $(NOTES)) \
		$(if $(REPLACE),--replace)

## Resume CONFIG's run from RECORD: prepare the data, then restore the record's J+aB cells and
## benchmark files into results/ and `snakemake --touch` the cells (they then do not rerun).
record-resume: check-config
	$(BIN)/snakemake --cores $(CORES) --configfile $(CONFIG) --workflow-profile workflow/profiles/default data
	$(BIN)/python -m ensemble_repro.record restore $(RECORD) results --configfile $(CONFIG)

## Rewrite README.md's paper-scale verdict table (between its markers) from RECORD's claims.csv.
record-readme: $(STAMP)
	$(BIN)/python -m ensemble_repro.record readme $(RECORD)

## Build the Snakemake report of RECORD from its files alone (nothing runs): results/report_of_record.html.
record-report: $(STAMP)
	$(BIN)/python -m ensemble_repro.record report $(RECORD)

clean-results:
	rm -rf results
