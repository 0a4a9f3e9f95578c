"""The verdict pages (results/paper_vs_ours.md / .html) and HTML renderings of result tables
for the Snakemake report, all generated from claims tables."""

from __future__ import annotations

import base64
import html
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ..paper_loader import PAPERS
from .claim import PAPER_RECORD, PAPER_SCALE, VERDICT_MD
from .rules import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTABLE, PARTLY, REPRODUCED, VERDICTS


def _titles() -> dict[str, str]:
    """Paper key -> title, in report order."""
    return {key: p.title for key, p in PAPERS.items()}


_CSS = (
    "body{font-family:sans-serif;font-size:13px;margin:1em}"
    "table{border-collapse:collapse;margin:0.5em 0}"
    "th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}"
    "th{background:#f0f0f0}.v-reproduced{background:#d9f2d9}"
    ".v-partly{background:#fff3c4}.v-not{background:#f8d0d0}.v-untestable{background:#e6e6e6}"
    ".v-inconclusive{background:#dde8f6}"
    ".banner{border:2px solid #b35806;background:#fee0b6;padding:6px 10px;font-weight:bold}"
)
_VERDICT_CLASS = {
    REPRODUCED: "v-reproduced",
    PARTLY: "v-partly",
    NOT_REPRODUCED: "v-not",
    INCONCLUSIVE: "v-inconclusive",
    NOT_TESTABLE: "v-untestable",
}


def made_at(df: pd.DataFrame) -> list[str]:
    """The scales and dates claim rows were made at, e.g. ``['smoke scale, 2026-12-01']``."""
    return sorted({f"{r.scale} scale, {r.made_on}" for r in df.itertuples()})


def scale_banner(df: pd.DataFrame) -> str:
    """The sentence a verdict page or summary opens with: the scale(s) its rows were made at
    and whether they decide about the papers (only the paper config's do, :data:`PAPER_RECORD`
    holds them); '' for a table without rows."""
    scales = sorted(set(df["scale"]))
    if not scales:
        return ""
    if scales == [PAPER_SCALE]:
        return (
            "Paper scale: these verdicts were made with the paper config (config/config.yaml); "
            f"the published run of record is {PAPER_RECORD}/."
        )
    named = " and ".join(scales)
    which = (
        "the rows not made at paper scale (see where each was made) decide"
        if PAPER_SCALE in scales
        else "these verdicts were made with a config other than the paper config "
        "(config/config.yaml) and decide"
    )
    return (
        f"{named[0].upper()}{named[1:]} scale: {which} nothing about the papers. The "
        f"paper-scale verdicts are in {PAPER_RECORD}/ ({PAPER_RECORD}/{Path(VERDICT_MD).name})."
    )


def _count(sub: pd.DataFrame, verdict: str) -> str:
    """Rows of ``sub`` with ``verdict``, and how many of them are fragile (flip under a
    sensitivity setting: a non-empty ``fragile`` column), e.g. ``'6 (1 fragile)'``."""
    rows = sub[sub["verdict"] == verdict]
    fragile = sum(1 for v in rows["fragile"] if isinstance(v, str) and v)
    return f"{len(rows)} ({fragile} fragile)" if fragile else str(len(rows))


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per paper: how many claim rows got each verdict (with how many of them are fragile),
    with the scale(s) and date(s) made at."""
    rows = []
    for paper, title in _titles().items():
        sub = df[df["paper"] == paper]
        if not len(sub):
            continue
        row = {"paper": title}
        row.update({v: _count(sub, v) for v in VERDICTS})
        row["made at"] = ", ".join(made_at(sub))
        rows.append(row)
    return pd.DataFrame(rows, columns=["paper", *VERDICTS, "made at"])


def _md_cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _md_table(df: pd.DataFrame) -> list[str]:
    return ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)] + [
        "| " + " | ".join(_md_cell(v) for v in row) + " |" for row in df.itertuples(index=False)
    ]


def verdict_markdown(
    df: pd.DataFrame,
    title: str = "Paper vs ours: verdicts on the claims of the three papers",
    forests: Mapping[str, str] | None = None,
    record: str = PAPER_RECORD,
) -> str:
    """The verdict page: its scale banner (:func:`scale_banner`, linking ``record``, the
    record's path relative to the page), a per-paper summary, then every claim with the
    paper's words beside our numbers, interval, verdict and the rule that decided it
    (``title``: its heading; a paper's own page ``results/<paper>/paper_vs_ours.md`` is the
    same page on its rows; ``forests``: paper -> its forest plot's path relative to the
    page)."""
    banner = scale_banner(df).replace(f"{PAPER_RECORD}/", f"[{PAPER_RECORD}/]({record}/)", 1)
    lines = [f"# {title}", ""] + ([f"> **{banner}**", ""] if banner else [])
    lines += [
        "Generated from the claims table(s) `claims.csv`. Verdicts: "
        + ", ".join(f"`{v}`" for v in VERDICTS)
        + ". A claim is `reproduced` only when the "
        "interval over repeated randomness (trials, seeds, refits, test rows) lies wholly "
        "inside what the claim allows, `not reproduced` when it lies wholly outside; "
        "`inconclusive` when it straddles the bound, with the repeats that would decide it; "
        "`partly reproduced` when decided parts disagree. Each row states its rule. "
        "`robust_to` counts the paper's sensitivity settings under which a decided verdict "
        'stays the same; "(k fragile)" in the summary counts the verdicts that flip under '
        "one (the `fragile` column).",
        "",
        "## Summary",
        "",
    ]
    lines += _md_table(summary(df)) + [""]
    for paper, title in _titles().items():
        sub = df[df["paper"] == paper]
        if not len(sub):
            continue
        lines += [f"## {title}", ""]
        if forests and paper in forests:
            lines += [f"![Forest plot of the {title} verdicts]({forests[paper]})", ""]
        for r in sub.itertuples():
            lines += [
                f"### {r.claim_id} ({r.dataset}): {r.verdict}",
                "",
                f'- **Paper** ({r.item}): "{r.paper_says}"',
                f"- **Ours**: {r.ours}",
            ]
            if r.reason:
                lines.append(f"- **Why not testable**: {r.reason}")
            if r.repeats_needed:
                lines.append(f"- **Would decide at**: {r.repeats_needed}")
            lines += [
                f"- **Interval**: {r.interval or '-'} ({r.n_repeats} repeats)",
                f"- **Robust to**: {r.robust_to}",
                f"- **Rule**: {r.rule}",
                f"- **Made at**: {r.scale} scale, {r.made_on}"
                + ("; wall-clock claim, machine-dependent" if _true(r.timing) else ""),
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


#: The claims-table columns a paper's numbers page copies of each of its claims.
PAGE_COLUMNS = ("claim_id", "dataset", "verdict", "ours", "interval", "n_repeats")


def verdict_section(claims: pd.DataFrame, source: str) -> list[str]:
    """Markdown lines of a paper's numbers page (``results/<paper>/paper_vs_ours.md``): each
    row of its claims table ``claims`` (read from ``source``) with its verdict, effect in words
    and interval, copied from the row, so the page cannot disagree with the table."""
    lines = [
        f"## Verdicts (rows of {source})",
        "",
        f"Copied from {source}; each claim's rule, robustness and scale are there and in "
        f"{Path(VERDICT_MD).as_posix()}.",
        "",
    ]
    if not len(claims):
        return lines + ["No claims rows.", ""]
    return lines + _md_table(claims[list(PAGE_COLUMNS)]) + [""]


def _true(value) -> bool:
    return str(value).lower() == "true"


def _html_table(df: pd.DataFrame, verdict_col: str | None = None) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = []
    for row in df.itertuples(index=False):
        cells = []
        for col, v in zip(df.columns, row, strict=False):
            marked = col == verdict_col and v in _VERDICT_CLASS
            cls = f' class="{_VERDICT_CLASS[v]}"' if marked else ""
            text = format(v, ".4g") if isinstance(v, float) else str(v)
            cells.append(f"<td{cls}>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title><style>{_CSS}</style></head><body>{body}</body></html>\n"
    )


def verdict_html(df: pd.DataFrame, forests: Mapping[str, Path] | None = None) -> str:
    """The verdict page as one self-contained HTML file (shown inline in the Snakemake report),
    each paper's forest plot (``forests``: paper -> PNG) embedded above its rows."""
    banner = scale_banner(df)
    parts = [
        "<h1>Paper vs ours: verdicts on the claims of the three papers</h1>",
        f'<p class="banner">{html.escape(banner)}</p>' if banner else "",
        (
            "<p>Generated from <code>results/claims.csv</code>. A claim is <em>reproduced</em> "
            "only when the interval over repeated randomness lies wholly inside what the claim "
            "allows, <em>not reproduced</em> when it lies wholly outside, <em>inconclusive</em> "
            "when it straddles the bound (<code>repeats_needed</code> says what would decide "
            "it); each row states its rule. &ldquo;(k fragile)&rdquo; in the summary counts the "
            "verdicts that flip under a sensitivity setting.</p>"
        ),
        "<h2>Summary</h2>",
        _html_table(summary(df)),
    ]
    cols = [
        "claim_id",
        "dataset",
        "item",
        "paper_says",
        "ours",
        "interval",
        "n_repeats",
        "verdict",
        "repeats_needed",
        "robust_to",
        "scale",
        "made_on",
    ]
    for paper, title in _titles().items():
        sub = df[df["paper"] == paper]
        if not len(sub):
            continue
        shown = sub[cols].copy()
        shown["ours"] = [
            f"{o} ({r})" if r else o for o, r in zip(sub["ours"], sub["reason"], strict=False)
        ]
        parts.append(f"<h2>{html.escape(title)}</h2>")
        if forests and paper in forests:
            data = base64.b64encode(Path(forests[paper]).read_bytes()).decode("ascii")
            parts.append(
                f'<img style="max-width:100%" alt="forest plot of {html.escape(title)}" '
                f'src="data:image/png;base64,{data}">'
            )
        parts += [
            _html_table(shown, "verdict"),
            "<details><summary>decision rules</summary><ul>"
            + "".join(
                f"<li><b>{html.escape(c)}</b>: {html.escape(r)}</li>"
                for c, r in dict(zip(sub["claim_id"], sub["rule"], strict=False)).items()
            )
            + "</ul></details>",
        ]
    return _page("Paper vs ours", "".join(parts))


def table_html(
    csv_path: str | os.PathLike, out_path: str | os.PathLike, title: str | None = None
) -> None:
    """An HTML rendering of a result table (title: ``title``, else the first heading of the
    Markdown twin ``X.md`` when there is one, else the file name)."""
    from ..io import write_text

    csv_path = Path(csv_path)
    try:
        df = pd.read_csv(csv_path, keep_default_na=False)
    except pd.errors.EmptyDataError:
        df = pd.DataFrame()
    if title is None:
        md = csv_path.with_suffix(".md")
        first = md.read_text(encoding="utf-8").splitlines()[:1] if md.exists() else []
        heading = first and first[0].startswith("#")
        title = first[0].lstrip("# ").strip() if heading else csv_path.name
    verdict_col = "verdict" if "verdict" in df.columns else None
    body = (
        f"<h2>{html.escape(title)}</h2><p><code>{html.escape(csv_path.as_posix())}</code></p>"
        + _html_table(df, verdict_col)
    )
    write_text(out_path, _page(title, body))


def summary_rst(df: pd.DataFrame) -> str:
    """The per-paper verdict summary as a reStructuredText list table under its scale banner
    (:func:`scale_banner`; the report's front page includes it)."""
    s = summary(df)
    banner = scale_banner(df)
    lines = ([f"**{banner}**", ""] if banner else []) + [
        ".. list-table:: Verdicts per paper (rows of results/claims.csv)",
        "   :header-rows: 1",
        "",
    ]
    for row in [list(s.columns)] + [list(r) for r in s.itertuples(index=False)]:
        lines.append("   * - " + str(row[0]))
        lines += [f"     - {v}" for v in row[1:]]
    return "\n".join(lines) + "\n"
