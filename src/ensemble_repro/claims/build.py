"""Writing the claims tables and verdict pages (each paper's evaluator in its package,
``ensemble_repro.papers.<paper>.claims``, calls :func:`write_paper_claims`)."""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from ..paper_loader import PAPERS
from .claim import PAPER_RECORD
from .render import summary_rst, verdict_html, verdict_markdown
from .table import claims_frame, merge_claims

PathLike = str | os.PathLike


def today() -> str:
    """The UTC date a claims table is made on (marks rows kept from earlier runs)."""
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def read_table(path: PathLike) -> pd.DataFrame:
    """A result table (CSV); an empty frame when the file holds nothing."""
    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


def write_paper_claims(
    rows: list[dict], out: PathLike, scale: str, page: PathLike | None = None
) -> None:
    """A paper's claims table, its rows labelled with ``scale`` (:func:`.claim.scale_label`),
    and, when ``page`` is given, its own verdict page (Markdown, generated from the same rows as
    the merged one: :func:`render.verdict_markdown`)."""
    from ..io import write_csv, write_text

    df = claims_frame(rows, scale=scale, made_on=today())
    write_csv(df, out)
    if page is not None:
        title = PAPERS[df["paper"].iloc[0]].title if len(df) else "no claims"
        write_text(
            page,
            verdict_markdown(
                df, title=f"{title}: paper vs ours", record=_relative(PAPER_RECORD, page)
            ),
        )


def _relative(path: PathLike, page: PathLike) -> str:
    """``path`` as a link from the page ``page`` (both relative to the working directory)."""
    return Path(os.path.relpath(path, Path(page).parent)).as_posix()


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
    write_text(
        md,
        verdict_markdown(
            df,
            forests={p: _relative(f, md) for p, f in by_paper.items()},
            record=_relative(PAPER_RECORD, md),
        ),
    )
    write_text(html, verdict_html(df, forests=by_paper))
    write_text(rst, summary_rst(df))
    return df
