"""The seconds printed in Tables S1-S2 of Kim, Xu & Barber (2020), Appendix D.4: average
wall-clock times over 10 splits at m = 0.6 n, sampling with replacement, on a MacBook Air
2018. Table S3 (Communities) did not survive the text extraction of the paper.

Each entry is one row of a table: (learner, aggregation) -> (J+aB, J+ensemble,
J+non-ensemble) seconds. J+non-ensemble does not aggregate: the paper prints it once per
learner, on the Mean row, and it holds for the learner's three rows.
"""

from __future__ import annotations

#: Data set -> (learner, aggregation) -> (J+aB, J+ensemble, J+non-ensemble) seconds.
PAPER_SECONDS = {
    "meps": {  # Table S1
        ("ridge", "mean"): (0.2, 2.1, 0.4),
        ("ridge", "median"): (0.5, 2.8, 0.4),
        ("ridge", "trimmed_mean"): (0.5, 2.7, 0.4),
        ("rf", "mean"): (3.0, 61.6, 4.9),
        ("rf", "median"): (3.9, 63.1, 4.9),
        ("rf", "trimmed_mean"): (3.9, 56.4, 4.9),
        ("nn", "mean"): (8.8, 257.7, 14.4),
        ("nn", "median"): (10.2, 213.8, 14.4),
        ("nn", "trimmed_mean"): (10.0, 206.9, 14.4),
    },
    "blog": {  # Table S2
        ("ridge", "mean"): (0.5, 6.7, 1.5),
        ("ridge", "median"): (1.1, 9.1, 1.5),
        ("ridge", "trimmed_mean"): (1.2, 9.0, 1.5),
        ("rf", "mean"): (8.7, 191.3, 11.1),
        ("rf", "median"): (9.6, 197.3, 11.1),
        ("rf", "trimmed_mean"): (9.7, 197.1, 11.1),
        ("nn", "mean"): (36.8, 835.8, 46.4),
        ("nn", "median"): (39.4, 891.3, 46.4),
        ("nn", "trimmed_mean"): (37.7, 843.7, 46.4),
    },
    "communities": {},  # Table S3: not in our text of the paper
}


def paper_ratios(column: int, over: int = 0) -> dict[tuple[str, str, str], float]:
    """Ratio of two of the paper's times, column ``column`` over column ``over`` (0 J+aB,
    1 J+ensemble, 2 J+non-ensemble), per (data set, learner, aggregation) row.

    Examples
    --------
    >>> round(paper_ratios(1)[("meps", "rf", "mean")], 2)  # 61.6 / 3.0
    20.53
    """
    return {
        (ds, lrn, agg): secs[column] / secs[over]
        for ds, table in PAPER_SECONDS.items()
        for (lrn, agg), secs in table.items()
    }


def paper_range(column: int, over: int = 0, aggregation: str | None = None) -> tuple:
    """Smallest and largest :func:`paper_ratios` over Tables S1-S2 (rows of one aggregation
    only when given).

    Examples
    --------
    >>> [round(x, 1) for x in paper_range(1)]  # MEPS Ridge trimmed mean, MEPS NN mean
    [5.4, 29.3]
    """
    r = [v for k, v in paper_ratios(column, over).items() if aggregation in (None, k[2])]
    return min(r), max(r)
