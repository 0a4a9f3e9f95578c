"""The library's one ``random_state`` convention, scikit-learn's.

``random_state`` may be None, an int, a ``np.random.RandomState`` or a ``np.random.Generator``,
with scikit-learn's meaning. :func:`check_generator` turns it into a ``np.random.Generator``
(QWYC, knapsack), :func:`check_random_state` into a ``np.random.RandomState`` (the jackknife+
estimators and learners, whose resampling protocol is stated for ``RandomState``).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state as _sklearn_check_random_state


def check_generator(random_state, name: str = "random_state") -> np.random.Generator:
    """Turn a scikit-learn style ``random_state`` into a ``np.random.Generator``.

    Parameters
    ----------
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        None: seeded from NumPy's global ``RandomState`` (so ``np.random.seed`` makes the run
        reproducible, as in scikit-learn); int in [0, 2**32 - 1]: ``np.random.default_rng(int)``
        (reproducible); ``RandomState``: seeded from it (advancing it, as scikit-learn
        estimators advance a ``RandomState`` they are given); ``Generator``: used as is.
    name : str, default="random_state"
        Argument name used in error messages.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> from ensemble_repro.rng import check_generator
    >>> a, b = check_generator(7).integers(100, size=3), check_generator(7).integers(100, size=3)
    >>> bool((a == b).all())
    True
    >>> check_generator(np.random.RandomState(0)).random() == check_generator(
    ...     np.random.RandomState(0)).random()
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if not 0 <= random_state <= 2**32 - 1:
            raise ValueError(
                f"{name} must be None, an int in [0, 2**32 - 1], a "
                f"numpy RandomState or Generator; got {random_state!r}"
            )
        return np.random.default_rng(int(random_state))
    if random_state is None or isinstance(random_state, np.random.RandomState):
        rs = _sklearn_check_random_state(random_state)
        return np.random.default_rng(rs.randint(0, 2**32, size=4, dtype=np.uint64))
    raise ValueError(
        f"{name} must be None, an int in [0, 2**32 - 1], a numpy RandomState or "
        f"Generator; got {random_state!r} of type {type(random_state).__name__}"
    )


def validate_random_state(random_state, name: str = "random_state") -> None:
    """Refuse, as :func:`check_generator` does, a ``random_state`` of the wrong kind, without
    drawing from it (for an estimator whose settings may leave it unused).

    Parameters
    ----------
    random_state : object
        The argument.
    name : str, default="random_state"
        Argument name used in error messages.

    Examples
    --------
    >>> from ensemble_repro.rng import validate_random_state
    >>> validate_random_state(7)
    >>> validate_random_state("7")
    Traceback (most recent call last):
    ...
    ValueError: random_state must be None, an int in [0, 2**32 - 1], a numpy RandomState or \
Generator; got '7' of type str
    """
    if random_state is None or isinstance(random_state, np.random.RandomState):
        return  # check_generator would draw from these
    check_generator(random_state, name)


def check_random_state(random_state) -> np.random.RandomState:
    """The ``RandomState`` a ``random_state`` argument stands for.

    Parameters
    ----------
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        None: NumPy's global ``RandomState``; int: a new ``RandomState(random_state)``;
        ``RandomState``: itself (its state advances as it is drawn from); ``Generator``: a
        ``RandomState`` wrapping the Generator's own bit generator, so the draws advance the
        Generator exactly as they would advance a ``RandomState`` (two Generators in the same
        state give identical results).

    Returns
    -------
    numpy.random.RandomState

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.rng import check_random_state
    >>> int(check_random_state(0).randint(100)) == int(np.random.RandomState(0).randint(100))
    True
    >>> a = check_random_state(np.random.default_rng(5)).randint(100, size=3)
    >>> b = check_random_state(np.random.default_rng(5)).randint(100, size=3)
    >>> bool((a == b).all())
    True
    """
    if isinstance(random_state, np.random.Generator):
        return np.random.RandomState(random_state.bit_generator)
    return _sklearn_check_random_state(random_state)
