"""Hand-built cascades and forests are checked before they reach the C kernel; QWYC is exact
for every model it accepts."""

import dataclasses

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

from ensemble_repro.qwyc import Cascade, CascadeTimer, flatten_model, never_stop


@pytest.fixture(scope="module")
def model():
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    gbt = HistGradientBoostingClassifier(max_iter=4, random_state=0).fit(X, y)
    base, forest = flatten_model(gbt)
    return X, gbt, base, forest


def _steps(T):
    return [[]] * (T - 1), [[-np.inf]] * (T - 1), [[np.inf]] * (T - 1)


@pytest.mark.parametrize(
    "order, shown",
    [
        ([0, 1, 2, 100_000_000], r"\[        0         1         2 100000000\]"),
        ([0, 0, 0, 0], r"\[0 0 0 0\]"),
        ([-1, 0, 1, 2], r"\[-1  0  1  2\]"),
    ],
)
def test_cascade_order_must_be_a_permutation(order, shown):
    with pytest.raises(ValueError, match=rf"order must be a permutation of range\(4\).*{shown}"):
        Cascade.from_steps(order, *_steps(4), beta=0.0)


def test_cascade_order_must_be_integers():
    with pytest.raises(ValueError, match="order must be a 1-D array of integers; got float64"):
        Cascade(np.array([0.0, 1.0]), np.array([0, 1]), np.zeros(0), np.zeros(1), np.zeros(1), 0.0)


def test_cascade_bins_must_match_bin_ptr():
    ok = Cascade.from_steps([1, 0, 2], [[], [0.0]], [[-1.0], [-2.0, -0.5]], [[1.0], [0.5, 2.0]], 0)
    with pytest.raises(ValueError, match=r"bin_ptr must be 3 increasing integers from 0"):
        dataclasses.replace(ok, bin_ptr=np.array([0, 3, 3]))
    with pytest.raises(ValueError, match=r"hi must be a 1-D float array of 3 values"):
        dataclasses.replace(ok, hi=np.zeros(2))
    with pytest.raises(ValueError, match=r"edges must be a 1-D float array of 1 values"):
        dataclasses.replace(ok, edges=np.zeros(5))


def test_timer_refuses_a_bad_order_without_crashing(model):
    """The segfault of an out-of-range order, and the silent re-evaluation of a repeated
    tree, cannot happen: such a cascade cannot be built, so it never reaches the kernel."""
    X, gbt, base, forest = model
    good = never_stop(forest.n_trees)
    timer = CascadeTimer(forest, base)
    with pytest.raises(ValueError, match="permutation"):
        dataclasses.replace(good, order=np.array([0, 1, 2, 10**8]))
    dec, nev, _ = timer.run(good, X)
    assert (dec == gbt.predict(X).astype(bool)).all() and (nev == forest.n_trees).all()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"roots": np.array([0, 10**8], dtype=np.int32)}, r"roots must be at least one node"),
        ({"feature": None}, r"feature of every split must be in \[0, 5\)"),
        ({"left": None}, r"children must follow their node"),
        ({"threshold": "int"}, r"threshold must be a 1-D float64 array of \d+ nodes; got int64"),
        ({"value": "short"}, r"value must be a 1-D float64 array of \d+ nodes; got float64 of"),
    ],
)
def test_forest_arrays_are_checked(model, change, message):
    _, _, _, forest = model
    ((name, value),) = change.items()
    inner = np.flatnonzero(forest.left != np.arange(forest.left.size))
    if name == "feature":
        value = forest.feature.copy()
        value[inner[0]] = 99
    elif name == "left":
        value = forest.left.copy()
        value[inner[1]] = 0  # points back to the root: the C walk would never end
    elif isinstance(value, str) and value == "int":
        value = np.zeros(forest.threshold.size, dtype=np.int64)
    elif isinstance(value, str) and value == "short":
        value = forest.value[:-1]
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(forest, **{name: value})


# --- exactness for every model QWYC accepts ------------------------------------------------


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=300, n_features=6, random_state=1)


def test_non_constant_init_is_refused(data):
    """A per-row initial score cannot be a cascade's constant b0: refused, not 44 % wrong."""
    from sklearn.linear_model import LogisticRegression

    from ensemble_repro.qwyc import QuitWhenYouCan, tree_scores

    X, y = data
    gbt = GradientBoostingClassifier(
        n_estimators=10, init=LogisticRegression(), random_state=0
    ).fit(X, y)
    msg = r"model.init = LogisticRegression\(\) gives every row its own initial score.*init=None"
    with pytest.raises(ValueError, match=msg):
        QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(X)
    with pytest.raises(ValueError, match=msg):
        tree_scores(gbt, X)


@pytest.mark.parametrize("init", [None, "zero", "dummy_prior"])
def test_alpha_zero_agrees_with_the_model_on_every_row(data, init):
    from sklearn.dummy import DummyClassifier

    from ensemble_repro.qwyc import QuitWhenYouCan, sequential_sum, tree_scores

    X, y = data
    if init == "dummy_prior":
        init = DummyClassifier(strategy="prior")
    gbt = GradientBoostingClassifier(n_estimators=10, init=init, random_state=0).fit(X, y)
    base, F = tree_scores(gbt, X)
    assert np.array_equal(sequential_sum(base, F), gbt.decision_function(X))
    qwyc = QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(X)
    assert np.array_equal(qwyc.predict(X), gbt.predict(X))


def test_nan_refused_where_the_model_refuses_it(data):
    from ensemble_repro.qwyc import QuitWhenYouCan

    X, y = data
    Xn = X.copy()
    Xn[3, 2] = np.nan
    gbt = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        gbt.predict(Xn)  # the model's own answer
    with pytest.raises(ValueError, match="Input X contains NaN"):
        QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(Xn)
    qwyc = QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(X)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        qwyc.predict(Xn)
    base, forest = flatten_model(gbt)
    with pytest.raises(ValueError, match=r"the model refuses NaN.*row 3, column 2"):
        CascadeTimer(forest, base).run(never_stop(forest.n_trees), Xn)
    # the histogram model routes NaN, and so does its cascade (same labels as the model)
    hgb = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    qwyc = QuitWhenYouCan(alpha=0.0, estimator=hgb).fit(X)
    assert np.array_equal(qwyc.predict(Xn), hgb.predict(Xn))


# --- parameters ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, message",
    [
        ({"stats_on_survivors": "no"}, "stats_on_survivors must be True or False; got 'no'"),
        ({"n_bins": True}, "n_bins must be an integer >= 1; got True"),
        ({"gamma": True}, r"gamma must be a number >= 0 \(inf allowed\); got True"),
    ],
)
def test_fan_parameters_checked(params, message):
    from ensemble_repro.qwyc import FanEarlyStopping

    F = np.random.default_rng(0).normal(size=(50, 4))
    kwargs = {"gamma": 1.0, **params}
    with pytest.raises(ValueError, match=message):
        FanEarlyStopping(**kwargs).fit_scores(0.0, F)


def test_qwyc_alpha_bool_refused():
    from ensemble_repro.qwyc import QuitWhenYouCan

    F = np.random.default_rng(0).normal(size=(50, 4))
    with pytest.raises(ValueError, match=r"alpha must be a number in \[0, 1\); got False"):
        QuitWhenYouCan(alpha=False).fit_scores(0.0, F)


def test_timer_checks_arrays_changed_in_place_after_construction(model):
    X, _, base, forest = model
    timer = CascadeTimer(forest, base)
    cascade = never_stop(forest.n_trees)
    cascade.order[0] = 10**8  # the dataclass is frozen, its arrays are not
    with pytest.raises(ValueError, match=r"order must be a permutation of range\(4\)"):
        timer.run(cascade, X)
    bad = dataclasses.replace(forest, roots=forest.roots.copy())
    bad.roots[1] = 10**8
    timer = CascadeTimer(bad, base)
    with pytest.raises(ValueError, match="roots must be at least one node index"):
        timer.run(never_stop(forest.n_trees), X)


@pytest.mark.parametrize(
    "args, message",
    [
        (("forest", 0.0), "forest must be a FlatForest .*got str"),
        ((None, float("nan")), r"base must be a finite number .*got nan"),
    ],
)
def test_timer_arguments_checked(model, args, message):
    _, _, _, forest = model
    forest_arg = forest if args[0] is None else args[0]
    with pytest.raises(ValueError, match=message):
        CascadeTimer(forest_arg, args[1])


def test_per_example_times_runs_checked(model):
    X, _, base, forest = model
    timer = CascadeTimer(forest, base)
    with pytest.raises(ValueError, match="runs must be a positive integer; got 0"):
        timer.per_example_times({"full": never_stop(forest.n_trees)}, X, runs=0)
