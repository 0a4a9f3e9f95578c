"""Figure output shared by the three papers: vector PDF + PNG, paper-sized, byte-stable."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .io import atomic_path  # noqa: E402

#: Paper-size defaults: readable when a full-width figure is printed at ~7 inches.
PAPER_RC = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "pdf.fonttype": 42,
    "svg.hashsalt": "ensemble-repro",
}


def paper_style() -> None:
    plt.rcParams.update(PAPER_RC)


def save_figure(fig, pdf_path: str | os.PathLike, png_path: str | os.PathLike) -> None:
    """Save ``fig`` as PDF (no creation date, so reruns give identical bytes) and PNG."""
    with atomic_path(pdf_path) as tmp:
        fig.savefig(tmp, format="pdf", bbox_inches="tight", metadata={"CreationDate": None})
    with atomic_path(png_path) as tmp:
        fig.savefig(tmp, format="png", bbox_inches="tight")
    plt.close(fig)
