"""The sampling sensitivity setting of J+aB: resamples drawn without
replacement (subsampling, Kim, Xu & Barber 2020, Section 2.2 and Algorithms 1-2)."""

import math

import numpy as np
import pytest

from ensemble_repro.papers.jab import cells as jab

ALPHA, N, M_RATIO = 0.1, 20, 0.5


def synthetic(n_total=80, p=4, seed=1):
    rng = np.random.RandomState(seed)
    X = rng.randn(n_total, p)
    return X, X @ rng.randn(p) + rng.standard_t(3, n_total)


def _cell(X, y, m_ratio, replace):
    """One main-grid trial with ridge on the toy data."""
    return jab.main_cell(
        X,
        y,
        dataset="toy",
        learner="ridge",
        m_ratio=m_ratio,
        trial=0,
        n=N,
        n_resamples=6,
        aggregations=["mean"],
        alpha=ALPHA,
        seed=3,
        trial_seed_base=98765,
        replace=replace,
    )


def _recorded_cell(monkeypatch, replace):
    """One main-grid trial with ridge, recording every resample and fitted J+aB model."""
    calls = {"jab": [], "ens": []}
    fit, pfit = jab.fit_models, jab.parallel_fit

    def fit_spy(est, X, y, resamples, seeds, *a, **k):
        models = fit(est, X, y, resamples, seeds, *a, **k)
        calls["jab"].append((np.asarray(resamples), models))
        return models

    def pfit_spy(est, X, y, sets, seeds, *a, **k):
        calls["ens"].append([np.asarray(r) for r in sets])
        return pfit(est, X, y, sets, seeds, *a, **k)

    monkeypatch.setattr(jab, "fit_models", fit_spy)
    monkeypatch.setattr(jab, "parallel_fit", pfit_spy)
    X, y = synthetic()
    rows = _cell(X, y, M_RATIO, replace)
    return X, y, rows, calls


def _naive_jab(models, resamples, Xtr, ytr, Xte):
    """Algorithm 2 written out: for each i the mean of the models whose S_b leaves i out."""
    lo, hi = [], []
    n = len(ytr)
    mu, res = [], []
    for i in range(n):
        out = [mod for mod, s in zip(models, resamples, strict=True) if i not in set(s)]
        mu.append(np.mean([mod.predict(Xte) for mod in out], axis=0))
        res.append(abs(ytr[i] - np.mean([mod.predict(Xtr[i : i + 1])[0] for mod in out])))
    mu, res = np.array(mu), np.array(res)
    k_hi, k_lo = math.ceil((1 - ALPHA) * (n + 1)), math.floor(ALPHA * (n + 1))
    for j in range(Xte.shape[0]):
        lo.append(np.sort(mu[:, j] - res)[k_lo - 1])
        hi.append(np.sort(mu[:, j] + res)[k_hi - 1])
    return np.array(lo), np.array(hi)


def test_without_replacement_draws_no_duplicates_and_matches_naive_jab(monkeypatch):
    X, y, rows, calls = _recorded_cell(monkeypatch, replace=False)
    m = jab.resample_size(N, M_RATIO)
    ((resamples, models),) = calls["jab"]
    assert resamples.shape[1] == m and len(models) == len(resamples)
    assert all(len(set(s)) == m for s in resamples)  # no index drawn twice
    for i, sets in enumerate(calls["ens"][0]):  # J+ensemble: n ensembles, none contains i
        assert all(len(set(s)) == m and i not in set(s) for s in sets)
    # every point is left out by some model at n = 20, m = 10, B ~ 30: the naive reference
    # below needs no empty out-of-bag set
    train, test = jab.trial_split(len(y), N, 98765)
    lo, hi = _naive_jab(models, resamples, X[train], y[train], X[test])
    row = next(r for r in rows if r["method"] == jab.JAB)
    assert row["empty_oob_sets"] == 0
    assert row["coverage"] == pytest.approx(np.mean((y[test] >= lo) & (y[test] <= hi)))
    assert row["mean_width"] == pytest.approx(np.mean(hi - lo))


def test_with_replacement_stays_the_bootstrap(monkeypatch):
    *_, calls = _recorded_cell(monkeypatch, replace=True)
    ((resamples, _),) = calls["jab"]
    assert any(len(set(s)) < resamples.shape[1] for s in resamples)  # duplicates occur


def test_without_replacement_rejects_m_equal_n():
    X, y = synthetic()
    with pytest.raises(ValueError, match=r"m <= n - 1 = 19; m/n = 1 gives m = 20"):
        _cell(X, y, 1.0, replace=False)
