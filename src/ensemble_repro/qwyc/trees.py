"""Per-tree contributions of a fitted scikit-learn gradient-boosted binary classifier.

The trees are flattened into node arrays (:class:`FlatForest`) and walked level by level
with numpy, every example and every tree at once. The walk repeats the comparisons
scikit-learn makes (``x <= threshold``, NaN routed by ``missing_go_to_left``; the classic
``GradientBoostingClassifier`` compares float32-rounded inputs), so each contribution is
the very number scikit-learn adds, and ``base`` plus the contributions summed left to right
in the natural order (``sequential_sum``) equals ``decision_function`` bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
from sklearn.utils.validation import check_is_fitted

#: Rows walked at once by :meth:`FlatForest.contributions` (bounds the node matrix memory).
_CHUNK_ROWS = 4096


@dataclass(frozen=True)
class FlatForest:
    """All trees of an ensemble as flat node arrays (built by :func:`flatten_model`).

    Node ``i`` sends ``x`` to ``left[i]`` when ``x[feature[i]] <= threshold[i]`` (or, for NaN,
    when ``missing_left[i]``), else to ``right[i]``. Leaves point to themselves on both
    sides, so a walk of ``max_depth`` levels ends on the leaf whatever the tree's depth.

    Parameters
    ----------
    feature, threshold, left, right, missing_left : ndarray of shape (n_nodes,)
        Split feature, threshold, children and NaN direction of every node.
    value : ndarray of shape (n_nodes,)
        Leaf outputs, already multiplied by the learning rate (0 on inner nodes).
    roots : ndarray of int, shape (T,)
        Node index of each tree's root.
    max_depth : int
        Depth of the deepest tree.
    n_features : int
        Features the model was fitted on.
    float32_inputs : bool
        Compare float32-rounded features (the classic ``GradientBoostingClassifier`` does).
    allow_nan : bool, default=True
        Whether the model accepts NaN features (the classic ``GradientBoostingClassifier``
        does not); infinite features are always refused.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> from ensemble_repro.qwyc import flatten_model
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> gbt = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    >>> base, forest = flatten_model(gbt)
    >>> forest.n_trees, forest.contributions(X[:3]).shape
    (5, (3, 5))
    """

    feature: np.ndarray  # (n_nodes,) int32
    threshold: np.ndarray  # (n_nodes,) float64
    left: np.ndarray  # (n_nodes,) int32
    right: np.ndarray  # (n_nodes,) int32
    missing_left: np.ndarray  # (n_nodes,) uint8
    value: np.ndarray  # (n_nodes,) float64
    roots: np.ndarray  # (T,) int32, node index of each tree's root
    max_depth: int
    n_features: int
    float32_inputs: bool  # classic GBT compares float32-rounded features
    allow_nan: bool = True

    def __post_init__(self):
        kinds = {
            "feature": ((np.integer,), np.int32),
            "threshold": ((np.floating,), np.float64),
            "left": ((np.integer,), np.int32),
            "right": ((np.integer,), np.int32),
            "missing_left": ((np.integer, np.bool_), np.uint8),
            "value": ((np.floating,), np.float64),
            "roots": ((np.integer,), np.int32),
        }
        n_nodes = np.asarray(self.feature).size
        for name, (kind, dtype) in kinds.items():
            a = np.asarray(getattr(self, name))
            ok_kind = any(np.issubdtype(a.dtype, k) for k in kind)
            if a.ndim != 1 or not ok_kind or (name != "roots" and a.size != n_nodes):
                raise ValueError(
                    f"{name} must be a 1-D {dtype.__name__} array"
                    + ("" if name == "roots" else f" of {n_nodes} nodes")
                    + f"; got {a.dtype} of shape {a.shape}"
                )
            object.__setattr__(self, name, np.ascontiguousarray(a, dtype=dtype))
        if isinstance(self.n_features, bool) or not isinstance(self.n_features, (int, np.integer)):
            raise ValueError(f"n_features must be an int; got {self.n_features!r}")
        idx = np.arange(n_nodes)
        leaf = (self.left == idx) & (self.right == idx)
        inner = ~leaf
        problems = []
        if self.roots.size == 0 or np.any((self.roots < 0) | (self.roots >= n_nodes)):
            problems.append(f"roots must be at least one node index in [0, {n_nodes})")
        if np.any(inner & ((self.feature < 0) | (self.feature >= self.n_features))):
            problems.append(f"feature of every split must be in [0, {self.n_features})")
        if np.any(inner & ((self.left <= idx) | (self.right <= idx))):
            problems.append("children must follow their node (left, right > node index)")
        if np.any((self.left >= n_nodes) | (self.right >= n_nodes)):
            problems.append(f"children must be node indices below {n_nodes}")
        if problems:
            raise ValueError("not a valid forest: " + "; ".join(problems))

    @property
    def n_trees(self) -> int:
        """Number of trees T."""
        return int(self.roots.size)

    def prepare(self, X) -> np.ndarray:
        """``X`` as the C-contiguous float64 matrix the comparisons are made on.

        Parameters
        ----------
        X : array-like of shape (N, n_features)
            Examples.

        Returns
        -------
        ndarray of shape (N, n_features)
            float64, rounded through float32 when ``float32_inputs``.
        """
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"X must be a 2-D array with {self.n_features} columns (the model's "
                f"features); got shape {X.shape}"
            )
        bad = np.isinf(X) if self.allow_nan else ~np.isfinite(X)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            allowed = (
                "NaN is allowed, infinity is not" if self.allow_nan else "the model refuses NaN"
            )
            raise ValueError(
                f"X must hold finite values ({allowed}); got {X[row, col]} in row {row}, "
                f"column {col} ({int(bad.sum())} such entries)"
            )
        if self.float32_inputs:
            X = X.astype(np.float32).astype(np.float64)
        return np.ascontiguousarray(X)

    def contributions(self, X) -> np.ndarray:
        """Output of every tree on every example, learning rate included.

        Parameters
        ----------
        X : array-like of shape (N, n_features)
            Examples.

        Returns
        -------
        F : ndarray of shape (N, T)
            ``F[i, t]``: output of tree ``t`` on row ``i``.
        """
        X = self.prepare(X)
        F = np.empty((X.shape[0], self.n_trees))
        for start in range(0, X.shape[0], _CHUNK_ROWS):
            Xc = X[start : start + _CHUNK_ROWS]
            rows = np.arange(Xc.shape[0])[:, None]
            node = np.broadcast_to(self.roots, (Xc.shape[0], self.n_trees)).copy()
            for _ in range(self.max_depth):
                x = Xc[rows, self.feature[node]]
                go_left = np.where(
                    np.isnan(x), self.missing_left[node].astype(bool), x <= self.threshold[node]
                )
                node = np.where(go_left, self.left[node], self.right[node])
            F[start : start + _CHUNK_ROWS] = self.value[node]
        return F


def _pack(trees, n_features: int, float32_inputs: bool, allow_nan: bool) -> FlatForest:
    """Concatenate per-tree node tables ``(feature, threshold, left, right, missing_left,
    value, is_leaf, depth)`` into one :class:`FlatForest`."""
    parts = {k: [] for k in ("feature", "threshold", "left", "right", "missing_left", "value")}
    roots, offset, depth = [], 0, 0
    for feat, thr, left, right, miss, val, leaf, d in trees:
        n = feat.size
        idx = np.arange(n) + offset
        parts["feature"].append(np.where(leaf, 0, feat))
        parts["threshold"].append(np.where(leaf, np.inf, thr))
        parts["left"].append(np.where(leaf, idx, left + offset))
        parts["right"].append(np.where(leaf, idx, right + offset))
        parts["missing_left"].append(np.asarray(miss, dtype=np.uint8))
        parts["value"].append(np.where(leaf, val, 0.0))
        roots.append(offset)
        offset += n
        depth = max(depth, int(d))
    return FlatForest(
        feature=np.concatenate(parts["feature"]).astype(np.int32),
        threshold=np.concatenate(parts["threshold"]).astype(np.float64),
        left=np.concatenate(parts["left"]).astype(np.int32),
        right=np.concatenate(parts["right"]).astype(np.int32),
        missing_left=np.concatenate(parts["missing_left"]).astype(np.uint8),
        value=np.concatenate(parts["value"]).astype(np.float64),
        roots=np.asarray(roots, dtype=np.int32),
        max_depth=depth,
        n_features=int(n_features),
        float32_inputs=float32_inputs,
        allow_nan=allow_nan,
    )


def flatten_model(model) -> tuple[float, FlatForest]:
    """Flatten the trees of a fitted binary gradient-boosted classifier.

    Parameters
    ----------
    model : GradientBoostingClassifier or HistGradientBoostingClassifier
        Fitted, binary, without native categorical splits; a ``GradientBoostingClassifier``
        with a constant ``init`` (None, ``"zero"`` or a prior / constant ``DummyClassifier``).

    Returns
    -------
    base : float
        The boosting initial score b0.
    forest : FlatForest
        The trees as flat node arrays.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import GradientBoostingClassifier
    >>> from ensemble_repro.qwyc import flatten_model
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> base, forest = flatten_model(GradientBoostingClassifier(n_estimators=4).fit(X, y))
    >>> forest.n_trees, forest.float32_inputs
    (4, True)
    """
    if not isinstance(model, (GradientBoostingClassifier, HistGradientBoostingClassifier)):
        raise ValueError(
            "model must be a fitted sklearn GradientBoostingClassifier or "
            f"HistGradientBoostingClassifier; got {type(model).__name__}"
        )
    check_is_fitted(model)
    if len(model.classes_) != 2:
        raise ValueError(f"model must be a binary classifier; it has {len(model.classes_)} classes")
    if isinstance(model, HistGradientBoostingClassifier):
        if model.is_categorical_ is not None and np.any(model.is_categorical_):
            raise ValueError(
                "model uses native categorical splits; encode categories as numbers "
                "(categorical_features=None) so every split is a threshold"
            )
        trees = []
        for (pred,) in model._predictors:
            nd = pred.nodes
            trees.append(
                (
                    nd["feature_idx"],
                    nd["num_threshold"],
                    nd["left"],
                    nd["right"],
                    nd["missing_go_to_left"],
                    nd["value"],
                    nd["is_leaf"].astype(bool),
                    nd["depth"].max(),
                )
            )
        base = float(np.ravel(model._baseline_prediction)[0])
        return base, _pack(trees, model.n_features_in_, float32_inputs=False, allow_nan=True)
    if not _constant_init(model.init):
        raise ValueError(
            f"model.init = {model.init!r} gives every row its own initial score, but a "
            "cascade starts every row from one constant b0, so its decisions would differ "
            "from the model's; refit the model with init=None (the class prior) or 'zero'"
        )
    trees = []
    for est in model.estimators_[:, 0]:
        t = est.tree_
        leaf = t.children_left == -1
        trees.append(
            (
                t.feature,
                t.threshold,
                t.children_left,
                t.children_right,
                t.missing_go_to_left,
                model.learning_rate * t.value[:, 0, 0],
                leaf,
                t.max_depth,
            )
        )
    base = float(model._raw_predict_init(np.zeros((1, model.n_features_in_)))[0, 0])
    return base, _pack(trees, model.n_features_in_, float32_inputs=True, allow_nan=False)


def _constant_init(init) -> bool:
    """Whether a ``GradientBoostingClassifier`` ``init`` gives every row the same score."""
    if init is None or (isinstance(init, str) and init == "zero"):
        return True
    return isinstance(init, DummyClassifier) and init.strategy in (
        "prior",
        "most_frequent",
        "constant",
    )


def sequential_sum(base: float, F: np.ndarray) -> np.ndarray:
    """``((base + F[:, 0]) + F[:, 1]) + ...``: the ensemble score summed in scikit-learn's order.

    Parameters
    ----------
    base : float
        Initial score b0.
    F : ndarray of shape (N, T)
        Per-tree scores.

    Returns
    -------
    ndarray of shape (N,)
        The full ensemble score f, rounded as scikit-learn rounds it.

    Examples
    --------
    >>> from ensemble_repro.qwyc import sequential_sum
    >>> sequential_sum(0.5, np.array([[1.0, 2.0], [-1.0, 0.25]]))
    array([ 3.5 , -0.25])
    """
    out = np.full(F.shape[0], float(base))
    for t in range(F.shape[1]):
        out += F[:, t]
    return out


def tree_scores(model, X) -> tuple[float, np.ndarray]:
    """Exact per-tree contributions of a fitted gradient-boosted binary classifier.

    ``sequential_sum(base, F)`` equals ``model.decision_function(X)`` exactly; ``base +
    F.sum(1)`` equals it up to the rounding of numpy's pairwise summation. The pair is what
    the early-exit estimators' ``fit_scores(base, F)`` takes.

    Parameters
    ----------
    model : GradientBoostingClassifier or HistGradientBoostingClassifier
        Fitted binary classifier.
    X : array-like of shape (N, n_features)
        Examples (NaN allowed where the model allows it).

    Returns
    -------
    base : float
        The boosting initial score b0.
    F : ndarray of shape (N, T)
        ``F[i, t]`` = learning rate x tree ``t``'s output on ``X[i]``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> from ensemble_repro.qwyc import sequential_sum, tree_scores
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> gbt = HistGradientBoostingClassifier(max_iter=10, random_state=0).fit(X, y)
    >>> base, F = tree_scores(gbt, X)
    >>> F.shape, bool((sequential_sum(base, F) == gbt.decision_function(X)).all())
    ((200, 10), True)
    """
    base, forest = flatten_model(model)
    return base, forest.contributions(X)


def split_gain(model: HistGradientBoostingClassifier) -> np.ndarray:
    """Total split gain per feature of a fitted binary ``HistGradientBoostingClassifier``.

    Walks the same node arrays as :func:`flatten_model` and sums the ``gain`` of every split
    node by its feature: the ranking used to keep Nomao's strongest features (Section 5).

    Parameters
    ----------
    model : HistGradientBoostingClassifier
        Fitted binary classifier.

    Returns
    -------
    numpy.ndarray of shape (n_features,)
        Sum of the split gains of each feature over all trees (0 for unused features).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(300, 3))
    >>> y = (X[:, 1] > 0).astype(int)  # only feature 1 is informative
    >>> gbt = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    >>> int(split_gain(gbt).argmax())
    1
    """
    check_is_fitted(model)
    gain = np.zeros(model.n_features_in_)
    for (pred,) in model._predictors:
        nd = pred.nodes[~pred.nodes["is_leaf"].astype(bool)]
        np.add.at(gain, nd["feature_idx"], nd["gain"])
    return gain
