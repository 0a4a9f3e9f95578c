"""Rendering of claims rows: forest plot panels and lists, scale banners, fragile counts, the
report's captions and front page."""

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pandas as pd
import pytest

from ensemble_repro.claims import forest
from ensemble_repro.claims.build import write_verdicts
from ensemble_repro.claims.claim import PAPER_RECORD
from ensemble_repro.claims.render import summary, summary_rst, verdict_html, verdict_markdown
from ensemble_repro.claims.rules import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    REPRODUCED,
    Interval,
)
from ensemble_repro.claims.table import claim_row, claims_frame, untestable
from ensemble_repro.config import load_config
from ensemble_repro.io import write_csv
from ensemble_repro.paper_loader import CLAIMS, PAPERS

REPO = Path(__file__).resolve().parents[2]


def _iv(estimate: float) -> Interval:
    return Interval(estimate, estimate - 0.01, estimate + 0.01, "t 95%", 20)


def knapsack_rows() -> list[dict]:
    """A knapsack claims table in small: rows with an effect (one fragile), rows decided
    without one (exact computation, a goodness-of-fit test) and rows not testable here."""
    return [
        claim_row(
            "knapsack.ss_competitive",
            "sonar",
            ours="-0.001",
            verdict=REPRODUCED,
            effect=_iv(-0.001),
            band=(-0.005, float("inf")),
            n_repeats=20,
            robust_to="2 of 3 settings (flips under: cost_flops)",
        ),
        claim_row(
            "knapsack.ss_competitive",
            "german",
            ours="-0.002",
            verdict=REPRODUCED,
            effect=_iv(-0.002),
            band=(-0.005, float("inf")),
            n_repeats=20,
        ),
        claim_row(
            "knapsack.independence",
            "sonar",
            ours="+0.12",
            verdict=NOT_REPRODUCED,
            effect=_iv(0.12),
            band=(-0.02, 0.02),
            n_repeats=52,
            cell="SA's ensemble",
        ),
        claim_row("knapsack.worked_example", "worked example", ours="q1 0.51", verdict=REPRODUCED),
        claim_row("knapsack.lemma_iv1", "Fig. 1 laws", ours="E[q] 1", verdict=REPRODUCED),
        claim_row("knapsack.beta_fit", "wdbc", ours="p = 0.009", verdict=NOT_REPRODUCED),
        untestable("knapsack.stopping_saves", "wdbc", "every cell saturated"),
        untestable("knapsack.kaggle", "Kaggle challenges", "leaderboards not downloaded"),
    ]


def frame(rows, scale="smoke"):
    return claims_frame(rows, scale=scale, made_on="2026-12-07")


# ------------------------------------------------------------------ forest plots
def test_every_claim_names_its_quantity_and_a_title_in_the_papers_words():
    for c in CLAIMS.values():
        assert c.effect and c.effect != "effect", c.id
        assert c.title, c.id
        assert forest.panel_title(c.id).startswith(f"\u201c{c.title}\u201d ({c.item})")


def test_forest_lists_rows_without_an_effect_apart_from_untestable_ones():
    lists = dict(forest.unplotted(frame(knapsack_rows())))
    assert list(lists) == [forest.NO_EFFECT, forest.UNTESTED]
    assert lists[forest.UNTESTED] == [
        "knapsack.stopping_saves (wdbc)",
        "knapsack.kaggle (Kaggle challenges)",
    ]
    assert lists[forest.NO_EFFECT] == [
        "knapsack.worked_example (worked example): reproduced",
        "knapsack.lemma_iv1 (Fig. 1 laws): reproduced",
        "knapsack.beta_fit (wdbc): not reproduced",
    ]
    # a table with only plotted and decided rows has no "not testable" list at all
    decided = [r for r in knapsack_rows() if r["verdict"] != NOT_TESTABLE]
    assert [head for head, _ in forest.unplotted(frame(decided))] == [forest.NO_EFFECT]


def test_forest_draws_rows_with_an_effect_labelled_with_the_claims_quantity(tmp_path):
    png = tmp_path / "forest_knapsack.png"
    drawn = forest.forest_plot(frame(knapsack_rows()), "knapsack", tmp_path / "f.pdf", png)
    assert list(zip(drawn["claim_id"], drawn["dataset"], strict=True)) == [
        ("knapsack.ss_competitive", "sonar"),
        ("knapsack.ss_competitive", "german"),
        ("knapsack.independence", "sonar"),
    ]
    assert png.stat().st_size > 10_000
    row = next(frame(knapsack_rows()).iloc[[2]].itertuples())
    assert forest._margin(row) == "SA's ensemble; n = 52"


def test_forest_refuses_a_claim_with_an_effect_but_no_effect_text(tmp_path, monkeypatch):
    bare = dataclasses.replace(CLAIMS["knapsack.ss_competitive"], effect="")
    monkeypatch.setitem(forest.CLAIMS, bare.id, bare)
    with pytest.raises(ValueError, match=r"\['knapsack.ss_competitive'\].*effect="):
        forest.forest_plot(
            frame(knapsack_rows()), "knapsack", tmp_path / "f.pdf", tmp_path / "f.png"
        )


# ------------------------------------------------------------------ banners and counts
@pytest.mark.parametrize("scale", ["smoke", "quick", "custom (smoke; changed: seed)"])
def test_pages_below_paper_scale_open_with_a_banner_pointing_to_the_record(tmp_path, scale):
    df = frame(knapsack_rows(), scale=scale)
    md = verdict_markdown(df, record="../record/paper")
    first = md.splitlines()[2]
    assert first.startswith(f"> **{scale[0].upper()}{scale[1:]} scale:"), first
    assert "decide nothing about the papers" in first
    assert f"[{PAPER_RECORD}/](../record/paper/)" in first
    assert "decide nothing about the papers" in verdict_html(df).split("<h2>")[0]
    rst = summary_rst(df)
    assert rst.startswith(f"**{scale[0].upper()}") and "decide nothing" in rst.split("\n")[0]


def test_paper_scale_pages_say_so_and_mixed_pages_flag_the_smaller_rows():
    paper = verdict_markdown(frame(knapsack_rows(), scale="paper")).splitlines()[2]
    assert paper.startswith("> **Paper scale:") and "decide nothing" not in paper
    mixed = pd.concat(
        [frame(knapsack_rows()[:3], scale="paper"), frame(knapsack_rows()[3:], scale="smoke")]
    )
    banner = summary_rst(mixed).splitlines()[0]
    assert banner.startswith("**Paper and smoke scale:")
    assert "the rows not made at paper scale (see where each was made) decide nothing" in banner


def test_verdict_page_links_the_record_relative_to_itself(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    claims = Path("results/knapsack/claims.csv")
    write_csv(frame(knapsack_rows()), claims)
    out = Path("results")
    write_verdicts(
        {"knapsack": claims},
        out / "claims.csv",
        out / "paper_vs_ours.md",
        out / "paper_vs_ours.html",
        out / "claims_summary.rst",
    )
    head = (out / "paper_vs_ours.md").read_text().splitlines()[2]
    assert f"[{PAPER_RECORD}/](../{PAPER_RECORD}/)" in head


def test_summaries_count_fragile_verdicts():
    rows = knapsack_rows() + [
        claim_row(
            "knapsack.independence",
            "german",
            ours="+0.01",
            verdict=INCONCLUSIVE,
            effect=_iv(0.01),
            band=(-0.02, 0.02),
            repeats_needed="about 400 test rows",
            robust_to="0 of 1 settings (flips under: cost_flops)",
        )
    ]
    s = summary(frame(rows)).iloc[0]
    assert s[REPRODUCED] == "4 (1 fragile)"
    assert s[INCONCLUSIVE] == "1 (1 fragile)"
    assert s[NOT_REPRODUCED] == "2" and s[NOT_TESTABLE] == "2"
    assert "4 (1 fragile)" in summary_rst(frame(rows))
    assert "| 4 (1 fragile) |" in verdict_markdown(frame(rows))


# ------------------------------------------------------------------ report captions
def _caption(name: str, config: dict) -> str:
    text = (REPO / "workflow" / "report" / name).read_text(encoding="utf-8")
    return jinja2.Environment().from_string(text).render(snakemake=SimpleNamespace(config=config))


def test_jab_figure_caption_gives_the_configs_grid():
    base = REPO / "config" / "config.yaml"
    smoke = load_config(REPO / "config" / "smoke.yaml", base=base)
    text = " ".join(_caption("jab_figures.rst", smoke).split())
    assert "A 1 × 2 grid with data sets in rows (communities)" in text
    assert "base learners in columns (ridge, rf)" in text
    assert "A 3 × 3 grid" in " ".join(_caption("jab_figures.rst", load_config(base=base)).split())


def test_front_page_opens_with_the_verdict_banner_in_a_layout_that_scrolls(tmp_path, monkeypatch):
    from docutils.core import publish_parts

    monkeypatch.chdir(tmp_path)
    Path("results").mkdir()
    Path("results/claims_summary.rst").write_text(summary_rst(frame(knapsack_rows())))
    config = load_config(base=REPO / "config" / "config.yaml")
    text = (REPO / "workflow" / "report" / "workflow.rst").read_text(encoding="utf-8")
    files = [SimpleNamespace(target=t) for t in ("paper_vs_ours.html", "forest_knapsack.png")]
    rendered = (
        jinja2.Environment()
        .from_string(text)
        .render(snakemake=SimpleNamespace(config=config), categories={}, files=files)
    )
    body = publish_parts(rendered, writer="html")["html_body"]
    assert body.index("<h1") < body.index("Smoke scale:") < body.index("This workflow regenerates")
    assert body.index("Smoke scale:") < body.index("<table")
    assert '<style id="front-page">' in body  # the landing page's layout fix
    assert PAPERS["knapsack"].title in body
