"""Experiment cells of the QWYC reproduction (Wang, Gupta & You 2018; spec §5.1).

``model_job``: data split, GBT learning-rate search on a validation carve-out, the final
T-tree GBT and its score matrices, smaller fully-evaluated ensembles. ``sweep_job``: one
early-stopping method (QWYC* / Algorithm-2 thresholds on a fixed ordering / Fan et al.) over
its alpha or gamma grid. ``sensitivity_job``: the same with one [I] switch changed.
``timing_job``: deployment timing at matched differences (Tables 2-4 style). Every row
carries the [I] switches that produced it. Figures, tables and the paper's claims:
:mod:`.qwyc_report`.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from threadpoolctl import threadpool_limits

from ..logs import Progress, get_logger
from ..qwyc import FanEarlyStopping, QuitWhenYouCan, flatten_model
from ..qwyc.cascade import partial_sums
from ..qwyc.estimators import BUDGET_RULES
from ..qwyc.timing import CascadeTimer, never_stop
from ..qwyc.trees import FlatForest, sequential_sum, split_gain
from .names import FAN_STAR, QWYC_STAR, TIMING_METHODS, sensitivity_methods

log = get_logger("qwyc")

#: Paper names of the methods in figures and tables.
LABELS = {
    "qwyc_joint": "QWYC*",
    "qwyc_natural": "QWYC thr., natural order",
    "qwyc_random": "QWYC thr., random order",
    "qwyc_individual_mse": "QWYC thr., indiv. MSE",
    "qwyc_greedy_mse": "QWYC thr., greedy MSE",
    "fan_individual_mse": "Fan*",
    "fan_natural": "Fan, natural order",
    "fan_greedy_mse": "Fan, greedy MSE",
    "fan_random": "Fan, random order",
    "fan_joint": "Fan, QWYC* order",
    "smaller_same_lr": "smaller GBT (same lr)",
    "smaller_tuned_lr": "smaller GBT (lr tuned)",
}


def switches(q: dict) -> dict:
    """The inferred ([I]) choices of the ``qwyc:`` config section, as written into every row."""
    fan = q["fan"]
    return {
        "budget_rule": q["budget_rule"],
        "side_split": q["side_split"],
        "tie_break": q["tie_break"],
        "fit_on": q["fit_on"],
        "decision_threshold": q["decision_threshold"],
        "fan_n_bins": fan["n_bins"],
        "fan_bin_kind": fan["bin_kind"],
        "fan_stats_on_survivors": fan["stats_on_survivors"],
        "fan_min_bin_count": fan["min_bin_count"],
        "fan_score": fan["score"],
        "gbt_min_samples_leaf": q["gbt"]["min_samples_leaf"],
    }


# ------------------------------------------------------------------ data and GBT
def _read_prepared(path) -> tuple[pd.DataFrame, pd.Series]:
    df = pd.read_parquet(path)
    return df.drop(columns="target"), df["target"]


def _split(dataset: str, q: dict, seed: int, tables: dict):
    """Train/test arrays from the prepared tables (``tables``: prepared name -> parquet path).
    Adult: the standard split; Nomao: random 80/20, then the ``nomao_n_features`` features
    with the largest total split gain of a GBT fitted on the training split."""
    if dataset == "adult":
        Xtr, ytr = _read_prepared(tables["adult_train"])
        Xte, yte = _read_prepared(tables["adult_test"])
        return (
            Xtr.to_numpy(float),
            ytr.to_numpy(int),
            Xte.to_numpy(float),
            yte.to_numpy(int),
            list(Xtr.columns),
        )
    X, y = _read_prepared(tables["nomao"])
    rng = np.random.default_rng([seed, 1])
    perm = rng.permutation(len(y))
    n_test = round(q["nomao_test_fraction"] * len(y))
    te, tr = perm[:n_test], perm[n_test:]
    Xa, ya = X.to_numpy(float), y.to_numpy(int)
    gbt = _gbt(
        q, dataset, q["gbt"]["learning_rates"][0], seed, n_estimators=q["gbt"]["importance_trees"]
    )
    gain = split_gain(gbt.fit(Xa[tr], ya[tr]))
    keep = np.sort(np.argsort(-gain, kind="stable")[: q["nomao_n_features"]])
    log.info("nomao: kept features %s (largest total split gain)", list(X.columns[keep]))
    return Xa[tr][:, keep], ya[tr], Xa[te][:, keep], ya[te], list(X.columns[keep])


def _gbt(q: dict, dataset: str, lr: float, seed: int, n_estimators=None, depth=None):
    """The HistGradientBoosting configuration of the experiments: T trees of the given depth,
    no leaf-count cap, no early stopping (so the first T' trees are the T'-tree model)."""
    g = q["gbt"]
    return HistGradientBoostingClassifier(
        learning_rate=lr,
        max_iter=n_estimators or g["n_estimators"],
        max_depth=depth or g["max_depth"][dataset],
        max_leaf_nodes=None,
        early_stopping=False,
        min_samples_leaf=g["min_samples_leaf"],
        categorical_features=None,
        random_state=seed,
    )


def _log_loss(y, margin):
    return float(np.mean(np.logaddexp(0, margin) - y * margin))


def model_job(dataset: str, q: dict, seed: int, tables: dict):
    """Returns ``(search, smaller, arrays)``: the validation search table, the smaller-ensemble
    table and the arrays the sweeps need (score matrices, labels, flattened forest, X_test).

    ``tables`` maps the data set's prepared tables (``data.prepared_names_for``) to their
    parquet paths. GBT fits use one thread so results do not depend on the machine's core
    count."""
    with threadpool_limits(1):
        return _model_job(dataset, q, seed, tables)


def _model_job(dataset, q, seed, tables):
    g = q["gbt"]
    T = g["n_estimators"]
    Xtr, ytr, Xte, yte, features = _split(dataset, q, seed, tables)
    perm = np.random.default_rng([seed, 2]).permutation(len(ytr))
    n_val = round(g["validation_fraction"] * len(ytr))
    va, fi = perm[:n_val], perm[n_val:]
    sizes = sorted({t for t in q["smaller_ensembles"] if t <= T} | {T})
    rows, fits = [], {}
    grid = [(lr, g["max_depth"][dataset]) for lr in g["learning_rates"]]
    prog = Progress(len(grid), f"{dataset} GBT search", log)
    for lr, depth in grid:
        t0 = time.perf_counter()
        model = _gbt(q, dataset, lr, seed).fit(Xtr[fi], ytr[fi])
        secs = time.perf_counter() - t0
        base, forest = flatten_model(model)
        Gva = partial_sums(forest.contributions(Xtr[va]), base, np.arange(T))
        Gte = partial_sums(forest.contributions(Xte), base, np.arange(T))
        fits[lr] = (model, base, forest, Gte)
        for t in sizes:
            rows.append(
                {
                    "dataset": dataset,
                    "learning_rate": lr,
                    "max_depth": depth,
                    "n_trees": t,
                    "val_log_loss": _log_loss(yva := ytr[va], Gva[:, t - 1]),
                    "val_accuracy": float(np.mean((Gva[:, t - 1] >= 0) == yva)),
                    "train_seconds": secs if t == T else np.nan,
                }
            )
        prog.step(f"lr={lr}")
    search = pd.DataFrame(rows)
    at_T = search[search.n_trees == T]
    lr = float(at_T.sort_values(["val_log_loss", "learning_rate"]).iloc[0].learning_rate)
    search["chosen"] = search.learning_rate == lr
    best_T = search[search.learning_rate == lr].sort_values("val_log_loss").iloc[0].n_trees
    log.info(
        "%s: chosen learning rate %g (validation log-loss at T=%d); best T on the "
        "validation curve of that rate: %d",
        dataset,
        lr,
        T,
        best_T,
    )
    model, base, forest, Gte = fits[lr]
    full_test = Gte[:, -1] >= q["decision_threshold"]
    small = []
    for t in sizes:
        sub = search[search.n_trees == t]
        tuned = float(sub.sort_values(["val_log_loss", "learning_rate"]).iloc[0].learning_rate)
        for method, rate in (("smaller_same_lr", lr), ("smaller_tuned_lr", tuned)):
            G = fits[rate][3][:, t - 1] >= q["decision_threshold"]
            small.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "label": LABELS[method],
                    "n_trees": t,
                    "learning_rate": rate,
                    "test_mean_evaluated": float(t),
                    "test_accuracy": float(np.mean(G == yte)),
                    "test_differences_pct": 100 * float(np.mean(G != full_test)),
                }
            )
    # both candidate fitting sets (``fit_on``: train = the GBT's own training rows, validation =
    # the carve-out), so the fit_on sensitivity reuses this model
    arrays = {
        "F_train": forest.contributions(Xtr[fi]),
        "y_train": ytr[fi],
        "F_validation": forest.contributions(Xtr[va]),
        "y_validation": ytr[va],
        "F_test": forest.contributions(Xte),
        "y_test": yte,
        "X_test": Xte,
        "base": np.array(base),
        "learning_rate": np.array(lr),
    }
    arrays.update({f"forest_{k}": v for k, v in vars(forest).items()})
    return search, pd.DataFrame(small), arrays


def forest_from(arrays) -> FlatForest:
    fields = {k.removeprefix("forest_"): arrays[k] for k in arrays if k.startswith("forest_")}
    for k in ("max_depth", "n_features"):
        fields[k] = int(fields[k])
    fields["float32_inputs"] = bool(fields["float32_inputs"])
    return FlatForest(**fields)


# ------------------------------------------------------------------ sweeps
def _estimator(method: str, value: float, q: dict, rep: int, seed: int, F, base):
    family, ordering = method.split("_", 1)
    rs = np.random.default_rng([seed, 3, rep])  # per-replicate stream (random orderings)
    if family == "qwyc":
        return QuitWhenYouCan(
            value,
            ordering=ordering,
            decision_threshold=q["decision_threshold"],
            budget_rule=q["budget_rule"],
            side_split=q["side_split"],
            tie_break=q["tie_break"],
            random_state=rs,
        )
    fan = q["fan"]
    if ordering == "joint":  # Fan's rule on the QWYC* ordering fitted with alpha = 0
        ordering = _estimator(QWYC_STAR, 0.0, q, rep, seed, F, base).fit_scores(base, F).order_
    return FanEarlyStopping(
        value,
        n_bins=fan["n_bins"],
        ordering=ordering,
        bin_kind=fan["bin_kind"],
        stats_on_survivors=fan["stats_on_survivors"],
        min_bin_count=fan["min_bin_count"],
        bin_score=fan["score"],
        decision_threshold=q["decision_threshold"],
        random_state=rs,
    )


def sweep_job(arrays, dataset: str, method: str, q: dict, seed: int) -> pd.DataFrame:
    """Tidy rows, one per (parameter value, random repetition) of one method."""
    with threadpool_limits(1):
        F, base = arrays[f"F_{q['fit_on']}"], float(arrays["base"])
        Fte, yte = arrays["F_test"], arrays["y_test"]
        beta = q["decision_threshold"]
        full_fit = sequential_sum(base, F) >= beta
        full_test = sequential_sum(base, Fte) >= beta
        param, grid = (
            ("alpha", q["alpha_grid"])
            if method.startswith("qwyc")
            else ("gamma", q["fan"]["gamma_grid"])
        )
        reps = q["n_random_orders"] if method.endswith("random") else 1
        prog = Progress(len(grid) * reps, f"{dataset} {method}", log)
        rows = []
        for rep in range(reps):
            for value in grid:
                t0 = time.perf_counter()
                est = _estimator(method, value, q, rep, seed, F, base).fit_scores(base, F)
                secs = time.perf_counter() - t0
                dfit, nfit = est.evaluate(F)
                dte, nte = est.evaluate(Fte)
                rows.append(
                    {
                        "dataset": dataset,
                        "method": method,
                        "label": LABELS[method],
                        "param": param,
                        "value": float(value),
                        "repetition": rep,
                        "n_fit": len(F),
                        "n_test": len(Fte),
                        "fit_differences_pct": 100 * float(np.mean(dfit != full_fit)),
                        "fit_mean_evaluated": float(nfit.mean()),
                        "test_differences_pct": 100 * float(np.mean(dte != full_test)),
                        "test_mean_evaluated": float(nte.mean()),
                        "test_accuracy": float(np.mean(dte == yte)),
                        "full_test_accuracy": float(np.mean(full_test == yte)),
                        "fit_seconds": secs,
                        **switches(q),
                    }
                )
                prog.step(f"{param}={value} rep={rep}")
        return pd.DataFrame(rows)


def tradeoff_table(sweeps: pd.DataFrame) -> pd.DataFrame:
    """Mean over random repetitions of each (method, parameter value): the Figure 1 points."""
    keys = ["dataset", "method", "label", "param", "value"]
    cols = [
        "test_mean_evaluated",
        "test_differences_pct",
        "test_accuracy",
        "full_test_accuracy",
        "fit_mean_evaluated",
        "fit_differences_pct",
        "fit_seconds",
    ]
    out = sweeps.groupby(keys, sort=False)[cols].mean().reset_index()
    return out.rename(columns={"fit_seconds": "mean_fit_seconds"})


# ------------------------------------------------------------------ sensitivity
#: Sensitivity settings: name -> the [I] switches it overrides (spec §1.4 and §5.1: thresholds
#: fitted on the training split, "also run with a 20% validation carve-out"; budget rules §1.3).
SENSITIVITY = {
    **{f"fit_on_{v}": {"fit_on": v} for v in ("train", "validation")},
    **{f"budget_rule_{v}": {"budget_rule": v} for v in BUDGET_RULES},
}


def sensitivity_config(q: dict, setting: str) -> dict:
    """The ``qwyc:`` config with the switches of ``setting`` overridden."""
    if setting not in SENSITIVITY:
        raise ValueError(f"setting must be one of {', '.join(SENSITIVITY)}; got {setting!r}")
    return {**q, **SENSITIVITY[setting]}


def sensitivity_job(arrays, dataset: str, setting: str, q: dict, seed: int) -> pd.DataFrame:
    """Figure 1 points (``tradeoff_table``) of the ``SENSITIVITY_METHODS`` affected by
    ``setting``, refitted with its switches; column ``setting`` names it."""
    qs = sensitivity_config(q, setting)
    methods = sensitivity_methods(setting)
    sweeps = pd.concat(
        [sweep_job(arrays, dataset, m, qs, seed) for m in methods], ignore_index=True
    )
    return tradeoff_table(sweeps).assign(setting=setting, **SENSITIVITY[setting])


# ------------------------------------------------------------------ timing
def _pick(points: pd.DataFrame, target_pct: float) -> pd.Series:
    """The sweep point whose test differences are closest to the target (then fewest models)."""
    d = (points.test_differences_pct - target_pct).abs()
    return points.assign(_d=d).sort_values(["_d", "test_mean_evaluated"]).iloc[0]


def timing_job(arrays, sweeps: pd.DataFrame, dataset: str, q: dict, seed: int) -> pd.DataFrame:
    """Per-example evaluation time (mean and sd over ``timing.runs`` runs over the test set) of
    the full ensemble, Fan* and QWYC* at each target difference level, in compiled code."""
    with threadpool_limits(1):
        F, base = arrays[f"F_{q['fit_on']}"], float(arrays["base"])
        forest = forest_from(arrays)
        X = arrays["X_test"]
        timer = CascadeTimer(forest, base)
        T = forest.n_trees
        cascades = {("full", "", np.nan, 0.0): never_stop(T, q["decision_threshold"])}
        for target in q["timing"]["target_differences"]:
            for method in TIMING_METHODS:
                pt = _pick(sweeps[sweeps.method == method], 100 * target)
                est = _estimator(method, pt.value, q, 0, seed, F, base).fit_scores(base, F)
                cascades[(method, pt.param, pt.value, target)] = est.cascade_
        full_dec = sequential_sum(base, arrays["F_test"]) >= q["decision_threshold"]
        times = timer.per_example_times(cascades, X, q["timing"]["runs"])
        rows = []
        for key, cas in cascades.items():
            method, param, value, target = key
            dec, nev, _ = timer.run(cas, X)
            t = times[key]
            rows.append(
                {
                    "dataset": dataset,
                    "target_differences_pct": 100 * target,
                    "method": method,
                    "label": "full ensemble" if method == "full" else LABELS[method],
                    "param": param,
                    "value": value,
                    "test_differences_pct": 100 * float(np.mean(dec != full_dec)),
                    "test_mean_evaluated": float(nev.mean()),
                    "runs": q["timing"]["runs"],
                    "per_example_mean_seconds": float(t.mean()),
                    "per_example_sd_seconds": float(t.std(ddof=1)) if t.size > 1 else 0.0,
                    **switches(q),
                }
            )
        out = pd.DataFrame(rows)
        full_t = out.loc[out.method == "full", "per_example_mean_seconds"].iloc[0]
        # ratios of measured times (io.drop_timing treats speedup* columns as run-dependent)
        out["speedup_vs_full"] = full_t / out.per_example_mean_seconds
        fan_t = (
            out[out.method == FAN_STAR].set_index("target_differences_pct").per_example_mean_seconds
        )
        out["speedup_vs_fan"] = [
            fan_t[r.target_differences_pct] / r.per_example_mean_seconds
            if r.method == QWYC_STAR
            else np.nan
            for r in out.itertuples()
        ]
        return out


# ------------------------------------------------------------------ arrays
def save_arrays(arrays: dict, path) -> None:
    from ..io import atomic_path

    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)


def load_arrays(path) -> dict:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}
