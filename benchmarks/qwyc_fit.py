"""QWYC* fit time on Adult's training split (T = 500): target < 60 s on the 2-core box.

Usage: .venv/bin/python benchmarks/qwyc_fit.py [results_dir] [alphas]
Reads the prepared Adult data (results/data/adult_*.parquet), trains the paper's GBT
(T=500, depth 5, lr 0.1) on the 80% training part, then times QuitWhenYouCan(ordering="joint")
per alpha next to the natural-order baseline and prints the ratio to the 60 s target.
"""

import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from ensemble_repro.data import load
from ensemble_repro.papers.qwyc.cells import _gbt
from ensemble_repro.qwyc import FanEarlyStopping, QuitWhenYouCan, tree_scores

results = sys.argv[1] if len(sys.argv) > 1 else "results"
alphas = [float(a) for a in sys.argv[2].split(",")] if len(sys.argv) > 2 else [0.0, 0.005, 0.05]
q = {"gbt": {"n_estimators": 500, "max_depth": {"adult": 5}, "min_samples_leaf": 20}}
X, y = load("adult_train", results)
X, y = X.to_numpy(float), y.to_numpy(int)
fit = np.random.default_rng([0, 2]).permutation(len(y))[round(0.2 * len(y)) :]
with threadpool_limits(1):
    t0 = time.perf_counter()
    model = _gbt(q, "adult", 0.1, 0).fit(X[fit], y[fit])
    t1 = time.perf_counter()
    base, F = tree_scores(model, X[fit])
    t2 = time.perf_counter()
    print(
        f"N={F.shape[0]} T={F.shape[1]}: GBT training {t1 - t0:.1f} s, tree_scores {t2 - t1:.1f} s"
    )
    t0 = time.perf_counter()
    FanEarlyStopping(1.0).fit_scores(base, F)
    print(f"Fan* fit (one gamma): {time.perf_counter() - t0:.1f} s")
    for a in alphas:
        t0 = time.perf_counter()
        nat = QuitWhenYouCan(a, ordering="natural").fit_scores(base, F)
        t1 = time.perf_counter()
        joint = QuitWhenYouCan(a).fit_scores(base, F)
        t2 = time.perf_counter()
        print(
            f"alpha={a}: QWYC* fit {t2 - t1:.1f} s ({(t2 - t1) / 60:.2f} of the 60 s target; "
            f"{(t2 - t1) / (t1 - t0):.0f}x the natural-order fit of {t1 - t0:.2f} s); "
            f"mean models on the fitting set: QWYC* {joint.n_evaluated(F).mean():.1f}, "
            f"natural {nat.n_evaluated(F).mean():.1f}"
        )
