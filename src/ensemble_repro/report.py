"""The generated documents of the results folder.

``results/README.md`` indexes every output file: what it regenerates (the first line of its
report caption), the rule that made it, and its provenance (the verdict pages are made by
``ensemble_repro.claims``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .claims.claim import CLAIMS_CSV, TABLE_HTML, VERDICT_HTML, VERDICT_MD, VERDICT_SUMMARY_RST
from .claims.render import made_at
from .io import markdown_cell, read_json, write_text
from .paper_loader import PAPERS
from .provenance import sidecar_path


def sections() -> dict[str, str]:
    """Sections of the index (key -> title): the prepared data sets, then each paper's
    outputs."""
    return {"data": "Prepared data sets", **{key: p.title for key, p in PAPERS.items()}}


#: Folders of results/ that hold bookkeeping (or HTML views of tables) rather than results.
SKIPPED_DIRS = {"logs", "benchmarks", Path(TABLE_HTML).parts[1]}
#: Top-level files the index names in its introduction instead of listing them.
SKIPPED_FILES = {
    "README.md",
    "report.html",
    *(Path(p).name for p in (CLAIMS_CSV, VERDICT_MD, VERDICT_HTML, VERDICT_SUMMARY_RST)),
}


@dataclass(frozen=True)
class OutputPattern:
    """One output of one rule, as declared in the workflow."""

    rule: str
    pattern: str
    caption: str | None = None
    doc: str | None = None

    def regex(self) -> re.Pattern:
        parts = re.split(r"(\{[^}]+\})", self.pattern)
        body = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts)
        return re.compile(body + r"\Z")


def caption_title(caption_path: str | os.PathLike | None) -> str:
    """The title of an .rst caption, else its first sentence (Jinja fields dropped)."""
    if not caption_path or not Path(caption_path).exists():
        return ""
    lines = Path(caption_path).read_text(encoding="utf-8").splitlines()
    if len(lines) > 1 and lines[1].strip() and set(lines[1].strip()) <= set("=-~^#*"):
        return lines[0].strip()
    para = []
    for line in lines:
        if not line.strip():
            if para:
                break
            continue
        para.append(line.strip())
    text = re.sub(r"\{\{.*?\}\}", "…", " ".join(para))
    end = re.search(r"(?<! al)(?<! e\.g)\.(\s+[A-Z(]|$)", text)
    return text[: end.start() + 1] if end else text


def result_files(results_dir: str | os.PathLike) -> list[Path]:
    """Every result file under ``results_dir``, sorted, without bookkeeping and temp files."""
    root = Path(results_dir)
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if not p.is_file() or rel.parts[0] in SKIPPED_DIRS or p.name.startswith("."):
            continue
        if len(rel.parts) == 1 and p.name in SKIPPED_FILES:
            continue
        out.append(p)
    return out


def _provenance_summary(path: Path) -> str:
    side = sidecar_path(path)
    if path.name.endswith(".provenance.json") or not side.exists():
        return ""
    meta = read_json(side)
    sha = {f: s[:12] for d in meta.get("raw_data_sha256", {}).values() for f, s in d.items()}
    sw = meta.get("software", {})
    bits = [f"seed {meta.get('seed')}"]
    if sha:
        bits.append("data " + ", ".join(f"{f} {s}…" for f, s in sorted(sha.items())))
    if sw:
        bits.append(
            f"py {sw.get('python')}, numpy {sw.get('numpy')}, sklearn {sw.get('scikit-learn')}"
        )
    return "; ".join(bits)


def build_index(
    results_dir: str | os.PathLike,
    patterns: Sequence[OutputPattern],
    paper_vs_ours: Mapping[str, str | os.PathLike],
    out_path: str | os.PathLike,
) -> None:
    """Write ``results/README.md``: every output file, the rule that made it, its provenance,
    and the scales and dates the verdicts (``results/claims.csv``) were made at."""
    root = Path(results_dir)
    compiled = [(p, p.regex()) for p in patterns]
    titles = sections()
    rows: dict[str, list[str]] = {k: [] for k in titles}
    for path in result_files(root):
        sidecar = path.name.endswith(".provenance.json")
        # a sidecar names its table (X.csv and X.md share X.provenance.json)
        made = path.with_name(read_json(path)["table"]) if sidecar else path
        match = next((p for p, rx in compiled if rx.search(made.as_posix())), None)
        key = path.relative_to(root).parts[0]
        key = key if key in rows else "data"
        what = (caption_title(match.caption) or (match.doc or "").strip()) if match else ""
        if sidecar:
            what = f"provenance of `{made.name}`"
        rule = match.rule if match else "?"
        rows[key].append(
            f"| `{path.relative_to(root).as_posix()}` | {markdown_cell(what)} | `{rule}` | "
            f"{markdown_cell(_provenance_summary(path))} |"
        )
    claims_csv = root / Path(CLAIMS_CSV).name
    claims = pd.read_csv(claims_csv, keep_default_na=False) if claims_csv.is_file() else None
    lines = [
        "# Results index",
        "",
        "Generated by the `results_index` rule; every file under `results/` (logs and "
        "benchmarks aside), what it regenerates, the rule that made it and its provenance "
        "(seed, raw-data sha256, software). Verdicts on every claim: "
        f"`{Path(CLAIMS_CSV).name}`, `{Path(VERDICT_MD).name}`, `{Path(VERDICT_HTML).name}`"
        + (f" (made at: {'; '.join(made_at(claims))})." if claims is not None else "."),
        "",
    ]
    for key, title in titles.items():
        if not rows[key]:
            continue
        lines += [
            f"## {title}",
            "",
            "| file | regenerates | rule | provenance |",
            "|---|---|---|---|",
        ]
        lines += rows[key] + [""]
        pvo = paper_vs_ours.get(key)
        if pvo and Path(pvo).exists():
            lines += [
                f"### Paper vs ours ({Path(pvo).as_posix()})",
                "",
                _strip_title(Path(pvo).read_text(encoding="utf-8")),
                "",
            ]
    write_text(out_path, "\n".join(lines).rstrip() + "\n")


def _strip_title(md: str) -> str:
    lines = md.splitlines()
    while lines and (not lines[0].strip() or lines[0].startswith("# ")):
        lines.pop(0)
    return "\n".join(lines)
