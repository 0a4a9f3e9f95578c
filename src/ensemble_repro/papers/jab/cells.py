"""Experiment cells of Kim, Xu & Barber (2020): Section 5 and Appendix D (docs/papers/jab.md).

Each cell function returns tidy rows (one per data set x learner x aggregation x method x m/n x
trial). One set of fitted models serves all aggregations (fit once, aggregate three ways).
Randomness: trial t's split is drawn with numpy seeded by ``trial_seed_base + t`` (the paper's
protocol); resamples and learner seeds come from a generator seeded from (config seed, grid,
data set, learner, m/n, trial, method), so results do not depend on thread count.

Timing (Tables S1-S3) measures each method the way the paper ran it: one process, one BLAS
thread, its model fits in sequence. A job given several workers runs whole trials side by side
(one trial per worker process, each method inside a trial timed alone on its core), never one
method's fits across workers: that made J+ensemble's 800 fits, not J+aB's ~20, faster with
more cores, and the J+ensemble / J+aB time ratio a property of ``--cores``.
"""

from __future__ import annotations

import time
import warnings
import zlib

import numpy as np

from ...conformal import core
from ...conformal.estimators import (
    fit_models,
    loo_resamples,
    parallel_fit,
    predict_models,
    predict_out_of_bag,
)
from ...learners import make_learner

JAB, JAB_FIXED, JAB_RANDOM = "J+aB", "J+aB fixed B", "J+aB random B"
JPLUS_ENSEMBLE, JPLUS = "J+ensemble", "J+non-ensemble"
#: The cell kind (:func:`run_job`) each J+aB rule of ``workflow/rules/jab.smk`` runs.
RULE_KINDS = {
    "jab_main_cell": "main",
    "jab_jplus_cell": "jplus",
    "jab_fixed_vs_random_cell": "fixed_vs_random",
    "jab_without_replacement_cell": "without_replacement",
}
#: Test rows processed at once by J+ensemble (bounds memory at n * B * chunk floats).
TEST_CHUNK = 4096


def derived_seed(seed: int, *parts) -> int:
    """A 32-bit seed from the config seed and the cell's identity (stable across runs/platforms)."""
    words = [int(seed)] + [zlib.crc32(str(p).encode()) for p in parts]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


def n_test_rows(n_total: int, n: int, max_test: int | None = None) -> int:
    """Test rows of a trial (:func:`trial_split`): every row not drawn for training, at most
    ``max_test``.

    Examples
    --------
    >>> n_test_rows(100, 20), n_test_rows(100, 20, max_test=50)
    (80, 50)
    """
    return n_total - n if max_test is None else min(n_total - n, max_test)


def trial_split(
    n_total: int, n: int, trial_seed: int, max_test: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The paper's split: numpy seeded with ``trial_seed`` draws n training rows without
    replacement; every other row is a test row. ``max_test`` (laptop-scale configs only) keeps
    a random subset of that many test rows, drawn next from the same generator, so the
    training rows stay the paper's."""
    rs = np.random.RandomState(trial_seed)
    train = rs.choice(n_total, n, replace=False)
    test = np.setdiff1d(np.arange(n_total), train)
    keep = n_test_rows(n_total, n, max_test)
    if len(test) > keep:
        test = np.sort(rs.choice(test, keep, replace=False))
    return train, test


def resample_size(n: int, m_ratio: float) -> int:
    """m = round(n * m/n) (at least 1)."""
    return max(1, int(np.rint(n * m_ratio)))


def _metrics(lower, upper, y_test) -> dict:
    return {
        "coverage": float(np.mean((y_test >= lower) & (y_test <= upper))),
        "mean_width": float(np.mean(upper - lower)),
    }


def _quiet(fn, *args, **kwargs):
    """Run ``fn`` with the MLP's convergence warnings silenced (the paper uses default max_iter)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _now() -> np.ndarray:
    """Wall-clock and CPU time of this process (seconds): a span's difference gives both. CPU
    time is what the process itself computed, immune to other processes sharing its core."""
    return np.array([time.perf_counter(), time.process_time()])


def _timing(fit, predict, aggregation) -> dict:
    """Wall-clock seconds of each step (from :func:`_now` differences) and the CPU seconds of
    all three."""
    return {
        "fit_seconds": float(fit[0]),
        "predict_seconds": float(predict[0]),
        "aggregation_seconds": float(aggregation[0]),
        "total_cpu_seconds": float(fit[1] + predict[1] + aggregation[1]),
    }


def jab_rows(
    X,
    y,
    X_test,
    y_test,
    learner: str,
    m: int,
    n_resamples: int,
    random_B: bool,
    aggregations,
    alpha: float,
    rng,
    method_name: str,
    replace: bool = True,
) -> list[dict]:
    """J+aB (Algorithm 2) with every aggregation from one set of B fitted models, fitted in
    sequence in this process like J+ensemble's, so their wall-clock times compare. ``replace``:
    resamples drawn with replacement (bootstrap) or without (subsampling, Section 2.2)."""
    n = len(y)
    B = core.draw_n_resamples(n_resamples, n, m, replace, rng) if random_B else n_resamples
    resamples = core.draw_resamples(n, m, B, replace, rng)
    seeds = rng.randint(np.iinfo(np.int32).max, size=B)
    t0 = _now()
    models = _quiet(fit_models, make_learner(learner), X, y, resamples, seeds)
    t1 = _now()
    in_bag = core.in_bag_mask(resamples, n)
    train_pred = predict_out_of_bag(models, X, in_bag)
    test_pred = predict_models(models, X_test)
    t2 = _now()
    oob_counts = (~in_bag).sum(axis=0)
    rows = []
    for agg in aggregations:
        t3 = _now()
        residuals = np.abs(y - core.oob_self_aggregate(train_pred, in_bag, agg))
        lower, upper = core.jab_interval(test_pred, in_bag, residuals, alpha, agg)
        metrics = _metrics(lower, upper, y_test)
        rows.append(
            {
                "aggregation": agg,
                "method": method_name,
                **metrics,
                "B": B,
                "n_fits": B,
                "models_per_loo": float(oob_counts.mean()),
                "empty_oob_sets": int((oob_counts == 0).sum()),
                **_timing(t1 - t0, t2 - t1, _now() - t3),
            }
        )
    return rows


def loo_rows(
    X,
    y,
    X_test,
    y_test,
    learner: str,
    resample_sets,
    aggregations,
    alpha: float,
    rng,
    method_name: str,
) -> list[dict]:
    """Jackknife+ around n leave-one-out ensembles (J+ensemble, Algorithm 4; with one model per
    set and no aggregation, J+non-ensemble, Algorithm 5). Fits run in sequence in this process."""
    n = len(y)
    seed_sets = [rng.randint(np.iinfo(np.int32).max, size=len(r)) for r in resample_sets]
    t0 = _now()
    model_sets = _quiet(parallel_fit, make_learner(learner), X, y, resample_sets, seed_sets, 1)
    fit_seconds = _now() - t0
    agg_seconds = {agg: np.zeros(2) for agg in aggregations}
    t = _now()
    own = np.stack(
        [predict_models(models, X[i : i + 1])[:, 0] for i, models in enumerate(model_sets)]
    )
    predict_seconds = _now() - t
    residuals, lower, upper = {}, {}, {}
    for agg in aggregations:
        t = _now()
        residuals[agg] = np.abs(y - core.aggregate(own.T, agg))
        lower[agg], upper[agg] = np.empty(len(y_test)), np.empty(len(y_test))
        agg_seconds[agg] += _now() - t
    for start in range(0, len(y_test), TEST_CHUNK):
        sl = slice(start, min(start + TEST_CHUNK, len(y_test)))
        t = _now()
        pred = np.stack([predict_models(models, X_test[sl]) for models in model_sets])  # (n, B, c)
        predict_seconds += _now() - t
        for agg in aggregations:
            t = _now()
            loo = core.loo_aggregate(pred, agg)
            lower[agg][sl], upper[agg][sl] = core.plus_interval(loo, residuals[agg], alpha)
            agg_seconds[agg] += _now() - t
    B = len(resample_sets[0])
    rows = []
    for agg in aggregations:
        t = _now()
        metrics = _metrics(lower[agg], upper[agg], y_test)
        rows.append(
            {
                "aggregation": agg,
                "method": method_name,
                **metrics,
                "B": B,
                "n_fits": n * B,
                "models_per_loo": float(B),
                "empty_oob_sets": 0,
                **_timing(fit_seconds, predict_seconds, agg_seconds[agg] + _now() - t),
            }
        )
    return rows


def _with_totals(rows: list[dict], ident: dict) -> list[dict]:
    out = []
    for r in rows:
        r = {**ident, **r}
        r["total_seconds"] = r["fit_seconds"] + r["predict_seconds"] + r["aggregation_seconds"]
        out.append(r)
    return out


def _trial_setup(
    X, y, dataset, learner, m_ratio, trial, n, alpha, trial_seed_base, max_test_points
):
    """The trial's split (train X, y, test X, y), m, and the identifying columns of its rows."""
    train, test = trial_split(len(y), n, trial_seed_base + trial, max_test_points)
    m = resample_size(n, m_ratio)
    ident = {
        "dataset": dataset,
        "learner": learner,
        "m_ratio": float(m_ratio),
        "m": m,
        "trial": trial,
        "n": n,
        "n_test": len(test),
        "alpha": alpha,
    }
    return (X[train], y[train], X[test], y[test]), m, ident


def main_cell(
    X,
    y,
    *,
    dataset: str,
    learner: str,
    m_ratio: float,
    trial: int,
    n: int,
    n_resamples: int,
    aggregations,
    alpha: float,
    seed: int,
    trial_seed_base: int,
    max_test_points: int | None = None,
    replace: bool = True,
) -> list[dict]:
    """One trial of the main grid (Figures 1, 2, S1-S4): J+aB with random B matched per
    leave-one-out set to J+ensemble's B = n_resamples, and J+ensemble.

    ``replace=False`` is the sampling sensitivity setting: both methods draw their resamples
    without replacement (subsampling; Algorithms 1-2 and Section 2.2 allow either, the paper's
    experiments bootstrap), B matched with Theorem 1's 1 - m/(n+1). Needs m <= n - 1 (a
    J+ensemble ensemble leaves one of the n points out).
    """
    (Xtr, ytr, Xte, yte), m, ident = _trial_setup(
        X, y, dataset, learner, m_ratio, trial, n, alpha, trial_seed_base, max_test_points
    )
    if not replace and m > n - 1:
        raise ValueError(
            f"sampling without replacement needs m <= n - 1 = {n - 1}; m/n = {m_ratio:g} gives "
            f"m = {m} (jab.without_replacement.m_ratios: use values below {(n - 0.5) / n:.3g})"
        )
    grid = "main" if replace else "without_replacement"
    rng = np.random.RandomState(derived_seed(seed, grid, dataset, learner, m_ratio, trial, "jab"))
    rows = jab_rows(
        Xtr,
        ytr,
        Xte,
        yte,
        learner,
        m,
        core.paper_n_resamples(n_resamples, n, m, "loo", replace),
        True,
        aggregations,
        alpha,
        rng,
        JAB,
        replace,
    )
    rng = np.random.RandomState(derived_seed(seed, grid, dataset, learner, m_ratio, trial, "ens"))
    sets = [loo_resamples(n, i, m, n_resamples, replace, rng) for i in range(n)]
    rows += loo_rows(Xtr, ytr, Xte, yte, learner, sets, aggregations, alpha, rng, JPLUS_ENSEMBLE)
    return _with_totals(rows, ident)


def jplus_cell(
    X,
    y,
    *,
    dataset: str,
    learner: str,
    trial: int,
    n: int,
    alpha: float,
    seed: int,
    trial_seed_base: int,
    max_test_points: int | None = None,
) -> list[dict]:
    """One trial of J+non-ensemble (independent of m; drawn at every m/n in the figures)."""
    train, test = trial_split(len(y), n, trial_seed_base + trial, max_test_points)
    rng = np.random.RandomState(derived_seed(seed, "jplus", dataset, learner, trial))
    sets = [np.delete(np.arange(n), i)[None, :] for i in range(n)]
    rows = loo_rows(
        X[train], y[train], X[test], y[test], learner, sets, ["mean"], alpha, rng, JPLUS
    )
    rows[0]["aggregation"] = "none"
    ident = {
        "dataset": dataset,
        "learner": learner,
        "m_ratio": np.nan,
        "m": n,
        "trial": trial,
        "n": n,
        "n_test": len(test),
        "alpha": alpha,
    }
    return _with_totals(rows, ident)


def fixed_vs_random_cell(
    X,
    y,
    *,
    dataset: str,
    learner: str,
    m_ratio: float,
    trial: int,
    n: int,
    n_resamples: int,
    aggregations,
    alpha: float,
    seed: int,
    trial_seed_base: int,
    max_test_points: int | None = None,
) -> list[dict]:
    """One trial of Appendix D.3 (Figures S5-S10): J+aB with fixed B = n_resamples vs random
    B ~ Binomial(floor(n_resamples / (1 - 1/(n+1))^m), (1 - 1/(n+1))^m)."""
    (Xtr, ytr, Xte, yte), m, ident = _trial_setup(
        X, y, dataset, learner, m_ratio, trial, n, alpha, trial_seed_base, max_test_points
    )
    rng = np.random.RandomState(
        derived_seed(seed, "fvr", dataset, learner, m_ratio, trial, "fixed")
    )
    rows = jab_rows(
        Xtr, ytr, Xte, yte, learner, m, n_resamples, False, aggregations, alpha, rng, JAB_FIXED
    )
    rng = np.random.RandomState(
        derived_seed(seed, "fvr", dataset, learner, m_ratio, trial, "random")
    )
    rows += jab_rows(
        Xtr,
        ytr,
        Xte,
        yte,
        learner,
        m,
        core.paper_n_resamples(n_resamples, n, m, "fits"),
        True,
        aggregations,
        alpha,
        rng,
        JAB_RANDOM,
    )
    return _with_totals(rows, ident)


# ----------------------------------------------------------------------------- workflow jobs
def load_prepared(path) -> tuple[np.ndarray, np.ndarray]:
    """Features and target of a prepared table (feature columns, then ``target``)."""
    from ...io import read_parquet

    df = read_parquet(path)
    return df.drop(columns="target").to_numpy(dtype=float), df["target"].to_numpy(dtype=float)


def run_job(
    kind: str,
    table_path,
    *,
    dataset: str,
    learner: str,
    jab_cfg: dict,
    seed: int,
    m_ratio: float | None = None,
    n_jobs=None,
):
    """All trials of one (grid, data set, learner, m/n) job as a tidy DataFrame.

    ``kind`` is "main", "jplus", "fixed_vs_random" or "without_replacement" (the main grid's
    methods with resamples drawn without replacement, the sampling sensitivity setting);
    ``jab_cfg`` the config's ``jab`` section.
    ``n_jobs`` worker processes (the rule's threads) run whole trials side by side; inside a
    trial every method runs alone, one BLAS thread, fits in sequence (module docstring), so the
    rows, timing columns included, measure the same thing whatever ``n_jobs``.
    """
    import pandas as pd
    from joblib import Parallel, delayed, parallel_config

    from ...logs import Progress

    X, y = load_prepared(table_path)
    common = {
        "dataset": dataset,
        "learner": learner,
        "alpha": jab_cfg["alpha"],
        "seed": seed,
        "trial_seed_base": jab_cfg["trial_seed_base"],
        "max_test_points": jab_cfg["max_test_points"],
    }
    trials = range(jab_cfg["n_trials"])
    progress = Progress(len(trials), f"jab {kind} {dataset} {learner} m/n={m_ratio}")
    rows = []
    with parallel_config(backend="loky", inner_max_num_threads=1):
        parts = Parallel(n_jobs=min(_n_workers(n_jobs), len(trials)), return_as="generator")(
            delayed(_trial_rows)(kind, X, y, jab_cfg, common, m_ratio, t) for t in trials
        )
        for trial, part in zip(
            trials, parts, strict=False
        ):  # in trial order whatever the worker count
            rows += part
            progress.step(f"trial {trial}")
    return pd.DataFrame(rows)


def kind_grid(kind: str, jab_cfg: dict) -> dict:
    """The grid section of the ``jab`` config a cell kind reads its n and ``n_resamples``
    from: ``fixed_vs_random`` its own, every other kind the main grid's."""
    return jab_cfg["fixed_vs_random"] if kind == "fixed_vs_random" else jab_cfg["main"]


def _n_workers(n_jobs) -> int:
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ValueError(
            f"n_jobs must be a positive number of worker processes (the rule's "
            f"threads) or None for 1; got {n_jobs!r}"
        )
    return n_jobs


#: Learners whose fit and kernels this process has run once (outside any timed trial).
_WARM: set[str] = set()


def _warm_up(learner: str, X, y) -> None:
    """Load the compiled kernels and run one small fit of ``learner`` in this process, so that
    the first timed trial does not pay the imports and the kernels' loading (~0.5 s)."""
    if learner not in _WARM:
        core.warm_up_kernels()
        rows = np.arange(min(len(y), 10))
        _quiet(fit_models, make_learner(learner), X, y, [rows], [0])
        _WARM.add(learner)


def _trial_rows(kind, X, y, jab_cfg, common, m_ratio, trial) -> list[dict]:
    """One trial's rows, timed in this process with one BLAS thread (nested BLAS threads on
    small matrices oversubscribe the cores: 70x slower MLP fits seen)."""
    from threadpoolctl import threadpool_limits

    _warm_up(common["learner"], X, y)
    grid = kind_grid(kind, jab_cfg)
    with threadpool_limits(limits=1):
        if kind in ("main", "without_replacement"):
            return main_cell(
                X,
                y,
                trial=trial,
                m_ratio=m_ratio,
                n=grid["n"],
                n_resamples=grid["n_resamples"],
                aggregations=jab_cfg["aggregations"],
                replace=kind == "main",
                **common,
            )
        if kind == "jplus":
            return jplus_cell(X, y, trial=trial, n=grid["n"], **common)
        return fixed_vs_random_cell(
            X,
            y,
            trial=trial,
            m_ratio=m_ratio,
            n=grid["n"],
            n_resamples=grid["n_resamples"],
            aggregations=jab_cfg["aggregations"],
            **common,
        )
