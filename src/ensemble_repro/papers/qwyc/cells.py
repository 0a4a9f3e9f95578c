"""Experiment cells of the QWYC reproduction (Wang, Gupta & You 2018, Section 5).

``model_job``: data split; for each of ``qwyc.n_splits`` carve-outs the GBT learning-rate
search on the carve-out; the GBT of every rate refitted on the whole training split (the
paper's protocol, ``fit_on: train_full``); smaller fully-evaluated ensembles. Every later
job runs each split and writes a ``split`` column. ``sweep_job``: one
early-stopping method (QWYC* / Algorithm-2 thresholds on a fixed ordering / Fan et al.) over
its alpha or gamma grid. ``sensitivity_job``: the same with one [I] switch changed.
``refit_job``: ``qwyc.n_refits`` bootstrap refits of ordering and thresholds on the fitting
rows, the GBT held fixed. ``approximation_job``: QWYC's greedy ordering against the best of
all orderings on small ensembles of sub-ensembles of the main fit. ``timing_job``: deployment
timing at matched differences (Tables 2-4 style) on every distinct fit. The sweeps and
:func:`smaller_rows` also keep per-test-row outcomes (:func:`row_frame`) for the claims'
test-row intervals. Every row carries the [I] switches that produced it. Figures, tables and
the paper's claims: :mod:`.report`.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from threadpoolctl import threadpool_limits

from ...io import read_parquet
from ...logs import Progress, get_logger
from ...qwyc import FanEarlyStopping, QuitWhenYouCan, flatten_model
from ...qwyc.cascade import partial_sums
from ...qwyc.estimators import BUDGET_RULES
from ...qwyc.timing import CascadeTimer, never_stop
from ...qwyc.trees import FlatForest, sequential_sum, split_gain
from .keys import SWITCHES
from .names import (
    CROSSFIT,
    FAN_STAR,
    QWYC_STAR,
    REFIT_METHODS,
    SMALLER_SAME_LR,
    TIMING_METHODS,
    sensitivity_methods,
)

log = get_logger("qwyc")

#: Paper names of the methods in figures and tables.
LABELS = {
    "qwyc_joint": "QWYC*",
    "qwyc_natural": "QWYC thr., natural order",
    "qwyc_random": "QWYC thr., random order",
    "qwyc_individual_mse": "QWYC thr., indiv. MSE",
    "qwyc_greedy_mse": "QWYC thr., greedy MSE",
    CROSSFIT: "QWYC* cross-fitted (extension)",
    "fan_individual_mse": "Fan*",
    "fan_natural": "Fan, natural order",
    "fan_greedy_mse": "Fan, greedy MSE",
    "fan_random": "Fan, random order",
    "fan_joint": "Fan, QWYC* order",
    "smaller_same_lr": "smaller GBT (same lr)",
    "smaller_tuned_lr": "smaller GBT (lr tuned)",
}


def switches(q: dict) -> dict:
    """The inferred ([I]) choices of the ``qwyc:`` config section (:data:`.keys.SWITCHES`), as
    written into every row: ``qwyc.fan.n_bins`` is column ``fan_n_bins``."""
    out = {}
    for key in SWITCHES:
        node = {"qwyc": q}
        for part in key.split("."):
            node = node[part]
        out[key.removeprefix("qwyc.").replace(".", "_")] = node
    return out


# ------------------------------------------------------------------ data and GBT
def _read_prepared(path) -> tuple[pd.DataFrame, pd.Series]:
    df = read_parquet(path)
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


#: Where ordering and thresholds are fitted (``qwyc.fit_on``): ``train_full`` = the paper's
#: protocol (the GBT refitted on the whole training split at the learning rate chosen on the
#: carve-out, then ordering and thresholds fitted on all training rows); ``train`` / ``validation``
#: = the GBT of the carve-out's 80% and the thresholds on those rows / on the 20% carve-out.
FIT_ON = ("train_full", "train", "validation")


def carve_out_size(n: int, q: dict) -> int:
    """Validation rows of a carve-out of ``n`` training rows: ``qwyc.gbt.validation_fraction``
    of them, rounded; the other rows are its fitting rows.

    Examples
    --------
    >>> carve_out_size(1000, {"gbt": {"validation_fraction": 0.2}})
    200
    """
    return round(q["gbt"]["validation_fraction"] * n)


def _carve_out(n: int, q: dict, seed: int, split: int) -> tuple[np.ndarray, np.ndarray]:
    """(validation rows, fitting rows) of carve-out ``split``: its own random permutation."""
    perm = np.random.default_rng([seed, 2, split]).permutation(n)
    n_val = carve_out_size(n, q)
    return np.sort(perm[:n_val]), np.sort(perm[n_val:])


def _store_forest(arrays: dict, prefix: str, base: float, forest: FlatForest) -> None:
    arrays[f"{prefix}_base"] = np.array(base)
    arrays.update({f"{prefix}_forest_{k}": v for k, v in vars(forest).items()})


def model_job(dataset: str, q: dict, seed: int, tables: dict):
    """Returns ``(search, smaller, arrays)``: the validation search table, the smaller-ensemble
    table and the arrays the sweeps need (data, flattened forests, carve-out rows).

    For each of ``qwyc.n_splits`` carve-outs (split ``s``: rows drawn by
    ``default_rng([seed, 2, s])``) the GBT is trained at every learning rate on the carve-out's
    fitting rows and the rate with the lowest validation log-loss at T trees is chosen; the
    GBT of each rate is also refitted on the whole training split (``fit_on: train_full``,
    the paper's protocol). ``tables`` maps the data set's prepared tables
    (``data.prepared_names_for``) to their parquet paths. GBT fits use one thread so results
    do not depend on the machine's core count."""
    with threadpool_limits(1):
        return _model_job(dataset, q, seed, tables)


def _model_job(dataset, q, seed, tables):
    g = q["gbt"]
    T = g["n_estimators"]
    rates = [float(lr) for lr in g["learning_rates"]]
    Xtr, ytr, Xte, yte, features = _split(dataset, q, seed, tables)
    sizes = sorted({t for t in q["smaller_ensembles"] if t <= T} | {T})
    arrays = {
        "X_train": Xtr,
        "y_train": ytr,
        "X_test": Xte,
        "y_test": yte,
        "learning_rates": np.array(rates),
        "n_splits": np.array(q["n_splits"]),
    }
    prog = Progress(len(rates) * (q["n_splits"] + 1), f"{dataset} GBT fits", log)
    full_test = _full_fits(dataset, q, seed, (Xtr, ytr, Xte), arrays, prog)
    rows, small = [], []
    for s in range(q["n_splits"]):
        va, fi = _carve_out(len(ytr), q, seed, s)
        split_rows, carve = _carve_out_fits(dataset, q, seed, s, (Xtr, ytr, va, fi), sizes, prog)
        rows += split_rows
        search = pd.DataFrame(split_rows)
        lr = _chosen_rate(dataset, s, search, T)
        arrays[f"s{s}_validation_rows"], arrays[f"s{s}_train_rows"] = va, fi
        arrays[f"s{s}_learning_rate"] = np.array(lr)
        _store_forest(arrays, f"s{s}_carve", *carve[lr])
        small += _smaller_rows(dataset, q, s, lr, search, sizes, full_test, yte)
    search = pd.DataFrame(rows)
    chosen = {s: float(arrays[f"s{s}_learning_rate"]) for s in range(q["n_splits"])}
    search["chosen"] = search.learning_rate == search.split.map(chosen)
    return search, pd.DataFrame(small), arrays


def _full_fits(dataset, q, seed, data, arrays, prog) -> dict[float, np.ndarray]:
    """The GBT of every learning rate on all training rows, stored in ``arrays``
    (``full<i>``); returns learning rate -> its test partial sums."""
    Xtr, ytr, Xte = data
    T = q["gbt"]["n_estimators"]
    full_test = {}
    for i, lr in enumerate(float(r) for r in q["gbt"]["learning_rates"]):
        base, forest = flatten_model(_gbt(q, dataset, lr, seed).fit(Xtr, ytr))
        _store_forest(arrays, f"full{i}", base, forest)
        full_test[lr] = partial_sums(forest.contributions(Xte), base, np.arange(T))
        prog.step(f"all training rows, lr={lr}")
    return full_test


def _carve_out_fits(dataset, q, seed, s, data, sizes, prog) -> tuple[list[dict], dict]:
    """Split ``s``: the GBT of every learning rate fitted on its fitting rows ``fi``, with its
    validation log-loss and accuracy on ``va`` at each of ``sizes`` trees. Returns the rows
    and learning rate -> the flattened ``(base, forest)``."""
    Xtr, ytr, va, fi = data
    g = q["gbt"]
    T, beta, depth = g["n_estimators"], q["decision_threshold"], g["max_depth"][dataset]
    rows, carve = [], {}
    for lr in (float(r) for r in g["learning_rates"]):
        t0 = time.perf_counter()
        model = _gbt(q, dataset, lr, seed).fit(Xtr[fi], ytr[fi])
        secs = time.perf_counter() - t0
        carve[lr] = flatten_model(model)
        base, forest = carve[lr]
        Gva = partial_sums(forest.contributions(Xtr[va]), base, np.arange(T))
        yva = ytr[va]
        rows += [
            {
                "dataset": dataset,
                "split": s,
                "learning_rate": lr,
                "max_depth": depth,
                "n_trees": t,
                "val_log_loss": _log_loss(yva, Gva[:, t - 1]),
                "val_accuracy": float(np.mean((Gva[:, t - 1] >= beta) == yva)),
                "train_seconds": secs if t == T else np.nan,
            }
            for t in sizes
        ]
        prog.step(f"split {s}, lr={lr}")
    return rows, carve


def _chosen_rate(dataset: str, s: int, search: pd.DataFrame, T: int) -> float:
    """Split ``s``'s learning rate: lowest validation log-loss at T trees (logged with the
    best T on that rate's validation curve)."""
    lr = _best_rate(search, T)
    best_T = search[search.learning_rate == lr].sort_values("val_log_loss").iloc[0].n_trees
    log.info(
        "%s split %d: chosen learning rate %g (validation log-loss at T=%d); best T on the "
        "validation curve of that rate: %d",
        dataset,
        s,
        lr,
        T,
        best_T,
    )
    return lr


def _smaller_rows(dataset, q, s, lr, search, sizes, full_test, yte) -> list[dict]:
    """Split ``s``'s smaller GBTs of each size on test: the first t trees of the full fit at
    the split's rate ``lr`` and at the rate validated for t trees, against the full one."""
    beta = q["decision_threshold"]
    full_dec = full_test[lr][:, -1] >= beta
    small = []
    for t in sizes:
        tuned = _best_rate(search, t)
        for method, rate in (("smaller_same_lr", lr), ("smaller_tuned_lr", tuned)):
            G = full_test[rate][:, t - 1] >= beta
            small.append(
                {
                    "dataset": dataset,
                    "split": s,
                    "method": method,
                    "label": LABELS[method],
                    "n_trees": t,
                    "learning_rate": rate,
                    "test_mean_evaluated": float(t),
                    "test_accuracy": float(np.mean(G == yte)),
                    "test_differences_pct": 100 * float(np.mean(G != full_dec)),
                }
            )
    return small


def _best_rate(search: pd.DataFrame, t: int) -> float:
    """Learning rate of lowest validation log-loss at t trees (ties: the smaller rate)."""
    at = search[search.n_trees == t]
    return float(at.sort_values(["val_log_loss", "learning_rate"]).iloc[0].learning_rate)


def forest_from(arrays, prefix: str) -> tuple[float, FlatForest]:
    """The ``(base, forest)`` stored under ``prefix`` (``full<i>`` or ``s<split>_carve``)."""
    head = f"{prefix}_forest_"
    fields = {k.removeprefix(head): arrays[k] for k in arrays if k.startswith(head)}
    for k in ("max_depth", "n_features"):
        fields[k] = int(fields[k])
    fields["float32_inputs"] = bool(fields["float32_inputs"])
    return float(arrays[f"{prefix}_base"]), FlatForest(**fields)


def n_splits_of(arrays) -> int:
    """Number of carve-outs stored by :func:`model_job`."""
    return int(arrays["n_splits"])


def fit_key(q: dict, split: int, learning_rate: float) -> tuple:
    """What names a split's fit under ``q['fit_on']``: ``train_full`` splits at the same learning
    rate share one (the GBT refitted on all training rows at that rate, ordering and thresholds
    on all of them); a carve-out's fit is its own.

    Examples
    --------
    >>> fit_key({"fit_on": "train_full"}, 3, 0.05), fit_key({"fit_on": "train"}, 3, 0.05)
    (('train_full', 0.05), ('train', 3))
    """
    if q["fit_on"] == "train_full":
        return ("train_full", learning_rate)
    return (q["fit_on"], split)


def draws_per_split(method: str) -> bool:
    """Whether a method draws afresh in every split (random orders, the cross-fitted halves),
    so that splits sharing a :func:`fit_key` still fit it once each."""
    return method.endswith("random") or method == CROSSFIT


def method_grid(method: str, q: dict) -> tuple[str, list]:
    """The parameter a method sweeps and its values: QWYC's alpha, Fan's gamma."""
    if method.startswith("qwyc"):
        return "alpha", list(q["alpha_grid"])
    return "gamma", list(q["fan"]["gamma_grid"])


def repetitions(method: str, q: dict) -> int:
    """Repetitions of each parameter value: ``n_random_orders`` for a random ordering, else 1."""
    return q["n_random_orders"] if method.endswith("random") else 1


@dataclass(frozen=True)
class FitView:
    """One split's model and fitting rows under a ``fit_on`` / learning-rate choice.

    ``key`` names the model and the fitting rows: views with equal keys give identical fits
    (e.g. ``train_full`` in two splits that chose the same learning rate)."""

    key: tuple
    F: np.ndarray
    F_test: np.ndarray
    y_test: np.ndarray
    base: float
    forest: FlatForest
    learning_rate: float


class Views:
    """Tree outputs of the stored models, computed once per (model, rows) and cached."""

    def __init__(self, arrays):
        self.arrays = arrays
        self._scores: dict = {}

    def _outputs(self, prefix: str, rows: str) -> np.ndarray:
        if (prefix, rows) not in self._scores:
            _, forest = forest_from(self.arrays, prefix)
            X = self.arrays["X_test"] if rows == "test" else self.arrays["X_train"]
            if rows not in ("test", "all"):
                X = X[self.arrays[rows]]
            self._scores[(prefix, rows)] = forest.contributions(X)
        return self._scores[(prefix, rows)]

    def view(self, split: int, q: dict) -> FitView:
        """The fit of ``split`` under ``q['fit_on']`` (and ``q['learning_rate']``, a fixed rate
        that replaces the validated one; ``train_full`` only)."""
        a, fit_on = self.arrays, q["fit_on"]
        if fit_on not in FIT_ON:
            raise ValueError(f"fit_on must be one of {', '.join(FIT_ON)}; got {fit_on!r}")
        lr = q.get("learning_rate") or float(a[f"s{split}_learning_rate"])
        if fit_on == "train_full":
            rates = [float(r) for r in a["learning_rates"]]
            if lr not in rates:
                raise ValueError(
                    f"learning_rate must be one of qwyc.gbt.learning_rates {rates}; got {lr!r}"
                )
            prefix, rows = f"full{rates.index(lr)}", "all"
        elif q.get("learning_rate"):
            raise ValueError(
                f"a fixed learning_rate needs fit_on: train_full (the GBT refitted on all "
                f"training rows at that rate); got fit_on: {fit_on!r}"
            )
        else:
            prefix, rows = f"s{split}_carve", f"s{split}_{fit_on}_rows"
        base, forest = forest_from(a, prefix)
        return FitView(
            fit_key(q, split, lr),
            self._outputs(prefix, rows),
            self._outputs(prefix, "test"),
            a["y_test"],
            base,
            forest,
            lr,
        )


def main_split(arrays, q: dict) -> int:
    """The split whose fit the claims judge: under ``fit_on: train_full`` (validated rate) the
    first split that chose the learning rate chosen by most splits (the splits sharing a rate
    share one fit; another rate is a sensitivity setting, not a replicate); else split 0.

    Examples
    --------
    >>> import numpy as np
    >>> a = {"n_splits": np.array(3), **{f"s{s}_learning_rate": np.array(r)
    ...      for s, r in enumerate([0.05, 0.02, 0.02])}}
    >>> main_split(a, {"fit_on": "train_full"}), main_split(a, {"fit_on": "train"})
    (1, 0)
    """
    if q["fit_on"] != "train_full" or q.get("learning_rate"):
        return 0
    return _majority([float(arrays[f"s{s}_learning_rate"]) for s in range(n_splits_of(arrays))])


def _majority(rates: list[float]) -> int:
    """The first split whose learning rate is the one most splits chose."""
    counts = Counter(rates)
    top = max(counts.values())
    return next(s for s, r in enumerate(rates) if counts[r] == top)


def main_split_of(points: pd.DataFrame) -> int:
    """:func:`main_split` read from a table with ``split``, ``fit_on`` and ``learning_rate``
    columns (the sweeps' points): the split of the fit the figures draw and the claims judge.

    Examples
    --------
    >>> p = pd.DataFrame({"split": [0, 1, 2], "fit_on": "train_full",
    ...                   "learning_rate": [0.05, 0.02, 0.02]})
    >>> main_split_of(p), main_split_of(p.assign(fit_on="train"))
    (1, 0)
    """
    by_split = points.groupby("split", sort=True)
    if (points["fit_on"] != "train_full").any():
        return int(min(by_split.groups))
    rates = by_split["learning_rate"].first()
    return int(rates.index[_majority([float(r) for r in rates])])


def figure_table(points: pd.DataFrame, smaller: pd.DataFrame) -> pd.DataFrame:
    """Every point Figure 1 draws, from one fit (:func:`main_split_of`): the sweep points of
    that split (means over random repetitions, :func:`tradeoff_table`) and one row per
    smaller-GBT size and variant of the same split (``param = n_trees``; ``learning_rate``: the
    fit's rate for ``smaller_same_lr``, the rate validated at that size for
    ``smaller_tuned_lr``).

    Examples
    --------
    >>> pts = pd.DataFrame({"split": [0, 1], "fit_on": "train_full", "learning_rate": 0.1,
    ...                     "method": "qwyc_joint", "value": 0.0, "full_test_accuracy": 0.8})
    >>> sm = pd.DataFrame({"split": [0, 0, 1], "method": "smaller_same_lr", "n_trees": [5, 10, 5],
    ...                    "learning_rate": 0.1})
    >>> figure_table(pts, sm)[["split", "method", "value"]].to_numpy().tolist()
    [[0, 'qwyc_joint', 0.0], [0, 'smaller_same_lr', 5.0], [0, 'smaller_same_lr', 10.0]]
    """
    split = main_split_of(points)
    p = points[points["split"] == split]
    s = smaller[smaller["split"] == split]
    s = s.assign(
        param="n_trees",
        value=s["n_trees"].astype(float),
        fit_on=p["fit_on"].iloc[0],
        full_test_accuracy=p["full_test_accuracy"].iloc[0],
    ).drop(columns="n_trees")
    return pd.concat([p, s], ignore_index=True)


#: Columns of the per-test-row tables: one row per test example x operating point, in test-set
#: order within each operating point (``row`` is the test example's index).
ROW_COLUMNS = (
    "split",
    "learning_rate",
    "method",
    "value",
    "repetition",
    "row",
    "differs",
    "correct",
    "n_evaluated",
)


def row_frame(split, learning_rate, method, value, rep, decision, n_evaluated, full, y):
    """Per-test-row outcomes of one operating point (Section 5's test-set measures): whether
    the early-exit decision differs from the full ensemble's, whether it is correct, and the
    number of base models evaluated (tau(x) of Section 1.5). Compact dtypes: bool, int16.

    Examples
    --------
    >>> import numpy as np
    >>> f = row_frame(0, 0.1, "qwyc_joint", 0.0, 0, np.array([True, False]), np.array([3, 40]),
    ...               np.array([True, True]), np.array([1, 1]))
    >>> f[["differs", "correct", "n_evaluated"]].to_numpy().tolist()
    [[False, True, 3], [True, False, 40]]
    """
    n = len(decision)
    return pd.DataFrame(
        {
            "split": np.full(n, split, np.int16),
            "learning_rate": np.full(n, learning_rate, np.float32),
            "method": pd.Categorical([method] * n),
            "value": np.full(n, value, np.float32),
            "repetition": np.full(n, rep, np.int16),
            "row": np.arange(n, dtype=np.int32),
            "differs": np.asarray(decision) != np.asarray(full),
            "correct": np.asarray(decision) == np.asarray(y).astype(bool),
            "n_evaluated": np.asarray(n_evaluated).astype(np.int16),
        }
    )[list(ROW_COLUMNS)]


def smaller_rows(arrays, q: dict) -> pd.DataFrame:
    """Per-test-row outcomes (:func:`row_frame`, ``method = smaller_same_lr``, ``value`` = T')
    of the smaller GBTs of the main fit (:func:`main_split`): the first T' trees of the full
    GBT, fully evaluated, for every size of ``qwyc.smaller_ensembles`` (the paper's baseline of
    smaller ensembles, Figure 1)."""
    v = Views(arrays).view(main_split(arrays, q), q)
    beta = q["decision_threshold"]
    T = v.F_test.shape[1]
    G = partial_sums(v.F_test, v.base, np.arange(T))
    full = G[:, -1] >= beta
    sizes = sorted({t for t in q["smaller_ensembles"] if t <= T} | {T})
    split = main_split(arrays, q)
    return pd.concat(
        [
            row_frame(
                split,
                v.learning_rate,
                SMALLER_SAME_LR,
                t,
                0,
                G[:, t - 1] >= beta,
                np.full(len(full), t),
                full,
                v.y_test,
            )
            for t in sizes
        ],
        ignore_index=True,
    )


# ------------------------------------------------------------------ sweeps
def _estimator(method: str, value: float, q: dict, rs, F, base, ordering=None):
    family, name = method.split("_", 1)
    ordering = name if ordering is None else ordering
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
        ordering = _estimator(QWYC_STAR, 0.0, q, rs, F, base).fit_scores(base, F).order_
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


def fit_method(method: str, value: float, q: dict, seed: int, split: int, rep: int, F, base):
    """``(estimator, fitting rows)``: ``method`` at parameter ``value`` fitted on the tree
    outputs ``F`` (rows x base models) of one split.

    ``qwyc_crossfit`` (an extension beyond the paper) takes Algorithm 1's ordering from one
    random half of ``F`` (``default_rng([seed, 5, split])``) and fits the Algorithm 2
    thresholds on the other half, which it returns as its fitting rows."""
    rs = np.random.default_rng([seed, 3, split, rep])  # per split and replicate (random orders)
    if method != CROSSFIT:
        return _estimator(method, value, q, rs, F, base).fit_scores(base, F), F
    perm = np.random.default_rng([seed, 5, split]).permutation(len(F))
    half_a, half_b = np.sort(perm[: len(F) // 2]), np.sort(perm[len(F) // 2 :])
    order = _estimator(QWYC_STAR, value, q, rs, F, base).fit_scores(base, F[half_a]).order_
    Fb = F[half_b]
    return _estimator(CROSSFIT, value, q, rs, Fb, base, ordering=order).fit_scores(base, Fb), Fb


def sweep_job(
    arrays, dataset: str, method: str, q: dict, seed: int, per_row: list | None = None
) -> pd.DataFrame:
    """Tidy rows, one per (split, parameter value, random repetition) of one method.

    Splits whose fit is identical (same :class:`FitView` key, e.g. ``train_full`` at the
    same learning rate) reuse the first one's rows unless the method draws per split (random
    orders, the cross-fitted halves). When ``per_row`` is a list, the per-test-row outcomes
    (:func:`row_frame`) of the main fit's split (:func:`main_split`) are appended to it."""
    with threadpool_limits(1):
        views = arrays if isinstance(arrays, Views) else Views(arrays)
        param, grid = method_grid(method, q)
        reps = repetitions(method, q)
        random = draws_per_split(method)
        n_splits = n_splits_of(views.arrays)
        keep = main_split(views.arrays, q) if per_row is not None else None
        prog = Progress(len(grid) * reps * n_splits, f"{dataset} {method}", log)
        done: dict[tuple, list[dict]] = {}
        rows = []
        for split in range(n_splits):
            v = views.view(split, q)
            if v.key in done and not random:
                rows += [{**r, "split": split} for r in done[v.key]]
                prog.step(f"split {split}: same fit as an earlier split", len(grid) * reps)
                continue
            beta = q["decision_threshold"]
            full_test = sequential_sum(v.base, v.F_test) >= beta
            mine = []
            for rep in range(reps):
                for value in grid:
                    t0 = time.perf_counter()
                    est, Ffit = fit_method(method, value, q, seed, split, rep, v.F, v.base)
                    secs = time.perf_counter() - t0
                    dfit, nfit = est.evaluate(Ffit)
                    dte, nte = est.evaluate(v.F_test)
                    full_fit = sequential_sum(v.base, Ffit) >= beta
                    if split == keep:
                        per_row.append(
                            row_frame(
                                split,
                                v.learning_rate,
                                method,
                                value,
                                rep,
                                dte,
                                nte,
                                full_test,
                                v.y_test,
                            )
                        )
                    mine.append(
                        {
                            "dataset": dataset,
                            "split": split,
                            "method": method,
                            "label": LABELS[method],
                            "param": param,
                            "value": float(value),
                            "repetition": rep,
                            "learning_rate": v.learning_rate,
                            "n_fit": len(Ffit),
                            "n_test": len(v.F_test),
                            "fit_differences_pct": 100 * float(np.mean(dfit != full_fit)),
                            "fit_mean_evaluated": float(nfit.mean()),
                            "test_differences_pct": 100 * float(np.mean(dte != full_test)),
                            "test_mean_evaluated": float(nte.mean()),
                            "test_sd_evaluated": float(nte.std(ddof=1)),
                            "test_accuracy": float(np.mean(dte == v.y_test)),
                            "full_test_accuracy": float(np.mean(full_test == v.y_test)),
                            "fit_seconds": secs,
                            **switches(q),
                        }
                    )
                    prog.step(f"split {split} {param}={value} rep={rep}")
            done[v.key] = mine
            rows += mine
        return pd.DataFrame(rows)


def tradeoff_table(sweeps: pd.DataFrame) -> pd.DataFrame:
    """Mean over random repetitions of each (split, method, parameter value): the Figure 1
    points of every split, with the split's ``fit_on`` and learning rate (the claims count
    ``train_full`` splits sharing a rate once)."""
    keys = ["dataset", "split", "method", "label", "param", "value", "fit_on"]
    cols = [
        "learning_rate",
        "n_test",
        "test_mean_evaluated",
        "test_sd_evaluated",
        "test_differences_pct",
        "test_accuracy",
        "full_test_accuracy",
        "fit_mean_evaluated",
        "fit_differences_pct",
        "fit_seconds",
    ]
    out = sweeps.groupby(keys, sort=False)[cols].mean().reset_index()
    return out.rename(columns={"fit_seconds": "mean_fit_seconds"})


def split_mean(points: pd.DataFrame) -> pd.DataFrame:
    """Figure 1 points averaged over splits (what the figures draw)."""
    keys = [k for k in ("dataset", "setting", "method", "label", "param", "value") if k in points]
    cols = points.select_dtypes("number").columns.difference(keys + ["split"])
    return points.groupby(keys, sort=False)[list(cols)].mean().reset_index()


# ------------------------------------------------------------------ sensitivity
#: Sensitivity settings: name -> the [I] switches it overrides. The paper fits ordering and
#: thresholds on "the train set" (Section 5); ``fit_on_train`` / ``fit_on_validation`` fit
#: them on the carve-out's 80% or on the 20% carve-out instead. ``budget_rule_*`` spreads the
#: α budget over steps another way; ``fan_score_*`` puts Fan's bins on the margin or the
#: sigmoid. Learning-rate settings (``learning_rate_<lr>``, one per rate of
#: ``qwyc.gbt.learning_rates``) fix the rate instead of choosing it by validation.
SENSITIVITY = {
    **{f"fit_on_{v}": {"fit_on": v} for v in FIT_ON},
    **{f"budget_rule_{v}": {"budget_rule": v} for v in BUDGET_RULES},
    **{f"fan_score_{v}": {"fan_score": v} for v in ("margin", "sigmoid")},
}
LR_SETTING = "learning_rate_"


def setting_switches(setting: str) -> dict:
    """The switches a sensitivity setting overrides (``learning_rate_0.05`` ->
    ``{"fit_on": "train_full", "learning_rate": 0.05}``)."""
    if setting.startswith(LR_SETTING):
        try:
            lr = float(setting.removeprefix(LR_SETTING))
        except ValueError:
            lr = None
        if lr is not None:
            return {"fit_on": "train_full", "learning_rate": lr}
    if setting not in SENSITIVITY:
        raise ValueError(
            f"setting must be one of {', '.join(SENSITIVITY)} or {LR_SETTING}<rate>; "
            f"got {setting!r}"
        )
    return SENSITIVITY[setting]


def sensitivity_config(q: dict, setting: str) -> dict:
    """The ``qwyc:`` config with the switches of ``setting`` overridden."""
    over = dict(setting_switches(setting))
    if "fan_score" in over:
        return {**q, "fan": {**q["fan"], "score": over.pop("fan_score")}}
    return {**q, **over}


def sensitivity_job(
    arrays, dataset: str, setting: str, q: dict, seed: int, per_row: list | None = None
) -> pd.DataFrame:
    """Figure 1 points (``tradeoff_table``) of the ``SENSITIVITY_METHODS`` affected by
    ``setting``, refitted with its switches; column ``setting`` names it. ``per_row``: as in
    :func:`sweep_job` (the main split of the setting's fit)."""
    qs = sensitivity_config(q, setting)
    views = Views(arrays)
    sweeps = pd.concat(
        [sweep_job(views, dataset, m, qs, seed, per_row) for m in sensitivity_methods(setting)],
        ignore_index=True,
    )
    return tradeoff_table(sweeps).assign(setting=setting, **setting_switches(setting))


# ------------------------------------------------------------------ refits
def bootstrap_rows(n: int, seed: int, refit: int) -> np.ndarray:
    """Row indices of bootstrap refit ``refit``: ``n`` draws with replacement from ``n`` rows
    (``default_rng([seed, 6, refit])``), sorted.

    Examples
    --------
    >>> idx = bootstrap_rows(5, 0, 0)
    >>> idx.size, bool((idx == bootstrap_rows(5, 0, 0)).all())
    (5, True)
    """
    return np.sort(np.random.default_rng([seed, 6, refit]).integers(0, n, n))


def refit_points(sweeps: pd.DataFrame, q: dict, split: int) -> dict[str, list[float]]:
    """The parameter values the claims judge, per ``REFIT_METHODS`` method: on the main fit's
    sweep points, the one with the fewest mean models at <= each ``qwyc.timing.target_differences``
    level and the one with the lowest test differences (ties: fewest models, then the smaller
    value; means over random repetitions)."""
    pts = sweeps[(sweeps["split"] == split) & sweeps["method"].isin(REFIT_METHODS)]
    pts = pts.groupby(["method", "value"], as_index=False)[
        ["test_differences_pct", "test_mean_evaluated"]
    ].mean()
    out = {}
    for method, g in pts.groupby("method", sort=False):
        chosen = {
            float(
                g.sort_values(["test_differences_pct", "test_mean_evaluated", "value"])
                .iloc[0]
                .value
            )
        }
        for target in q["timing"]["target_differences"]:
            ok = g[g.test_differences_pct <= 100 * target + 1e-9]
            if len(ok):
                chosen.add(float(ok.sort_values(["test_mean_evaluated", "value"]).iloc[0].value))
        out[method] = sorted(chosen)
    return out


def refit_job(arrays, sweeps: pd.DataFrame, dataset: str, q: dict, seed: int) -> pd.DataFrame:
    """``qwyc.n_refits`` bootstrap refits of ordering and thresholds (Algorithm 1 for QWYC*,
    Algorithm 2 on the natural order, Fan et al. for Fan*: ``REFIT_METHODS``) on resamples of
    the main fit's fitting rows (:func:`main_split`), the GBT held fixed, each evaluated on the
    whole test set, at the operating points the claims judge (:func:`refit_points` of the
    main sweeps ``sweeps``). The refits measure how a fit's test outcomes vary with the rows
    it is fitted on (the over-fit of the thresholds to those rows is where test differences
    come from).

    Returns
    -------
    DataFrame
        One row per (refit, method, parameter value): test difference and correct counts,
        mean and sd of models evaluated per test row, fit time.
    """
    with threadpool_limits(1):
        split = main_split(arrays, q)
        v = Views(arrays).view(split, q)
        beta = q["decision_threshold"]
        full_test = sequential_sum(v.base, v.F_test) >= beta
        grids = refit_points(sweeps, q, split)
        n_refits = q["n_refits"]
        prog = Progress(n_refits * sum(map(len, grids.values())), f"{dataset} refits", log)
        rows = []
        for b in range(n_refits):
            idx = bootstrap_rows(len(v.F), seed, b)
            Fb = v.F[idx]
            full_fit = sequential_sum(v.base, Fb) >= beta
            for method, grid in grids.items():
                param = method_grid(method, q)[0]
                for value in grid:
                    t0 = time.perf_counter()
                    est, _ = fit_method(method, value, q, seed, split, 0, Fb, v.base)
                    secs = time.perf_counter() - t0
                    dfit, _ = est.evaluate(Fb)
                    dte, nte = est.evaluate(v.F_test)
                    rows.append(
                        {
                            "dataset": dataset,
                            "split": split,
                            "learning_rate": v.learning_rate,
                            "refit": b,
                            "method": method,
                            "label": LABELS[method],
                            "param": param,
                            "value": float(value),
                            "n_fit": len(Fb),
                            "n_fit_distinct": int(np.unique(idx).size),
                            "fit_differences_pct": 100 * float(np.mean(dfit != full_fit)),
                            "n_test": len(v.F_test),
                            "test_differences": int(np.sum(dte != full_test)),
                            "test_correct": int(np.sum(dte == v.y_test)),
                            "test_mean_evaluated": float(nte.mean()),
                            "test_sd_evaluated": float(nte.std(ddof=1)),
                            "fit_seconds": secs,
                            **switches(q),
                        }
                    )
                    prog.step(f"refit {b} {method} {param}={value}")
        return pd.DataFrame(rows)


# ------------------------------------------------------------------ approximation
def block_ensemble(F: np.ndarray, n_models: int, rng: np.random.Generator) -> np.ndarray:
    """The trees' scores ``F`` (N x T) summed over a random partition of the T trees into
    ``n_models`` blocks of near-equal size: an ensemble of ``n_models`` sub-ensembles with the
    same sum (the paper's Section 2 reading of a base model as a sub-ensemble).

    Examples
    --------
    >>> F = np.arange(12.0).reshape(2, 6)
    >>> B = block_ensemble(F, 3, np.random.default_rng(0))
    >>> B.shape, bool(np.allclose(B.sum(axis=1), F.sum(axis=1)))
    ((2, 3), True)
    """
    blocks = np.array_split(rng.permutation(F.shape[1]), n_models)
    return np.stack([F[:, b].sum(axis=1) for b in blocks], axis=1)


def approximation_job(arrays, dataset: str, q: dict, seed: int) -> pd.DataFrame:
    """QWYC's greedy ordering (Algorithm 1, alpha = 0) against the best of all orderings
    (:func:`ensemble_repro.qwyc.exhaustive.exhaustive_order`) on ``qwyc.approximation.n_ensembles``
    small ensembles made from the main fit (:func:`main_split`): draw ``i`` (``default_rng([seed,
    8, i])``) takes the smaller GBT of its first ``n_models x trees_per_model`` trees, splits
    them at random into ``n_models`` base models of ``trees_per_model`` trees
    (:func:`block_ensemble`, equal costs) and takes ``n_rows`` of the fitting rows at random.
    (Blocks of the whole GBT are each strong enough to stop nearly every row alone, which
    leaves no ordering to choose.)

    Returns
    -------
    DataFrame
        One row per draw: mean # base models per example of the greedy and the optimal
        ordering on the draw's rows, their ratio and the search time.
    """
    from ...qwyc.exhaustive import approximation_ratio

    a = q["approximation"]
    trees = a["n_models"] * a["trees_per_model"]  # <= T: checked with the config
    with threadpool_limits(1):
        split = main_split(arrays, q)
        v = Views(arrays).view(split, q)
        rows = []
        prog = Progress(a["n_ensembles"], f"{dataset} exhaustive orderings", log)
        for i in range(a["n_ensembles"]):
            rng = np.random.default_rng([seed, 8, i])
            idx = np.sort(rng.choice(len(v.F), min(a["n_rows"], len(v.F)), replace=False))
            F = block_ensemble(v.F[idx, :trees], a["n_models"], rng)
            t0 = time.perf_counter()
            greedy, optimum, ratio = approximation_ratio(
                v.base, F, q["decision_threshold"], tie_break=q["tie_break"]
            )
            rows.append(
                {
                    "dataset": dataset,
                    "split": split,
                    "learning_rate": v.learning_rate,
                    "draw": i,
                    "n_models": a["n_models"],
                    "trees_per_model": a["trees_per_model"],
                    "n_rows": len(idx),
                    "greedy_mean_models": greedy,
                    "optimal_mean_models": optimum,
                    "ratio": ratio,
                    "seconds": time.perf_counter() - t0,
                    **switches(q),
                }
            )
            prog.step(f"draw {i}: ratio {ratio:.3f}")
        return pd.DataFrame(rows)


# ------------------------------------------------------------------ timing
def _pick(points: pd.DataFrame, target_pct: float) -> pd.Series:
    """The sweep point whose test differences are closest to the target (then fewest models)."""
    d = (points.test_differences_pct - target_pct).abs()
    return points.assign(_d=d).sort_values(["_d", "test_mean_evaluated"]).iloc[0]


def timing_job(arrays, sweeps: pd.DataFrame, dataset: str, q: dict, seed: int):
    """Per-example evaluation time of the full ensemble, Fan* and QWYC* at each target
    difference level, in compiled code, on every distinct fit (splits sharing a fit, e.g.
    ``train_full`` at the same learning rate, are timed once under the first of them).

    Returns
    -------
    summary : DataFrame
        Mean and sd over ``timing.runs`` runs over the test set, per fit, method and target
        level, with the speed-ups.
    runs : DataFrame
        The per-run times (the methods take turns within a run, so runs pair up: the claims'
        paired intervals over the timing runs).
    """
    with threadpool_limits(1):
        views = Views(arrays)
        X = arrays["X_test"]
        seen, rows, runs = set(), [], []
        n_splits = n_splits_of(arrays)
        progress = Progress(n_splits, f"qwyc timing {dataset}: compiled cascades, split", log)
        log.info(
            "qwyc timing %s: %d runs over %d test rows of each distinct fit's cascades "
            "(full ensemble, Fan*, QWYC* at each target), split by split",
            dataset,
            q["timing"]["runs"],
            len(X),
        )
        for split in range(n_splits):
            v = views.view(split, q)
            if v.key in seen:
                progress.step("shares an earlier fit: timed there")
                continue
            seen.add(v.key)
            part, per_run = _time_fit(v, X, sweeps, dataset, q, seed, split)
            progress.step(f"timed ({q['timing']['runs']} runs over {len(X)} test rows)")
            rows.append(part)
            runs.append(per_run)
        return pd.concat(rows, ignore_index=True), pd.concat(runs, ignore_index=True)


def _time_fit(v: FitView, X, sweeps, dataset, q, seed, split):
    F, base, forest = v.F, v.base, v.forest
    timer = CascadeTimer(forest, base)
    T = forest.n_trees
    cascades = {("full", "", np.nan, 0.0): never_stop(T, q["decision_threshold"])}
    for target in q["timing"]["target_differences"]:
        for method in TIMING_METHODS:
            sw = sweeps[sweeps.method == method]
            pt = _pick(sw[sw.split == split] if "split" in sw else sw, 100 * target)
            est, _ = fit_method(method, pt.value, q, seed, split, 0, F, base)
            cascades[(method, pt.param, pt.value, target)] = est.cascade_
    full_dec = sequential_sum(base, v.F_test) >= q["decision_threshold"]
    times = timer.per_example_times(cascades, X, q["timing"]["runs"])
    fit = {"dataset": dataset, "split": split, "learning_rate": v.learning_rate}
    rows, per_run = [], []
    for key, cas in cascades.items():
        method, param, value, target = key
        dec, nev, _ = timer.run(cas, X)
        t = times[key]
        head = {**fit, "target_differences_pct": 100 * target, "method": method}
        rows.append(
            {
                **head,
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
        per_run += [{**head, "run": r, "per_example_seconds": float(x)} for r, x in enumerate(t)]
    out = pd.DataFrame(rows)
    full_t = out.loc[out.method == "full", "per_example_mean_seconds"].iloc[0]
    # ratios of measured times (io.drop_timing treats speedup* columns as run-dependent)
    out["speedup_vs_full"] = full_t / out.per_example_mean_seconds
    fan_t = out[out.method == FAN_STAR].set_index("target_differences_pct").per_example_mean_seconds
    out["speedup_vs_fan"] = [
        fan_t[r.target_differences_pct] / r.per_example_mean_seconds
        if r.method == QWYC_STAR
        else np.nan
        for r in out.itertuples()
    ]
    return out, pd.DataFrame(per_run)


# ------------------------------------------------------------------ arrays
def save_arrays(arrays: dict, path) -> None:
    from ...io import atomic_path

    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)


def load_arrays(path) -> dict:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}
