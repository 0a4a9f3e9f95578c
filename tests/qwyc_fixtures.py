"""A fast QWYC experiment config and Adult-shaped prepared tables, for the tests of
``ensemble_repro.papers.qwyc.cells``."""

from pathlib import Path

import numpy as np
import pandas as pd


def qwyc_config(**over) -> dict:
    """The ``qwyc`` config section of a fast run (12 trees, 2 carve-outs, 2 learning rates),
    with the top-level keys of ``over`` replaced."""
    q = {
        "budget_rule": "greedy_remaining",
        "side_split": "joint",
        "tie_break": "greedy_mse",
        "fit_on": "train_full",
        "n_splits": 2,
        "n_refits": 3,
        "decision_threshold": 0.0,
        "alpha_grid": [0.0, 0.05],
        "n_random_orders": 2,
        "orderings": ["natural", "random"],
        "sensitivity": [],
        "smaller_ensembles": [4, 8],
        "approximation": {"n_models": 4, "trees_per_model": 2, "n_ensembles": 3, "n_rows": 120},
        "gbt": {
            "n_estimators": 12,
            "max_depth": {"adult": 3},
            "learning_rates": [0.05, 0.5],
            "validation_fraction": 0.25,
            "min_samples_leaf": 20,
        },
        "fan": {
            "gamma_grid": [0.5, 2.0],
            "n_bins": 4,
            "bin_kind": "quantile",
            "stats_on_survivors": False,
            "min_bin_count": 5,
            "score": "margin",
            "orderings": ["individual_mse"],
        },
        "timing": {"runs": 3, "target_differences": [0.05, 0.1]},
    }
    q.update(over)
    return q


def adult_tables(directory: Path) -> dict[str, Path]:
    """Adult-shaped prepared tables of a noisy synthetic problem (train 600, test 300 rows),
    written into ``directory``: prepared name -> parquet path."""
    rng = np.random.default_rng(11)
    out = {}
    for name, n in (("adult_train", 600), ("adult_test", 300)):
        X = rng.normal(size=(n, 4))
        y = (X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + rng.normal(scale=0.8, size=n) > 0).astype(int)
        path = directory / f"{name}.parquet"
        pd.DataFrame(X, columns=list("abcd")).assign(target=y).to_parquet(path)
        out[name] = path
    return out
