"""The pipeline layer of each paper, one package per paper, and the list of them.

:data:`PAPERS` (in the order of every report) is what the workflow, the cost estimate, the
report and the claims loop over; each entry is a :class:`.paper.Paper` declared in its package
(:mod:`.jab`, :mod:`.qwyc`, :mod:`.knapsack`), which also holds the paper's experiment cells,
figures and tables, claims and their evaluator, and the cost of its jobs.
"""

from . import jab, knapsack, qwyc
from .paper import Paper

#: Key -> paper, in report order.
PAPERS: dict[str, Paper] = {p.key: p for p in (jab.PAPER, qwyc.PAPER, knapsack.PAPER)}
#: Claim id -> claim, every paper's, in report order.
CLAIMS = {c.id: c for p in PAPERS.values() for c in p.claims}

__all__ = ["CLAIMS", "PAPERS", "Paper"]
