"""results/README.md and results/paper_vs_ours.md generation, and what the Snakemake report
shows."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from workflow_helpers import SMOKE, workflow_env

from ensemble_repro.claims.table import claim_row, claims_frame
from ensemble_repro.io import write_csv
from ensemble_repro.provenance import write_provenance
from ensemble_repro.report import OutputPattern, build_index, caption_title, result_files


def test_caption_title_takes_heading_or_first_sentence(tmp_path):
    a = tmp_path / "a.rst"
    a.write_text("Figure 3 of X\n============\n\nBody.\n")
    b = tmp_path / "b.rst"
    b.write_text(
        "\nRegenerates Table 2 of Kim et al. (2020) with {{ snakemake.config['n'] }} trials.\nMore. Text.\n"
    )
    assert caption_title(a) == "Figure 3 of X"
    assert caption_title(b) == "Regenerates Table 2 of Kim et al. (2020) with … trials."
    assert caption_title(tmp_path / "missing.rst") == ""


def test_index_lists_every_file_with_rule_caption_and_provenance(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cap = tmp_path / "cap.rst"
    cap.write_text("Table S2 of the paper\n=====================\n")
    write_csv(pd.DataFrame({"a": [1]}), "results/jab/tables/S2.csv")
    prep = tmp_path / "results" / "data" / "blog.json"
    prep.parent.mkdir(parents=True)
    prep.write_text('{"name": "blog", "sources": {"blogData_train.csv": "f3cc953ea9913361"}}')
    write_provenance("results/jab/tables/S2.csv", config={"alpha": 0.1}, seed=7, inputs=[prep])
    (tmp_path / "results" / "jab" / "tables" / "S2.md").write_text("| a |\n")  # shares the sidecar
    (tmp_path / "results" / "logs").mkdir()
    (tmp_path / "results" / "logs" / "x.log").write_text("log")
    (tmp_path / "results" / "jab" / "tables" / ".S2.csv.tmp").write_text("partial")
    pvo = tmp_path / "results" / "jab" / "paper_vs_ours.md"
    pvo.write_text("# J+aB paper vs ours\n\n| claim | ours |\n|---|---|\n| coverage 0.9 | 0.91 |\n")
    patterns = [
        OutputPattern("jab_tables", "results/jab/tables/{table}.csv", str(cap)),
        OutputPattern(
            "prepare", "results/data/{name}.json", None, "One tidy table\n    per set | sidecar."
        ),
    ]
    # the verdicts' scales: a paper run now, one kept from an earlier run
    row = claim_row(
        "jab.coverage", "blog", ours="x", verdict="reproduced", interval="", n_repeats=1
    )
    made = [
        claims_frame([row], scale=s, made_on=d)
        for s, d in (("quick", "2026-12-01"), ("smoke", "2026-12-02"))
    ]
    write_csv(pd.concat(made), "results/claims.csv")
    build_index("results", patterns, {"jab": str(pvo)}, "results/README.md")
    text = (tmp_path / "results" / "README.md").read_text()
    assert (
        "| `jab/tables/S2.csv` | Table S2 of the paper | `jab_tables` | seed 7; "
        "data blogData_train.csv f3cc953ea991…" in text
    )
    # a multi-line docstring is one cell, its pipe escaped: every table row keeps its 4 cells
    assert "| `data/blog.json` | One tidy table per set \\| sidecar. | `prepare` |" in text
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows and all(len(re.findall(r"(?<!\\)\|", line)) == 5 for line in rows), rows
    assert "| `jab/tables/S2.provenance.json` | provenance of `S2.csv` | `jab_tables` |" in text
    assert "| coverage 0.9 | 0.91 |" in text
    assert "x.log" not in text and ".S2.csv.tmp" not in text
    assert "(made at: quick scale, 2026-12-01; smoke scale, 2026-12-02)." in text
    files = [p.name for p in result_files("results")]
    assert "README.md" not in files and "S2.provenance.json" in files


def test_provenance_sidecar_holds_config_seed_checksums_and_versions(tmp_path):
    import json

    import numpy
    import scipy
    import sklearn

    from ensemble_repro import __version__

    prep = tmp_path / "blog.json"
    prep.write_text('{"name": "blog", "sources": {"blogData_train.csv": "f3cc953ea9913361"}}')
    side = write_provenance(
        tmp_path / "main.csv", config={"alpha": 0.1, "n": 40}, seed=11, inputs=[prep]
    )
    assert side.name == "main.provenance.json"
    meta = json.loads(side.read_text())
    assert meta["config"] == {"alpha": 0.1, "n": 40} and meta["seed"] == 11
    assert meta["raw_data_sha256"] == {"blog": {"blogData_train.csv": "f3cc953ea9913361"}}
    sw = meta["software"]
    assert (sw["numpy"], sw["scipy"], sw["scikit-learn"], sw["ensemble_repro"]) == (
        numpy.__version__,
        scipy.__version__,
        sklearn.__version__,
        __version__,
    )
    assert {"python", "numba"} <= set(sw)
    first = side.read_bytes()
    write_provenance(tmp_path / "main.csv", config={"alpha": 0.1, "n": 40}, seed=11, inputs=[prep])
    assert side.read_bytes() == first  # nothing time- or machine-dependent


@pytest.fixture(scope="module")
def report_entries(tmp_path_factory):
    """Every entry ``snakemake --report`` would show for the smoke config, captions rendered
    (tests/report_entries.py builds the DAG in its own process)."""
    helper = Path(__file__).resolve().parents[1] / "report_entries.py"
    workdir = tmp_path_factory.mktemp("report")
    proc = subprocess.run(
        [sys.executable, str(helper), str(workdir), str(SMOKE)],
        env=workflow_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.workflow
def test_report_shows_tables_as_html_and_each_figure_with_its_own_labels(report_entries):
    paths = {e["path"] for e in report_entries}
    # no table only as a download: a CSV entry needs its HTML rendering beside it
    for e in report_entries:
        if e["path"].endswith(".csv"):
            html = "results/html/" + e["path"].removeprefix("results/").removesuffix(".csv")
            assert html + ".html" in paths, f"{e['path']} ({e['rule']}) has no HTML rendering"
    # every paper: tables and verdicts only as HTML, no CSV / Markdown download in the report
    downloads = [
        e["path"]
        for e in report_entries
        if e["path"].endswith((".csv", ".md")) and e["rule"] != "results_index"  # the file guide
    ]
    assert not downloads, downloads
    jab = [e for e in report_entries if e["rule"].startswith("jab_")]
    assert "results/html/jab/tables/table_S3_communities.html" in paths
    # each J+aB figure: one entry whose labels name that paper figure and differ from the rest
    figures = [e for e in jab if e["path"].endswith((".png", ".pdf", ".svg"))]
    assert len(figures) == 12
    for e in figures:
        fid = re.search(r"figure_(\w+)\.png$", e["path"]).group(1)
        assert e["labels"]["figure"] == f"Figure {fid}", e
        assert e["caption"].startswith("A figure of Kim, Xu & Barber (2020)"), e
        # the grid the smoke config draws (1 data set x 2 learners), not the paper's 3 x 3
        assert "A 1 × 2 grid" in e["caption"] and "(communities)" in e["caption"], e
    assert len({e["labels"]["shows"] for e in figures}) == len(figures)
    # each table: one entry labelled with its name, under its own caption where it has one
    tables = {
        e["labels"]["table"]: e["caption"] for e in report_entries if e["rule"] == "table_html"
    }
    assert {f"results/html/{t}.html" for t in tables} <= paths
    assert tables["qwyc/adult/timing"].startswith("Timing table in the style of Tables 2-4"), tables
    assert tables["knapsack/stopping_levels"] == tables["knapsack/stopping_savings"]
    assert tables["knapsack/selection_summary"].startswith("Knapsack ensemble selection (Hajdu")
    assert tables["jab/tables/table_S3_communities"].startswith("A result table rendered as HTML")
    # every paper: no two figure entries alike in caption and labels both
    shown = [
        (e["caption"], json.dumps(e["labels"], sort_keys=True))
        for e in report_entries
        if e["path"].endswith((".png", ".pdf", ".svg"))
    ]
    assert len(set(shown)) == len(shown)
