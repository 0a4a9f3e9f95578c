"""Cost of J+aB intervals relative to plain bagging, and of J+ensemble relative to J+aB.

Prints ratios measured side by side in one run: each configuration runs the two timed
procedures back to back ``--repeats`` times and prints the median of the per-repeat ratios (a
shared VM's speed drifts by 10-30% within minutes; a pair run back to back sees the same speed),
next to the fastest time of each:

1. J+aB overhead: time of ``JackknifePlusAfterBootstrap`` fit + ``predict_interval`` on 2000 test
   points divided by the time of fitting the same B = 50 models on the same resamples and
   predicting the aggregated ensemble at those points (plain bagging), for ridge and RF at
   n = 200 and n = 2000 and every aggregation ("ratio"); "steps" is the same ratio from the
   time of J+aB's own steps (see :func:`overhead`). Targets: <= 1.05 (RF), <= 1.25 (ridge,
   mean), <= 1.5 (ridge, median / trimmed mean).
2. J+ensemble / J+aB time at n = 40, m = 0.6 n (the paper's main-grid setting, B = 20, J+aB
   with the paper's Binomial B), as Tables S1-S3 measure it: one main-grid job
   (``ensemble_repro.papers.jab.cells.run_job``, ``--trials`` trials, every method alone in one process with
   one BLAS thread) at 1 worker and at 2 workers side by side, wall clock and CPU, each with
   its 95% percentile-bootstrap interval over trials; next to the ratio of model fits it
   should approach, and (parallel speed, not the paper's measure) the same ratio with each
   method's fits split over 2 worker processes (the estimators' ``n_jobs=2``, median of
   paired repeats).
3. If ``mapie`` is importable: MAPIE's ``JackknifeAfterBootstrapRegressor`` on the same data.

Data: a synthetic linear model with heavy-tailed noise, p = 100 features (about Communities').
RF here is 20 trees with the squared-error criterion (the paper's absolute-error forests at
n = 2000 take hours on a laptop; a faster base learner is the harder case for the ratio).
Usage: python benchmarks/jab_overhead.py [--repeats 3] [--sizes 200 2000] [--trials 5]
[--skip-mapie]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from threadpoolctl import threadpool_limits

from ensemble_repro.conformal import (
    JackknifePlusAfterBootstrap,
    JackknifePlusEnsemble,
    aggregate,
    draw_resamples,
    fit_models,
    paper_n_resamples,
    predict_models,
)
from ensemble_repro.conformal.core import warm_up_kernels
from ensemble_repro.conformal.estimators import warm_up_workers
from ensemble_repro.learners import make_learner
from ensemble_repro.papers.jab import cells as jab_cells
from ensemble_repro.papers.jab.report import time_ratio

P, N_TEST, B = 100, 2000, 50


def data(n: int, seed: int = 0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n + N_TEST, P)
    y = X[:, :10] @ rng.randn(10) + rng.standard_t(3, n + N_TEST)
    return X[:n], y[:n], X[n:]


def learner(name: str):
    if name == "rf":
        return RandomForestRegressor(n_estimators=20, max_features=0.3)
    return make_learner(name)


def paired_times(fns, repeats: int) -> np.ndarray:
    """(repeats, len(fns)) wall times, the functions called back to back in each repeat (in
    reversed order every other repeat), so that drifts in machine speed hit a pair alike."""
    times = np.empty((repeats, len(fns)))
    for rep in range(repeats):
        order = range(len(fns)) if rep % 2 == 0 else reversed(range(len(fns)))
        for k in order:
            t = time.perf_counter()
            fns[k]()
            times[rep, k] = time.perf_counter() - t
    return times


def paired_ratio(fns, repeats: int) -> tuple[float, float, float]:
    """Median over repeats of time(fns[0]) / time(fns[1]), and the best time of each."""
    times = paired_times(fns, repeats)
    return float(np.median(times[:, 0] / times[:, 1])), times[:, 0].min(), times[:, 1].min()


def overhead(
    name: str, n: int, aggregation: str, repeats: int
) -> tuple[float, float, float, float]:
    """Paired ratio J+aB / plain bagging; the same ratio from J+aB's own steps, 1 + (out-of-bag
    predictions and residuals + intervals - the plain ensemble's prediction) / bagging; the
    best time of J+aB and of bagging. The second is immune to the +-10% spread of the model fits, which
    decides the paired ratio when fitting dominates (RF)."""
    ratio, t_jab, t_bag = _whole_procedures(name, n, aggregation, repeats)
    X, y, X_test = data(n)
    est = JackknifePlusAfterBootstrap(
        learner(name), n_resamples=B, aggregation=aggregation, random_state=1
    ).fit(X, y)
    t_extra, t_plain = paired_times(
        [
            lambda: (est._fit_oob(X, y), est.predict_interval(X_test, alpha=0.1)),
            lambda: aggregate(predict_models(est.estimators_, X_test), aggregation),
        ],
        repeats,
    ).min(axis=0)
    return ratio, 1 + (t_extra - t_plain) / t_bag, t_jab, t_bag


def _whole_procedures(name: str, n: int, aggregation: str, repeats: int):
    X, y, X_test = data(n)
    m = n

    def bagging():
        rng = np.random.RandomState(1)
        resamples = draw_resamples(n, m, B, True, rng)
        models = fit_models(learner(name), X, y, resamples, rng.randint(2**31 - 1, size=B))
        aggregate(predict_models(models, X_test), aggregation)

    def jab():
        est = JackknifePlusAfterBootstrap(
            learner(name), n_resamples=B, aggregation=aggregation, random_state=1
        ).fit(X, y)
        est.predict_interval(X_test, alpha=0.1)

    return paired_ratio([jab, bagging], repeats)


def ensemble_vs_jab(name: str, trials: int, workers: int, repeats: int):
    """Part 2: {clock: (ratio, low, high) at 1 worker, at ``workers``}, the ratio of model fits
    and the ratio with the fits split over ``workers`` processes (parallel speed)."""
    n, m, n_resamples = 40, 24, 20
    rng = np.random.RandomState(1)
    X = rng.randn(n + N_TEST, P)
    y = X[:, :10] @ rng.randn(10) + rng.standard_t(3, n + N_TEST)
    cfg = {
        "alpha": 0.1,
        "n_trials": trials,
        "trial_seed_base": 98765,
        "aggregations": ["mean"],
        "max_test_points": None,
        "main": {"n": n, "n_resamples": n_resamples},
    }
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "synthetic.parquet"
        pd.DataFrame(X).rename(columns=str).assign(target=y).to_parquet(table)
        jobs = [
            jab_cells.run_job(
                "main",
                table,
                dataset="synthetic",
                learner=name,
                jab_cfg=cfg,
                seed=2,
                m_ratio=m / n,
                n_jobs=j,
            )
            for j in (1, workers)
        ]
    ratios = {
        clock: [time_ratio(df, column, np.random.RandomState(0)) for df in jobs]
        for clock, column in (("wall", "total_seconds"), ("CPU", "total_cpu_seconds"))
    }
    fits = jobs[0].groupby("method")["n_fits"].mean()
    n_tilde = paper_n_resamples(n_resamples, n, m, "loo")
    X_train, y_train, X_test = X[:n], y[:n], X[n:]
    warm_up_workers(make_learner(name, 0), X_train, y_train, workers)

    def jab():
        JackknifePlusAfterBootstrap(
            make_learner(name, 0),
            n_resamples=n_tilde,
            resample_size=m,
            random_B=True,
            random_state=2,
            n_jobs=workers,
        ).fit(X_train, y_train).predict_interval(X_test)

    def ens():
        JackknifePlusEnsemble(
            make_learner(name, 0),
            n_resamples=n_resamples,
            resample_size=m,
            random_state=2,
            n_jobs=workers,
        ).fit(X_train, y_train).predict_interval(X_test)

    split = paired_ratio([ens, jab], repeats)[0]
    return ratios, fits[jab_cells.JPLUS_ENSEMBLE] / fits[jab_cells.JAB], split


def _interval(ratio: tuple[float, float, float]) -> str:
    return f"{ratio[0]:5.1f} [{ratio[1]:5.1f}, {ratio[2]:5.1f}]"


def mapie_ratio(n: int, repeats: int) -> float | None:
    try:
        from mapie.regression import JackknifeAfterBootstrapRegressor
    except ImportError:
        return None
    X, y, X_test = data(n)

    def ours():
        JackknifePlusAfterBootstrap(make_learner("ridge"), n_resamples=B, random_state=1).fit(
            X, y
        ).predict_interval(X_test)

    def theirs():
        reg = JackknifeAfterBootstrapRegressor(
            estimator=make_learner("ridge"), confidence_level=0.9, resampling=B, random_state=1
        )
        reg.fit_conformalize(X, y)
        reg.predict_interval(X_test)

    return paired_ratio([ours, theirs], repeats)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--learners", nargs="+", default=["ridge", "rf"], choices=["ridge", "rf"])
    parser.add_argument(
        "--aggregations",
        nargs="+",
        default=["mean", "median", "trimmed_mean"],
        choices=["mean", "median", "trimmed_mean"],
    )
    parser.add_argument("--trials", type=int, default=5, help="trials per job in part 2")
    parser.add_argument("--skip-overhead", action="store_true", help="only parts 2 and 3")
    parser.add_argument("--skip-ensemble", action="store_true", help="skip part 2")
    parser.add_argument("--skip-mapie", action="store_true", help="skip part 3")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    # Single-threaded BLAS for both sides: nested BLAS threads on a shared 2-core box make
    # small-matrix timings meaningless.
    threadpool_limits(limits=1)
    warm_up_kernels()
    if not args.skip_overhead:
        print(f"J+aB overhead vs plain bagging (B = {B}, p = {P}, {N_TEST} test points)")
        print(
            f"{'learner':7} {'n':>5} {'aggregation':13} {'ratio':>6} {'steps':>6} {'J+aB s':>8} "
            f"{'bagging s':>9} target"
        )
    for name in [] if args.skip_overhead else args.learners:
        for n in args.sizes:
            for agg in args.aggregations:
                ratio, steps, t_jab, t_bag = overhead(name, n, agg, args.repeats)
                target = 1.05 if name == "rf" else (1.25 if agg == "mean" else 1.5)
                print(
                    f"{name:7} {n:5d} {agg:13} {ratio:6.2f} {steps:6.2f} {t_jab:8.3f} "
                    f"{t_bag:9.3f} <= {target}",
                    flush=True,
                )
    if not args.skip_ensemble:
        print(
            f"\nJ+ensemble / J+aB time, n = 40, m = 0.6 n, B = 20 (paper's main grid), "
            f"{N_TEST} test points, {args.trials} trials; each method alone in one process, one "
            "BLAS thread, fits in sequence (Tables S1-S3), the job's trials run by 1 or 2 "
            "workers; [95% percentile-bootstrap interval over trials]"
        )
        print(
            f"{'learner':7} {'clock':5} {'1 worker':>20} {'2 workers':>20} {'fits':>6}   "
            "fits split over 2 workers (parallel speed, not the paper's measure)"
        )
    for name in [] if args.skip_ensemble else args.learners:
        ratios, fits, split = ensemble_vs_jab(name, args.trials, 2, max(1, args.repeats - 1))
        for clock, (one, two) in ratios.items():
            print(
                f"{name:7} {clock:5} {_interval(one):>20} {_interval(two):>20} {fits:6.1f}   "
                + (f"{split:5.1f}" if clock == "wall" else ""),
                flush=True,
            )
    if not args.skip_mapie:
        for n in args.sizes:
            r = mapie_ratio(n, args.repeats)
            print(
                "\nMAPIE not installed (optional: pip install mapie in a separate venv)"
                if r is None
                else f"\nours / MAPIE JackknifeAfterBootstrapRegressor, ridge, n = {n}: {r:.2f}"
            )
            if r is None:
                break


if __name__ == "__main__":
    main()
