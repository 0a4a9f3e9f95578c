"""Claim registry and verdicts of the three papers.

``registry`` lists every claim checked (paper item, quote, metric, rule, inputs);
``margins`` every margin the rules decide with; ``rules`` the decision rules and intervals;
``jab`` / ``qwyc`` / ``knapsack`` evaluate each paper's claims from its result tables;
``table`` and ``render`` write ``results/claims.csv`` and the verdict pages; ``build`` is what
the workflow rules call.
"""

from .registry import (
    CLAIMS,
    CLAIMS_CSV,
    COLUMNS,
    PAPERS,
    REPORT_CATEGORY,
    TABLE_HTML,
    VERDICT_HTML,
    VERDICT_MD,
    VERDICT_SUMMARY_RST,
    Claim,
    claims_of,
    paper_claims_csv,
    scale_label,
)
from .rules import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    PARTLY,
    REPRODUCED,
    VERDICTS,
    Interval,
    band_verdict,
    combine_parts,
    equivalence,
    one_sided,
    paired_log_ratio,
    repeats_needed,
    robust_across,
    robust_to,
    t_interval,
    wilson,
)
from .table import merge_claims, read_claims, run_independent

__all__ = [
    "CLAIMS",
    "CLAIMS_CSV",
    "COLUMNS",
    "INCONCLUSIVE",
    "NOT_REPRODUCED",
    "NOT_TESTABLE",
    "PAPERS",
    "PARTLY",
    "REPORT_CATEGORY",
    "REPRODUCED",
    "TABLE_HTML",
    "VERDICTS",
    "VERDICT_HTML",
    "VERDICT_MD",
    "VERDICT_SUMMARY_RST",
    "Claim",
    "Interval",
    "band_verdict",
    "claims_of",
    "combine_parts",
    "equivalence",
    "merge_claims",
    "one_sided",
    "paired_log_ratio",
    "paper_claims_csv",
    "read_claims",
    "repeats_needed",
    "robust_across",
    "robust_to",
    "run_independent",
    "scale_label",
    "t_interval",
    "wilson",
]
