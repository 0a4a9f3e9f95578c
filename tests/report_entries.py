"""Every entry the Snakemake report would show, without running the workflow (a helper of
test_report.py, run in its own process: the Snakemake API changes the working directory).

``python tests/report_entries.py WORKDIR CONFIG`` builds the DAG of CONFIG (as a dry run does)
and prints, as JSON, one record per output marked ``report(...)``: its path, rule, category,
labels and caption rendered the way ``snakemake --report`` renders it (Jinja, with the job's
wildcards, params and config).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jinja2
from snakemake.io import is_flagged
from snakemake.script import Snakemake

from ensemble_repro.cost.dag import build_dag, parsed_workflow

REPO = Path(__file__).resolve().parents[1]


def _labels(labels, job) -> dict:
    if callable(labels):
        labels = labels(job.wildcards)
    return {k: str(v) for k, v in (labels or {}).items()}


def entries(workdir: Path, configfile: Path) -> list[dict]:
    out = []
    with parsed_workflow(configfile, workdir, snakefile=REPO / "Snakefile") as wf:
        env = jinja2.Environment()
        for job in build_dag(wf).jobs:
            for f in job.output:
                if not is_flagged(f, "report"):
                    continue
                rep = f.flags["report"]
                caption = ""
                if rep.caption is not None:
                    smk = Snakemake(
                        job.input,
                        job.output,
                        job.params,
                        job.wildcards,
                        job.threads,
                        job.resources,
                        job.log,
                        wf.config,
                        job.rule.name,
                        None,
                    )
                    text = Path(str(rep.caption)).read_text(encoding="utf-8")
                    caption = env.from_string(text).render(snakemake=smk, categories={}, files=[])
                category = rep.category(job.wildcards) if callable(rep.category) else rep.category
                out.append(
                    {
                        "path": str(f),
                        "rule": job.rule.name,
                        "category": str(category),
                        "labels": _labels(rep.labels, job),
                        "caption": caption,
                    }
                )
    return out


if __name__ == "__main__":
    json.dump(entries(Path(sys.argv[1]), Path(sys.argv[2])), sys.stdout)
    print()
