"""Command-line targets: one per paper, one for every figure, and a one-line error for a typo."""

import re

import pytest
from workflow_helpers import run_snakemake

pytestmark = [pytest.mark.slow, pytest.mark.workflow]


def planned_rules(stdout: str) -> set[str]:
    """Rule names of the jobs a dry run with ``--quiet rules`` plans (its job-stats table)."""
    table = stdout.split("Job stats:", 1)[1]
    return {m.group(1) for m in re.finditer(r"^(\w+)\s+\d+\s*$", table, re.M)} - {"total"}


def test_unknown_target_names_the_valid_ones(tmp_path):
    proc = run_snakemake(tmp_path, "-n", "jab_figure")
    assert proc.returncode != 0
    assert (
        "unknown target 'jab_figure': valid targets are all, data, jab, qwyc, knapsack, figures"
        in proc.stdout
    ), proc.stdout
    assert "Traceback" not in proc.stdout


@pytest.mark.parametrize(
    "target, wanted, unwanted",
    [
        ("jab", {"jab_figures", "jab_tables", "jab_claims"}, {"qwyc_model", "knapsack_summary"}),
        (
            "qwyc",
            {"qwyc_figure", "qwyc_timing", "qwyc_claims"},
            {"jab_main_cell", "knapsack_select"},
        ),
        (
            "knapsack",
            {"knapsack_summary", "knapsack_examples", "knapsack_claims"},
            {"jab_main_cell", "qwyc_model"},
        ),
        (
            "figures",
            {"jab_figures", "qwyc_figure", "knapsack_summary"},
            {"qwyc_timing", "jab_tables"},
        ),
    ],
)
def test_paper_and_figure_targets(tmp_path, target, wanted, unwanted):
    proc = run_snakemake(tmp_path, "-n", target, "--quiet", "rules")
    assert proc.returncode == 0, proc.stdout
    rules = planned_rules(proc.stdout)
    assert wanted <= rules, rules
    assert not (unwanted & rules), rules
