"""Input checks of the jackknife+ estimators, each run once at the public boundary.

Data go through scikit-learn's ``validate_data`` (one call per ``fit`` / ``predict``), which
records ``n_features_in_`` and ``feature_names_in_`` at fit and checks them at predict; the
other checks name the argument, the bad value and what is expected.
"""

from __future__ import annotations

import math
import numbers
import os

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import validate_data


def _check_no_pandas_missing(data, name: str) -> None:
    """Name the pandas columns holding NA (a nullable ``Float64`` NA otherwise fails deep in
    NumPy's conversion without naming anything)."""
    isna = getattr(data, "isna", None)
    if isna is None or not hasattr(data, "dtypes"):
        return
    missing = isna()
    if missing.ndim == 2:
        columns = [repr(c) for c, bad in missing.any().items() if bad]
        if columns:
            raise ValueError(
                f"{name} has missing values (NA/NaN) in column(s) "
                f"{', '.join(columns)}; drop or impute them: every value must be a "
                "finite number"
            )
    elif missing.any():
        raise ValueError(
            f"{name} has {int(missing.sum())} missing values (NA/NaN); drop or "
            "impute them: every value must be a finite number"
        )


#: Largest magnitude accepted in X and y: squares (as in X'X) stay finite in float64.
MAX_MAGNITUDE = 1e150


def _check_not_temporal(data, name: str) -> None:
    """Name the datetime / timedelta columns (NumPy's own message names none)."""
    dtypes = getattr(data, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "items"):
        columns = [repr(c) for c, d in dtypes.items() if np.dtype(d).kind in "mM"]
    elif dtypes is not None:  # a pandas Series
        columns = ["(the series)"] if np.dtype(dtypes).kind in "mM" else []
    else:
        dtype = getattr(data, "dtype", None)
        columns = ["(all)"] if dtype is not None and np.dtype(dtype).kind in "mM" else []
    if columns:
        raise ValueError(
            f"{name} has date/time values in column(s) {', '.join(columns)}; convert them to "
            "numbers first (e.g. days since a start date, or the year and the day of year)"
        )


def _check_magnitude(a: np.ndarray, name: str) -> None:
    """Refuse values so large that the learners' sums of squares overflow."""
    if a.size:
        big = float(np.abs(a).max())
        if big > MAX_MAGNITUDE:
            raise ValueError(
                f"{name} has values up to {big:.3g} in magnitude; their squares overflow "
                f"float64, so the models would predict inf or NaN. Rescale {name} (e.g. with "
                f"StandardScaler) so every value is below {MAX_MAGNITUDE:g}"
            )


def check_regressor(estimator) -> None:
    """ValueError unless ``estimator`` is a regressor instance (not a class, a name, None
    or a classifier): the jackknife+ intervals are built from real-valued residuals.

    Parameters
    ----------
    estimator : object

    Returns
    -------
    None

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from ensemble_repro.conformal.validation import check_regressor
    >>> check_regressor(LogisticRegression())
    Traceback (most recent call last):
    ...
    ValueError: estimator must be a regressor (residuals |y - prediction| make the \
intervals); got the classifier LogisticRegression()
    """
    if isinstance(estimator, type) or not (
        hasattr(estimator, "fit")
        and hasattr(estimator, "predict")
        and hasattr(estimator, "get_params")
    ):
        what = f"the class {estimator.__name__}" if isinstance(estimator, type) else repr(estimator)
        raise ValueError(
            "estimator must be a scikit-learn regressor instance with fit and predict "
            f"(e.g. Ridge(), not Ridge or 'ridge'); got {what}"
        )
    if is_classifier(estimator):
        raise ValueError(
            "estimator must be a regressor (residuals |y - prediction| make the intervals); "
            f"got the classifier {estimator!r}"
        )


def check_bool(name: str, value) -> bool:
    """``value`` if it is True or False (NumPy booleans too); else ValueError naming ``name``.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object

    Returns
    -------
    bool

    Examples
    --------
    >>> from ensemble_repro.conformal.validation import check_bool
    >>> check_bool("replace", "False")
    Traceback (most recent call last):
    ...
    ValueError: replace must be True or False; got 'False'
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def check_training_data(estimator, X, y) -> tuple[np.ndarray, np.ndarray]:
    """Validated float64 arrays X (n, p) and y (n,) with n >= 2, all finite.

    Records ``n_features_in_`` (and ``feature_names_in_`` for a data frame) on ``estimator``
    through scikit-learn's ``validate_data``.

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator being fitted.
    X : array-like of shape (n_samples, n_features)
        Real-valued features (complex values, NaN, infinity and NA are rejected).
    y : array-like of shape (n_samples,)
        Real-valued targets.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), float64

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import JackknifePlus
    >>> from ensemble_repro.conformal.validation import check_training_data
    >>> from ensemble_repro.learners import PaperRidge
    >>> est = JackknifePlus(PaperRidge())
    >>> X, y = check_training_data(est, [[0, 1], [1, 0], [2, 2]], [0, 1, 2])
    >>> X.dtype, y.shape, est.n_features_in_
    (dtype('float64'), (3,), 2)
    """
    _check_no_pandas_missing(X, "X")
    _check_no_pandas_missing(y, "y")
    _check_not_temporal(X, "X")
    _check_not_temporal(y, "y")
    X, y = validate_data(estimator, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=True)
    y = np.asarray(y, dtype=np.float64)
    _check_magnitude(X, "X")
    _check_magnitude(y, "y")
    return X, y


def check_test_data(estimator, X) -> np.ndarray:
    """Validated float64 X at prediction time: the number and names of the features of fit.

    Parameters
    ----------
    estimator : BaseEstimator
        A fitted estimator (``n_features_in_`` and, for a data frame, ``feature_names_in_``).
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_features), float64

    Examples
    --------
    >>> from ensemble_repro.conformal import JackknifePlus
    >>> from ensemble_repro.conformal.validation import check_test_data
    >>> from ensemble_repro.learners import PaperRidge
    >>> est = JackknifePlus(PaperRidge()).fit([[0.0], [1.0], [2.0]], [0.0, 1.0, 2.0])
    >>> check_test_data(est, [[3.0]]).shape
    (1, 1)
    >>> check_test_data(est, [[3.0, 4.0]])
    Traceback (most recent call last):
    ...
    ValueError: X has 2 features, but JackknifePlus is expecting 1 features as input.
    """
    _check_no_pandas_missing(X, "X")
    _check_not_temporal(X, "X")
    X = validate_data(estimator, X, reset=False, dtype=np.float64)
    _check_magnitude(X, "X")
    return X


def check_alpha(alpha) -> tuple[list[float], bool]:
    """Miscoverage levels as a list of floats in (0, 1), and whether ``alpha`` was one number.

    Parameters
    ----------
    alpha : float or sequence of float
        Each strictly between 0 and 1 (the interval's target coverage is 1 - alpha).

    Returns
    -------
    alphas : list of float
    scalar : bool
        True when ``alpha`` is a single number.

    Examples
    --------
    >>> from ensemble_repro.conformal.validation import check_alpha
    >>> check_alpha(0.1)
    ([0.1], True)
    >>> check_alpha([0.05, 0.2])
    ([0.05, 0.2], False)
    """
    ndim = np.ndim(alpha)
    scalar = ndim == 0
    values = [alpha] if scalar else list(alpha) if ndim == 1 else []
    if not values or any(
        isinstance(a, bool) or not isinstance(a, numbers.Real) or not 0 < a < 1 for a in values
    ):
        raise ValueError(
            "alpha must be a number strictly between 0 and 1, or a non-empty 1-D "
            f"sequence of such numbers; got {alpha!r}"
        )
    return [float(a) for a in values], scalar


def check_choice(name: str, value, choices) -> None:
    """ValueError naming ``name`` unless ``value`` is one of ``choices``.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
    choices : sequence

    Returns
    -------
    None

    Examples
    --------
    >>> from ensemble_repro.conformal.validation import check_choice
    >>> check_choice("method", "cv", ("plus", "minmax"))
    Traceback (most recent call last):
    ...
    ValueError: method must be one of 'plus', 'minmax'; got 'cv'
    """
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")


def check_positive_int(name: str, value) -> int:
    """``value`` as an int if it is a positive integer (not a bool); else ValueError.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object

    Returns
    -------
    int

    Examples
    --------
    >>> from ensemble_repro.conformal.validation import check_positive_int
    >>> check_positive_int("n_resamples", 20)
    20
    """
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def resolve_resample_size(resample_size, n: int, replace: bool) -> int:
    """The resample size m from ``resample_size``: an int is a count, a float a fraction of n.

    Parameters
    ----------
    resample_size : int or float
        int (e.g. 120): m = resample_size points per resample. float (e.g. 0.6): m =
        round(resample_size * n), so 1.0 is m = n (the usual bootstrap) and 1 (an int) is a
        single point. Must be positive and finite; m <= n when ``replace=False``.
    n : int
        Number of training points.
    replace : bool
        Whether resamples are drawn with replacement.

    Returns
    -------
    int
        m >= 1.

    Examples
    --------
    >>> from ensemble_repro.conformal.validation import resolve_resample_size
    >>> resolve_resample_size(0.6, 200, True), resolve_resample_size(50, 200, False)
    (120, 50)
    """
    if isinstance(resample_size, bool) or not isinstance(resample_size, numbers.Real):
        m = None
    elif isinstance(resample_size, numbers.Integral):
        m = int(resample_size)
    elif math.isfinite(resample_size) and resample_size > 0:
        m = int(np.rint(resample_size * n))
    else:
        m = None
    if m is None:
        raise ValueError(
            "resample_size must be a positive finite fraction of n (a float, e.g. "
            "0.6 for m = 0.6 n) or a positive count (an int, e.g. 120); got "
            f"{resample_size!r}"
        )
    if m < 1:
        raise ValueError(
            f"resample_size = {resample_size!r} gives m = {m} points per resample "
            f"for n = {n}; m must be >= 1"
        )
    if not replace and m > n:
        raise ValueError(
            f"resample_size gives m = {m} > n = {n}, impossible without replacement "
            f"(replace=False); use m <= n or replace=True"
        )
    return m


def check_n_jobs(n_jobs) -> int:
    """Number of worker processes for ``n_jobs`` (joblib's convention).

    Parameters
    ----------
    n_jobs : None or int
        None or 1: no worker process; k > 1: k processes; -1: one per core, -2: all but one...

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> from ensemble_repro.conformal.validation import check_n_jobs
    >>> check_n_jobs(None), check_n_jobs(3)
    (1, 3)
    """
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(
            "n_jobs must be None, a positive number of worker processes, or a "
            f"negative int counting back from all cores (-1: all); got {n_jobs!r}"
        )
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)
