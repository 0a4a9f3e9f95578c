"""Writing the claims tables and verdict pages from the workflow's result tables."""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from ..io import read_parquet
from . import jab, knapsack, qwyc
from .registry import PAPERS
from .render import summary_rst, verdict_html, verdict_markdown
from .table import claims_frame, merge_claims

PathLike = str | os.PathLike


def today() -> str:
    """The UTC date a claims table is made on (marks rows kept from earlier runs)."""
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def _read(path: PathLike) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


def _write(rows: list[dict], out: PathLike, scale: str, page: PathLike | None = None) -> None:
    """A paper's claims table, its rows labelled with ``scale`` (:func:`registry.scale_label`),
    and, when ``page`` is given, its own verdict page (Markdown, generated from the same rows as
    the merged one: :func:`render.verdict_markdown`)."""
    from ..io import write_csv, write_text

    df = claims_frame(rows, scale=scale, made_on=today())
    write_csv(df, out)
    if page is not None:
        title = PAPERS[df["paper"].iloc[0]] if len(df) else "no claims"
        write_text(page, verdict_markdown(df, title=f"{title}: paper vs ours"))


def _by_dataset(paths: Iterable[PathLike]) -> dict[str, pd.DataFrame]:
    """Tables of results/qwyc/<data>/X.csv keyed by <data>."""
    return {Path(p).parent.name: _read(p) for p in paths}


def write_jab_claims(
    main: PathLike,
    jplus: PathLike,
    fvr: PathLike,
    without_replacement: PathLike,
    out: PathLike,
    *,
    jab_cfg: Mapping,
    missing: Sequence[str],
    scale: str,
    page: PathLike | None = None,
) -> None:
    """``results/jab/claims.csv`` (and the paper's verdict page ``page``) from main.csv,
    jplus.csv, fixed_vs_random.csv and the sampling setting's without_replacement.csv."""
    rows = jab.evaluate(
        _read(main),
        _read(jplus),
        _read(fvr),
        _read(without_replacement),
        alpha=jab_cfg["alpha"],
        datasets=jab_cfg["datasets"],
        missing=missing,
        aggregations=jab_cfg["aggregations"],
        timing_m_ratio=jab_cfg["timing_m_ratio"],
    )
    _write(rows, out, scale, page)


def write_qwyc_claims(
    rows: Sequence[PathLike],
    refits: Sequence[PathLike],
    timing: Sequence[PathLike],
    timing_runs: Sequence[PathLike],
    sensitivity_rows: Sequence[PathLike],
    out: PathLike,
    *,
    qwyc_cfg: Mapping,
    scale: str,
) -> None:
    """``results/qwyc/claims.csv`` from each data set's per-test-row tables of the main fit
    (``rows/<method>.parquet``, the smaller GBTs' included), bootstrap refits, timing tables and
    the sensitivity settings' per-row tables (``rows/sensitivity_<setting>.parquet``)."""
    main: dict[str, list[pd.DataFrame]] = {}
    sens: dict[str, dict[str, pd.DataFrame]] = {}
    for p in rows:
        main.setdefault(Path(p).parent.parent.name, []).append(read_parquet(p))
    for p in sensitivity_rows:
        setting = Path(p).stem.removeprefix("sensitivity_")
        sens.setdefault(Path(p).parent.parent.name, {})[setting] = read_parquet(p)
    rows_by_ds = {
        ds: pd.concat([f.assign(method=f["method"].astype(str)) for f in fs], ignore_index=True)
        for ds, fs in main.items()
    }
    out_rows = qwyc.evaluate(
        rows_by_ds,
        _by_dataset(refits),
        _by_dataset(timing),
        _by_dataset(timing_runs),
        sens,
        datasets=qwyc_cfg["datasets"],
        n_trees=qwyc_cfg["gbt"]["n_estimators"],
        target_differences=qwyc_cfg["timing"]["target_differences"],
    )
    _write(out_rows, out, scale)


def write_knapsack_claims(
    inputs: Mapping[str, PathLike | Sequence[PathLike]],
    out: PathLike,
    *,
    knapsack_cfg: Mapping,
    seed: int,
    scale: str,
) -> None:
    """``results/knapsack/claims.csv`` from the knapsack tables: ``inputs`` maps ``worked``,
    ``rates``, ``lemma``, ``greedy``, ``sizes`` and ``beta_fit`` to their CSV files, ``runs``
    to every pool's selection runs and ``votes`` to the UCI pools' test votes."""
    from ..experiments.knapsack import rule_variants

    rows = knapsack.evaluate(
        _read(inputs["worked"]),
        _read(inputs["rates"]),
        {Path(p).stem: _read(p) for p in inputs["runs"]},
        mc_sampler=knapsack_cfg["mc_sampler"],
        evaluations=knapsack_cfg["adversarial"]["evaluations"],
        stop_variants=rule_variants(knapsack_cfg)[1:],
        uci_pools=knapsack_cfg["datasets"],
        votes={Path(p).stem.removesuffix("_votes"): read_parquet(p) for p in inputs["votes"]},
        lemma=_read(inputs["lemma"]),
        greedy=_read(inputs["greedy"]),
        sizes=_read(inputs["sizes"]),
        beta_fit=_read(inputs["beta_fit"]),
        seed=seed,
    )
    _write(rows, out, scale)


def write_verdicts(
    paper_files: Mapping[str, PathLike],
    claims_csv: PathLike,
    md: PathLike,
    html: PathLike,
    rst: PathLike,
    forests: Sequence[PathLike] = (),
) -> pd.DataFrame:
    """``results/claims.csv`` and the verdict pages from the papers' claims files that exist
    (papers switched off in this run keep their earlier rows, marked with scale and date),
    and the summary ``rst`` the report's front page includes. ``forests``: the papers' forest
    plots (PNG, :data:`forest.FOREST_FIGURE`), linked from the Markdown page and embedded in
    the HTML one."""
    from ..io import write_csv, write_text

    df = merge_claims(paper_files)
    by_paper = {Path(f).stem.removeprefix("forest_"): Path(f) for f in forests}
    write_csv(df, claims_csv)
    md_dir = Path(md).parent
    write_text(
        md,
        verdict_markdown(df, forests={p: os.path.relpath(f, md_dir) for p, f in by_paper.items()}),
    )
    write_text(html, verdict_html(df, forests=by_paper))
    write_text(rst, summary_rst(df))
    return df
