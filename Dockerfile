# The image every rule can run in (`snakemake --sdm apptainer`, docs/deploy.md): Python 3.11 with
# the package and its workflow layer (pyproject.toml's `workflow` extra: the library, the
# pipeline and plotting stacks of envs/library.yaml and envs/report.yaml, Snakemake).
#   docker build -t ensemble-repro:latest .
#   apptainer build ensemble-repro.sif docker-daemon://ensemble-repro:latest
#   ENSEMBLE_REPRO_CONTAINER=ensemble-repro.sif snakemake --cores 4 --sdm apptainer ...
FROM python:3.11-slim
COPY pyproject.toml README.md LICENSE /opt/ensemble-repro/
COPY src /opt/ensemble-repro/src
# then the guard that makes Snakemake read config files as data (ensemble_repro.snakemake_guard)
RUN pip install --no-cache-dir "/opt/ensemble-repro[workflow]" && rm -rf /opt/ensemble-repro \
    && python -c "import ensemble_repro.snakemake_guard as g; g.install()"
# numba's compile cache and the timing kernels go to a writable place inside the job's folder
ENV NUMBA_CACHE_DIR=/tmp/numba-cache
WORKDIR /work
