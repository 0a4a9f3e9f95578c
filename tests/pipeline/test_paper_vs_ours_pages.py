"""A paper's numbers page (results/<paper>/paper_vs_ours.md) shows its verdicts as the rows of
its claims table: change a row and the page changes with it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from workflow_helpers import REPO, merged_config

from ensemble_repro.claims.render import PAGE_COLUMNS
from ensemble_repro.claims.table import claim_row, claims_frame
from ensemble_repro.io import write_csv
from ensemble_repro.papers.knapsack import cells as kx
from ensemble_repro.papers.qwyc import report as qwyc_report

SMOKE = merged_config(REPO / "config" / "smoke.yaml")


def _claims(path, claim_id: str, verdict: str, ours: str) -> None:
    row = claim_row(
        claim_id, "adult", ours=ours, verdict=verdict, interval="[1.2, 3.4]", n_repeats=7
    )
    write_csv(claims_frame([row], scale="smoke", made_on="2026-12-07"), path)


def _row_line(path) -> str:
    """The page line of the claims table's one row, as the page renders it."""
    row = pd.read_csv(path, keep_default_na=False).iloc[0]
    return "| " + " | ".join(str(row[c]) for c in PAGE_COLUMNS) + " |"


def _qwyc_page(tmp_path, claims) -> str:
    table = pd.DataFrame({"dataset": ["adult"], "setting": ["main"], "item": ["x"]})
    page = tmp_path / "qwyc_page.md"
    qwyc_report.write_paper_vs_ours(table, claims, page, SMOKE["qwyc"])
    return page.read_text()


@pytest.fixture(scope="module")
def knapsack_inputs(tmp_path_factory):
    """The worked example, adversarial rates and summary tables of a tiny knapsack run."""
    d = tmp_path_factory.mktemp("knapsack")
    cfg = SMOKE["knapsack"]
    kx.worked_example().to_csv(d / "worked.csv", index=False)
    small = {**cfg, "adversarial": {**cfg["adversarial"], "n_seeds": 2, "sizes": [6]}}
    _, rates = kx.adversarial(small, seed=0)
    rates.to_csv(d / "rates.csv", index=False)
    rng = np.random.default_rng(0)
    runs, _ = kx.selection_cell(rng.beta(8, 4, 12), rng.exponential(1, 12), 3, cfg, [0, 1])
    runs.insert(0, "pool", "syn")
    tables = kx.summary_tables(runs, [], seed=0, beta_fit="moments")
    return d / "worked.csv", d / "rates.csv", tables, cfg


def _knapsack_page(knapsack_inputs, claims) -> str:
    worked, rates, tables, cfg = knapsack_inputs
    return kx.paper_vs_ours_text(claims, worked, rates, tables, cfg)


@pytest.mark.parametrize(
    ("render", "claim_id"),
    [
        (lambda tmp, inputs, claims: _qwyc_page(tmp, claims), "qwyc.faster_than_fan"),
        (lambda tmp, inputs, claims: _knapsack_page(inputs, claims), "knapsack.mc_vs_sa"),
    ],
    ids=["qwyc", "knapsack"],
)
def test_page_shows_the_claims_rows_as_they_are(tmp_path, knapsack_inputs, render, claim_id):
    claims = tmp_path / "claims.csv"
    _claims(claims, claim_id, "reproduced", "1.9x faster (effect)")
    first = render(tmp_path, knapsack_inputs, claims)
    assert _row_line(claims) in first.splitlines()
    assert "| 1.9x faster (effect) | [1.2, 3.4] | 7 |" in first
    # another verdict and effect in the claims row: the page follows, the old ones are gone
    _claims(claims, claim_id, "not reproduced", "0.7x slower (effect)")
    second = render(tmp_path, knapsack_inputs, claims)
    assert _row_line(claims) in second.splitlines()
    assert "| not reproduced | 0.7x slower (effect) |" in second
    assert "1.9x faster" not in second and "| reproduced |" not in second
