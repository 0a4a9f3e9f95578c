"""Ensemble selection under a cost budget (Hajdu et al. 2020, sections II-III).

Every strategy is ``strategy(p, t, budget, *, random_state=None, **options)`` and returns a
:class:`SelectionResult` whose members cost at most ``budget``. Settings the paper does not
give are options marked [I] (docs/papers/knapsack.md).
"""

from __future__ import annotations

import bisect
import math
import numbers
from dataclasses import dataclass

import numpy as np

from ..rng import check_generator
from .beta import StoppingRule
from .energy import TOL as _TOL
from .energy import (
    _check_count,
    check_pool,
    efficiency,
    leave_one_out_accuracy,
    majority_vote_accuracy,
    max_affordable,
)

#: Default escape parameter MAXSTEP (search steps: constructions or evaluations) [I].
MAXSTEP = 10_000


def _check_stop(stop) -> None:
    if stop is not None and not isinstance(stop, StoppingRule):
        raise ValueError(
            f"stop must be a StoppingRule or None; got {type(stop).__name__} (build one with "
            "stopping_rule(p, t, budget))"
        )


def _check_unit_interval(name: str, value) -> float:
    """``value`` as a float if it is a number strictly between 0 and 1, else a ValueError."""
    if (
        isinstance(value, bool | np.bool_)
        or not isinstance(value, numbers.Real)
        or not 0 < value < 1
    ):
        raise ValueError(f"{name} must be a number in (0, 1); got {value!r}")
    return float(value)


def _check_bounded(maxstep, stop):
    """The run's MAXSTEP: ``maxstep``, else the stopping rule's own (eq. 29); a run that
    nothing would end (no bound, or a rule without one, whose threshold may be out of
    reach) is refused."""
    _check_stop(stop)
    if maxstep is not None:
        return maxstep
    if stop is None or stop.maxstep is None:
        raise ValueError(
            "maxstep=None needs a stopping rule with its own MAXSTEP (stop=stopping_rule(...), "
            "eq. 29): otherwise the search could run forever, as when the rule's threshold "
            "is out of reach; give maxstep a positive integer"
        )
    return stop.maxstep


@dataclass(frozen=True)
class SelectionResult:
    """Outcome of one selection run.

    Parameters
    ----------
    members : ndarray of int
        Indices of the chosen members, ascending.
    accuracy : float
        Their majority-vote accuracy q (eq. 1).
    cost : float
        Their total cost (at most the budget).
    evaluations : int
        Energy evaluations the run made.
    trace : ndarray of shape (k, 2)
        One row (evaluations so far, best accuracy so far) per improvement.
    best_at : int
        Evaluation at which the final best was found.
    stopped_by : {"rule", "maxstep", "schedule", "converged", "exhausted"}
        Why the run ended.
    steps : int
        Search steps the run made: whole constructions of Algorithm 1 for
        ``stochastic_search(steps="constructions")`` (section III: "restart ... in the next
        search step"), energy evaluations otherwise.
    best_step : int
        Step at which the final best was found.

    Examples
    --------
    >>> from ensemble_repro.knapsack import exhaustive
    >>> exhaustive([0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0], 4.0).members
    array([1, 2, 3])
    """

    members: np.ndarray
    accuracy: float
    cost: float
    evaluations: int
    trace: np.ndarray
    best_at: int
    stopped_by: str
    steps: int
    best_step: int


class _Search:
    """Energy evaluations of one run: counting, even-size handling, best-so-far and stopping.

    ``unit="evaluations"``: MAXSTEP counts energy evaluations and a run stops exactly at it;
    ``"constructions"``: the caller counts steps (``steps``) and passes ``owners``, the step
    of each evaluated row, so MAXSTEP counts whole constructions.
    """

    def __init__(
        self,
        p,
        t,
        budget,
        even="drop_min",
        stop: StoppingRule | None = None,
        maxstep: int | None = MAXSTEP,
        unit: str = "evaluations",
    ):
        if even not in ("drop_min", "strict"):
            raise ValueError(f"even must be 'drop_min' or 'strict'; got {even!r}")
        maxstep = _check_count("maxstep", maxstep, allow_none=True)
        self.p, self.t, self.budget = p, t, budget
        self.even, self.stop, self.maxstep, self.unit = even, stop, maxstep, unit
        self.evaluations = self.steps = 0
        self.best, self.best_mask, self.best_at = -1.0, np.zeros(p.size, bool), 0
        self.best_step = 0
        self.trace: list[tuple[int, float]] = []
        self.stopped_by = ""

    def _odd(self, masks: np.ndarray) -> np.ndarray:
        """Drop the least accurate member of even-sized sets (drop_min), else leave as is."""
        if self.even == "strict":
            return masks
        masks = masks.copy()
        rows = np.flatnonzero((masks.sum(1) % 2 == 0) & masks.any(1))
        if rows.size:
            worst = np.argmin(np.where(masks[rows], self.p, np.inf), axis=1)
            masks[rows, worst] = False
        return masks

    @property
    def count(self) -> int:
        """Steps made so far, in MAXSTEP's unit."""
        return self.steps if self.unit == "constructions" else self.evaluations

    @property
    def done(self) -> bool:
        if self.stop is not None and bool(self.stop.reached(self.best)):
            self.stopped_by = "rule"
        elif self.maxstep is not None and self.count >= self.maxstep:
            self.stopped_by = "maxstep"
        return bool(self.stopped_by)

    def evaluate(self, masks: np.ndarray, record: bool = True, owners=None) -> np.ndarray:
        """q of each row of ``masks`` (k × n), in order; stops counting at MAXSTEP or the rule.

        ``owners`` (constructions unit): the step, counted from ``steps``, of each row.
        Returns the energies of the rows actually evaluated (possibly fewer than k).
        """
        masks = np.atleast_2d(masks)
        if self.maxstep is not None and self.unit == "evaluations":
            masks = masks[: max(self.maxstep - self.evaluations, 0)]
        evaluated = self._odd(masks)
        if evaluated.shape[0] == 1:  # one ensemble: run the DP over its members only
            q = np.atleast_1d(majority_vote_accuracy(self.p[evaluated[0]]))
        else:
            q = np.atleast_1d(
                majority_vote_accuracy(np.broadcast_to(self.p, evaluated.shape), evaluated)
            )
        if record and q.size:
            feasible = masks @ self.t <= self.budget * (1 + _TOL)  # the set as drawn
            return self.tally(q, feasible, evaluated.__getitem__, owners=owners)
        self.evaluations += q.size
        return q

    def tally(self, q, feasible, scored, *, owners=None, pick=None) -> np.ndarray:
        """Count energies ``q`` (one batch, in order) and record improvements and the best.

        ``feasible``: whether each row's set fits the budget; ``scored(i)``: the set row i
        was scored as (after the even-size rule); ``pick``: the row kept as the batch's best
        when it improves (default: the first maximum). Returns the energies counted: those
        up to the one that meets the stopping rule.
        """
        qf = np.where(feasible, q, -1.0)
        if self.stop is not None:
            hit = np.flatnonzero(self.stop.reached(qf))
            if hit.size:
                q, qf = q[: hit[0] + 1], qf[: hit[0] + 1]
        prev = np.maximum.accumulate(np.concatenate([[self.best], qf]))[:-1]
        for i in np.flatnonzero(qf > prev + _TOL):
            self.trace.append((self.evaluations + i + 1, float(qf[i])))
        if qf.size and qf.max() > self.best + _TOL:
            i = int(np.argmax(qf)) if pick is None else pick
            self.best, self.best_mask, self.best_at = (
                float(qf[i]),
                scored(i).copy(),
                self.evaluations + i + 1,
            )
            self.best_step = self.best_at if owners is None else self.steps + owners[i] + 1
        self.evaluations += q.size
        return q

    def result(self, stopped_by: str | None = None) -> SelectionResult:
        members = np.flatnonzero(self.best_mask)
        constructions = self.unit == "constructions"
        return SelectionResult(
            members=members,
            accuracy=max(self.best, 0.0),
            cost=float(self.t[members].sum()),
            evaluations=self.evaluations,
            trace=np.array(self.trace, dtype=float).reshape(-1, 2),
            best_at=self.best_at,
            stopped_by=self.stopped_by or stopped_by,
            steps=self.steps if constructions else self.evaluations,
            best_step=self.best_step if constructions else self.best_at,
        )


def _cheapest_sums(ts, kmax):
    """(prefix, cheapest): ``prefix[i, k]`` is the cost of the k cheapest of ``ts[: i + 1]``
    (inf when i + 1 < k), ``cheapest[k]`` that of the k cheapest of all ``ts``; k <= kmax."""
    prefix = np.full((max(ts.size, 1), kmax + 1), np.inf)
    prefix[:, 0] = 0.0
    kept: list[float] = []
    for i, cost in enumerate(ts):
        bisect.insort(kept, float(cost))
        del kept[kmax:]
        prefix[i, 1 : len(kept) + 1] = np.cumsum(kept)
    cheapest = np.concatenate([[0.0], np.cumsum(np.sort(ts)[:kmax])])
    return prefix, np.pad(cheapest, (0, kmax + 1 - cheapest.size), constant_values=np.inf)


def exhaustive(p, t, budget, *, random_state=None) -> SelectionResult:
    """Exact optimum by branch and bound over odd sizes (Lemma I.1: even sets never win).

    Items are ordered by accuracy; q is increasing in every p_i, so a subtree that adds r
    members is bounded by q of the partial set completed with r accuracies that no affordable
    completion exceeds rank by rank: the k-th most accurate added member can be item i only
    if the k cheapest items down to i and the r - k cheapest of all fit the budget left. When
    the r next most accurate items fit, the bound is attained and solves the subtree.
    A member is never chosen over a skipped one that is at least as accurate and as cheap.
    ``evaluations`` counts bound and leaf energies. The worst case is exponential in n (the
    experiments use it up to ``knapsack.exhaustive_max_n`` members; a 200-member synthetic
    pool at 15 times its median cost takes seconds).

    Parameters
    ----------
    p, t, budget : array-like of shape (n,), array-like of shape (n,), float
        The pool and the total cost allowed, as :func:`check_pool` validates them.
    random_state : None, int, RandomState or Generator, default=None
        Unused (deterministic); accepted so every strategy has the same signature.

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> from ensemble_repro.knapsack import exhaustive
    >>> p, t = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]
    >>> res = exhaustive(p, t, 4.0)     # three cheap members beat the best one
    >>> res.members, res.accuracy, res.cost
    (array([1, 2, 3]), 0.84375, 3.0)
    """
    p, t, budget = check_pool(p, t, budget)
    cap = budget * (1 + _TOL)
    order = np.lexsort((t, -p))
    order = order[t[order] <= cap]
    ps, ts = p[order], t[order]
    n = ps.size
    kmax = max_affordable(ts, budget)
    tails: dict[int, tuple] = {}  # start -> _cheapest_sums of ts[start:], made when first needed
    state = {"best": -1.0, "members": (), "evals": 0, "trace": [], "best_at": 0}

    def add(dist, pj):
        out = dist * (1 - pj)
        out[1:] += dist[:-1] * pj
        out = np.append(out, dist[-1] * pj)
        return out

    def dfs(start, dist, cost, chosen, r):
        if n - start < r:
            return
        if start not in tails:
            tails[start] = _cheapest_sums(ts[start:], kmax)
        prefix, cheapest = tails[start]
        if cost + cheapest[r] > cap:
            return
        # the k-th most accurate of r more members has accuracy ps[start + i] only if the k
        # cheapest of items start..start+i and the r - k cheapest of all fit what is left
        fits = prefix[:, 1 : r + 1] <= (cap - cost) - cheapest[r - 1 :: -1][:r] + _TOL * cap
        ceiling = np.minimum.accumulate(ps[start + fits.argmax(axis=0)])
        comp = dist
        for pj in ceiling:
            comp = add(comp, pj)
        size = len(chosen) + r
        ub = float(comp[size // 2 + 1 :].sum())
        state["evals"] += 1
        if ub <= state["best"] + _TOL:
            return
        if cost + ts[start : start + r].sum() <= cap:  # the bound is attained
            state.update(
                best=ub, members=chosen + tuple(range(start, start + r)), best_at=state["evals"]
            )
            state["trace"].append((state["evals"], ub))
            return
        cheapest_skipped = np.inf
        for j in range(start, n - r + 1):
            if ts[j] < cheapest_skipped and cost + ts[j] <= cap:
                dfs(j + 1, add(dist, ps[j]), cost + ts[j], chosen + (j,), r - 1)
            cheapest_skipped = min(cheapest_skipped, ts[j])

    for ell in range(1, kmax + 1, 2):
        dfs(0, np.ones(1), 0.0, (), ell)
    members = np.sort(order[list(state["members"])])
    return SelectionResult(
        members=members,
        accuracy=state["best"],
        cost=float(t[members].sum()),
        evaluations=state["evals"],
        trace=np.array(state["trace"]).reshape(-1, 2),
        best_at=state["best_at"],
        stopped_by="exhausted",
        steps=state["evals"],
        best_step=state["best_at"],
    )


def _pick_by_usefulness(p, t, mask, remaining, k) -> list[int]:
    """Up to k items outside ``mask``, best usefulness p/t first, each fitting what is left."""
    picked = []
    for i in np.argsort(-(p / t), kind="stable"):
        if len(picked) == k:
            break
        if not mask[i] and t[i] <= remaining * (1 + _TOL):
            picked.append(int(i))
            remaining -= t[i]
    return picked if len(picked) == k else []


def greedy_forward(
    p, t, budget, *, random_state=None, key="accuracy", step=1, even="drop_min"
) -> SelectionResult:
    """Forward selection (section II): start from the best member, extend while q increases.

    ``key='accuracy'``: the extension maximising q is chosen (the paper's rule); ``'usefulness'``:
    the next items by p/t (eq. 4) that fit. ``step=1`` (default) adds one member at a time, as
    the paper's greedy does (with ``even='drop_min'`` an even-sized extension is kept when it
    does not lower q, so the next odd size can be reached; ties go to the highest
    strict-majority q [I]); ``step=2`` extends by pairs so only odd sizes are compared
    (Lemma I.1) [I].

    Parameters
    ----------
    p, t, budget : array-like of shape (n,), array-like of shape (n,), float
        The pool and the total cost allowed, as :func:`check_pool` validates them.
    random_state : None, int, RandomState or Generator, default=None
        Unused (deterministic); accepted so every strategy has the same signature.
    key : {"accuracy", "usefulness"}, default="accuracy"
        How the extension is chosen.
    step : {1, 2}, default=1
        Members added per extension.
    even : {"drop_min", "strict"}, default="drop_min"
        Score even-sized sets without their least accurate member (Lemma I.1) or as they are.

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> from ensemble_repro.knapsack import greedy_forward
    >>> p, t = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]
    >>> greedy_forward(p, t, 4.0).members       # the best member takes the whole budget
    array([0])
    >>> greedy_forward(p, t, 4.0, key="usefulness").members
    array([1, 2, 3])
    """
    p, t, budget = check_pool(p, t, budget)
    if key not in ("accuracy", "usefulness"):
        raise ValueError(f"key must be 'accuracy' or 'usefulness'; got {key!r}")
    if isinstance(step, bool) or step not in (1, 2):
        raise ValueError(f"step must be 1 or 2; got {step!r}")
    search = _Search(p, t, budget, even, maxstep=None)
    fits = t <= budget * (1 + _TOL)
    score = p if key == "accuracy" else p / t
    first = int(np.flatnonzero(fits)[np.lexsort((t[fits], -score[fits]))[0]])
    mask = np.zeros(p.size, bool)
    mask[first] = True
    current = float(search.evaluate(mask)[0])
    while True:
        remaining = budget - t[mask].sum()
        if key == "usefulness":
            add = _pick_by_usefulness(p, t, mask, remaining, step)
            if not add:
                break
            cand = mask.copy()
            cand[add] = True
            cands = cand[None]
        else:
            free = np.flatnonzero(~mask & (t <= remaining * (1 + _TOL)))
            if step == 2:
                i, j = np.triu_indices(free.size, k=1)
                ok = t[free[i]] + t[free[j]] <= remaining * (1 + _TOL)
                adds = np.stack([free[i[ok]], free[j[ok]]], axis=1)
            else:
                adds = free[:, None]
            if adds.size == 0:
                break
            cands = np.repeat(mask[None], len(adds), axis=0)
            cands[np.arange(len(adds))[:, None], adds] = True
        q = search.evaluate(cands)
        # an even set scored without its weakest member cannot beat its odd subset
        # (Lemma I.1): one at a time, it is kept when it does not lose accuracy, ties
        # broken by its strict-majority q (not by member order) [I]
        through_even = even == "drop_min" and (mask.sum() + step) % 2 == 0
        if through_even and q.size > 1:
            strict = majority_vote_accuracy(np.broadcast_to(p, cands.shape), cands)
            best = int(np.lexsort((-strict, -np.round(q, 12)))[0])
        else:
            best = int(np.argmax(q))
        if q[best] <= current + (-_TOL if through_even else _TOL):
            break
        mask, current = cands[best], float(q[best])
    return search.result("converged")


def _removal_energies(search: _Search, mask: np.ndarray):
    """Eq. (1) of ``mask`` without each of its members (in member order), in O(k²).

    Returns (q, scored): scored(i) is the set row i is scored as, its weakest other member
    also left out when ``even='drop_min'`` makes it even-sized (Lemma I.1).
    """
    idx = np.flatnonzero(mask)
    p = search.p[idx]
    if search.even == "drop_min" and idx.size % 2 == 1:
        weakest = int(np.argmin(p))
        rest = np.delete(np.arange(idx.size), weakest)  # without the weakest: odd sets
        q_rest = leave_one_out_accuracy(p[rest])
        second = int(np.argmin(p[rest]))  # position in rest of the next weakest
        q = np.insert(q_rest, weakest, q_rest[second])
        dropped = idx[np.where(np.arange(idx.size) == weakest, rest[second], weakest)]
    else:
        q, dropped = leave_one_out_accuracy(p), idx

    def scored(i):
        row = mask.copy()
        row[[idx[i], dropped[i]]] = False
        return row

    return q, scored


def greedy_backward(
    p, t, budget, *, random_state=None, key="accuracy", even="drop_min"
) -> SelectionResult:
    """Backward selection (section II): start from the whole pool and leave the worst out.

    Members are removed one at a time until the set is affordable, then while removal raises
    q. ``key='accuracy'``: remove the member whose removal leaves the highest q, the first in
    member order among ties (the paper's rule). q (eq. 1) increases in every member's
    accuracy, so that is the least accurate member, found without scoring the others; each
    step still counts the k energy evaluations of the rule, and once the set is affordable
    scores them all (leave-one-out count distributions, O(k²)) for the trace.
    ``'usefulness'``: remove the smallest p/t (eq. 4).

    Parameters
    ----------
    p, t, budget : array-like of shape (n,), array-like of shape (n,), float
        The pool and the total cost allowed, as :func:`check_pool` validates them.
    random_state : None, int, RandomState or Generator, default=None
        Unused (deterministic); accepted so every strategy has the same signature.
    key : {"accuracy", "usefulness"}, default="accuracy"
        How the member to remove is chosen.
    even : {"drop_min", "strict"}, default="drop_min"
        Score even-sized sets without their least accurate member (Lemma I.1) or as they are.

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> from ensemble_repro.knapsack import greedy_backward
    >>> p, t = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]
    >>> greedy_backward(p, t, 4.0, key="usefulness").members
    array([1, 2, 3])
    """
    p, t, budget = check_pool(p, t, budget)
    if key not in ("accuracy", "usefulness"):
        raise ValueError(f"key must be 'accuracy' or 'usefulness'; got {key!r}")
    search = _Search(p, t, budget, even, maxstep=None)
    cap = budget * (1 + _TOL)
    mask = t <= cap

    def worst(m) -> int:
        """Position in ``m``'s members of the one to remove."""
        if key == "usefulness":
            return int(np.argmin(p[m] / t[m]))
        pm = p[m]
        weakest = int(np.argmin(pm))
        if even == "strict" or pm.size % 2 == 0 or pm.size < 3:
            return weakest
        # dropping the weakest or a next weakest leaves the same odd set scored: the first
        # in member order goes, as the first of the paper's tied removals would
        tied = pm == np.delete(pm, weakest).min()
        tied[weakest] = True
        return int(np.argmax(tied))

    def without(m, i):
        out = m.copy()
        out[np.flatnonzero(m)[i]] = False
        return out

    while t[mask].sum() > cap:
        if key == "accuracy":
            search.evaluations += int(mask.sum())  # the paper's rule scores every removal
        mask = without(mask, worst(mask))
    current = float(search.evaluate(mask)[0])
    while mask.sum() > 1:
        removed = worst(mask)
        cand = without(mask, removed)
        if key == "usefulness":
            q = float(search.evaluate(cand)[0])
        else:
            qs, scored = _removal_energies(search, mask)
            # the set is affordable, so every subset of it is
            search.tally(qs, np.ones(qs.size, bool), scored, pick=removed)
            q = float(qs[removed])
        if q <= current + _TOL:
            break
        mask, current = cand, q
    return search.result("converged")


def _random_subsets(rng, p, t, budget, size, sampler) -> np.ndarray:
    """``size`` random subsets (rows) of the pool for Monte Carlo.

    ``uniform_subset``: uniform over all 2^n subsets (each item kept with probability 1/2),
    returned as drawn, so infeasible draws are possible (the caller rejects them).
    ``uniform_size`` / ``bernoulli``: feasible by construction, built by walking a random
    permutation and taking the wanted items that still fit.
    """
    n = p.size
    if sampler == "uniform_subset":
        return rng.random((size, n)) < 0.5
    cap = budget * (1 + _TOL)
    perm = np.argsort(rng.random((size, n)), axis=1)
    if sampler == "uniform_size":
        top = max(max_affordable(t, budget), 1)
        target = 2 * rng.integers(0, (top + 1) // 2, size=size) + 1
        wanted = np.ones((size, n), bool)
    elif sampler == "bernoulli":
        target = np.full(size, n)
        wanted = rng.random((size, n)) < 0.5
    else:
        raise ValueError(
            f"sampler must be 'uniform_subset', 'uniform_size' or 'bernoulli'; got {sampler!r}"
        )
    masks = np.zeros((size, n), bool)
    cost = np.zeros(size)
    count = np.zeros(size, int)
    rows = np.arange(size)
    for pos in range(n):
        item = perm[:, pos]
        take = wanted[rows, item] & (cost + t[item] <= cap) & (count < target)
        masks[rows[take], item[take]] = True
        cost += np.where(take, t[item], 0.0)
        count += take
    return masks


def monte_carlo(
    p,
    t,
    budget,
    *,
    random_state=None,
    sampler="uniform_size",
    even="drop_min",
    stop: StoppingRule | None = None,
    maxstep=MAXSTEP,
    batch=256,
) -> SelectionResult:
    """Monte Carlo search (section III): evaluate random ensembles, keep the best feasible one.

    ``sampler`` [I]: ``uniform_subset`` draws subsets uniformly from all 2^n and rejects the
    ones over budget (each draw counts as one simulation, feasible or not); ``uniform_size``
    draws an odd size uniformly and fills it with items in random order that fit;
    ``bernoulli`` keeps each item with probability 1/2, repaired by dropping, in random
    order, the members that no longer fit.

    Parameters
    ----------
    p, t, budget : array-like of shape (n,), array-like of shape (n,), float
        The pool and the total cost allowed, as :func:`check_pool` validates them.
    random_state : None, int, RandomState or Generator, default=None
        Seed (scikit-learn's convention).
    sampler : {"uniform_size", "uniform_subset", "bernoulli"}, default="uniform_size"
        How random ensembles are drawn.
    even : {"drop_min", "strict"}, default="drop_min"
        Score even-sized sets without their least accurate member (Lemma I.1) or as they are.
    stop, maxstep : StoppingRule or None, int or None (default MAXSTEP)
        Stop at the first ensemble reaching the rule (section IV) / after maxstep evaluations
        (None: the rule's own ``stop.maxstep``, eq. 29; refused without one).
    batch : int, default=256
        Ensembles drawn per vectorised round: each round holds batch x n random numbers in
        memory (batch = 10**9 on 50 members asks for 400 GB), and the draws of a round past
        MAXSTEP are discarded, so changing it changes which ensembles a seed draws.

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> from ensemble_repro.knapsack import monte_carlo
    >>> p, t = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]
    >>> res = monte_carlo(p, t, 4.0, random_state=0, maxstep=50)
    >>> res.members, res.evaluations, res.stopped_by
    (array([1, 2, 3]), 50, 'maxstep')
    """
    p, t, budget = check_pool(p, t, budget)
    batch = _check_count("batch", batch)
    maxstep = _check_bounded(maxstep, stop)
    if sampler not in ("uniform_size", "uniform_subset", "bernoulli"):
        raise ValueError(
            f"sampler must be 'uniform_subset', 'uniform_size' or 'bernoulli'; got {sampler!r}"
        )
    rng = check_generator(random_state)
    search = _Search(p, t, budget, even, stop, maxstep)
    while not search.done:
        search.evaluate(_random_subsets(rng, p, t, budget, batch, sampler))
    return search.result()


def _swap_move(rng, mask, movable, t, cap):
    """Swap move on a random item j: remove it, add it, or swap it in for random members."""
    j = rng.choice(movable)
    new = mask.copy()
    if new[j]:
        new[j] = False
        return new
    members = rng.permutation(np.flatnonzero(new))
    room = cap - t[new].sum()
    k = 0
    while room < t[j] and k < members.size:
        new[members[k]] = False
        room += t[members[k]]
        k += 1
    new[j] = True
    return new


def _add_remove_move(rng, mask, movable, t, cap):
    """Toggle a random item among the members and the non-members that fit what is left."""
    room = cap - t[mask].sum()
    allowed = movable[mask[movable] | (t[movable] <= room)]
    new = mask.copy()
    j = rng.choice(allowed)
    new[j] = not new[j]
    return new


#: SA move sets by name (the first is the default).
SA_MOVES = {"swap": _swap_move, "add_remove": _add_remove_move}


def simulated_annealing(
    p,
    t,
    budget,
    *,
    random_state=None,
    init="empty",
    moves="swap",
    rho=0.95,
    moves_per_temp=None,
    accept0=0.8,
    tmin_ratio=1e-4,
    probe_moves=100,
    even="drop_min",
    stop: StoppingRule | None = None,
    maxstep=MAXSTEP,
) -> SelectionResult:
    """Simulated annealing baseline (section III; all settings [I]: the paper gives none).

    Starts from the empty ensemble (the paper: SA's solutions "are independent of the initial
    conditions"); ``init="greedy_forward"`` starts from the usefulness-greedy ensemble.
    Geometric schedule τ ← ρτ every ``moves_per_temp`` moves (default n; ``"budget"``
    spreads the ⌈log(tmin_ratio) / log ρ⌉ temperatures over the evaluations MAXSTEP leaves
    after the start, so the schedule ends within the budget [I]); τ₀ accepts about
    ``accept0`` of worsening moves, estimated from a random walk of ``probe_moves`` moves
    from the start (counted as evaluations); stops at τ < tmin_ratio·τ₀, MAXSTEP evaluations
    or the stopping rule. One step is one move (one energy evaluation).

    Parameters
    ----------
    p, t, budget : array-like of shape (n,), array-like of shape (n,), float
        The pool and the total cost allowed, as :func:`check_pool` validates them.
    random_state : None, int, RandomState or Generator, default=None
        Seed (scikit-learn's convention).
    init : {"empty", "greedy_forward"}, default="empty"
        Start from nothing or from the usefulness-greedy ensemble (its evaluations count).
    moves : {"swap", "add_remove"}, default="swap"
        Move set: ``swap`` picks a random item and removes it, adds it, or adds it after
        removing random members until it fits; ``add_remove`` toggles a random
        item among the members and the non-members that fit (no swaps).
    rho : float in (0, 1), default=0.95
        Cooling factor.
    moves_per_temp : int or "budget", optional
        Moves per temperature (default: n); ``"budget"``: as many as let the whole schedule
        fit in ``maxstep`` evaluations (at least 1).
    accept0 : float in (0, 1), default=0.8
        Initial acceptance rate of worsening moves.
    tmin_ratio : float in (0, 1), default=1e-4
        Final temperature as a fraction of the initial one.
    probe_moves : int, default=100
        Random-walk moves used to set the initial temperature.
    even : {"drop_min", "strict"}, default="drop_min"
        Score even-sized sets without their least accurate member (Lemma I.1) or as they are.
    stop, maxstep : StoppingRule or None, int or None (default MAXSTEP)
        Stop at the first ensemble reaching the rule (section IV) / after maxstep evaluations.

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> from ensemble_repro.knapsack import simulated_annealing
    >>> p, t = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]
    >>> simulated_annealing(p, t, 4.0, random_state=0, maxstep=200).members
    array([1, 2, 3])
    >>> simulated_annealing(p, t, 4.0, random_state=0, maxstep=1).members  # 1 move from empty
    array([4])
    """
    p, t, budget = check_pool(p, t, budget)
    if init not in ("greedy_forward", "empty"):
        raise ValueError(f"init must be 'empty' or 'greedy_forward'; got {init!r}")
    if moves not in SA_MOVES:
        raise ValueError(f"moves must be one of {', '.join(SA_MOVES)}; got {moves!r}")
    rho = _check_unit_interval("rho", rho)
    accept0 = _check_unit_interval("accept0", accept0)
    tmin_ratio = _check_unit_interval("tmin_ratio", tmin_ratio)
    _check_stop(stop)
    if not (
        isinstance(probe_moves, numbers.Integral)
        and not isinstance(probe_moves, bool)
        and probe_moves >= 0
    ):
        raise ValueError(f"probe_moves must be a non-negative integer; got {probe_moves!r}")
    if moves_per_temp == "budget" and maxstep is None:
        raise ValueError("moves_per_temp='budget' spreads the schedule over maxstep; give maxstep")
    if moves_per_temp not in (None, "budget") and not (
        isinstance(moves_per_temp, numbers.Integral)
        and not isinstance(moves_per_temp, bool)
        and moves_per_temp >= 1
    ):
        raise ValueError(
            f"moves_per_temp must be a positive integer, 'budget' or None; got {moves_per_temp!r}"
        )
    rng = check_generator(random_state)
    search = _Search(p, t, budget, even, stop, maxstep)
    cap = budget * (1 + _TOL)
    movable = np.flatnonzero(t <= cap)
    cache: dict[bytes, float] = {}

    def energy(m):
        key = m.tobytes()
        if key in cache:  # a repeat still counts as an evaluation
            search.evaluations += 1
            return cache[key]
        out = search.evaluate(m)
        cache[key] = float(out[0]) if out.size else -1.0
        return cache[key]

    def propose(m):
        return SA_MOVES[moves](rng, m, movable, t, cap)

    mask = np.zeros(p.size, bool)
    current = 0.0  # the empty set
    if init == "greedy_forward":
        start = greedy_forward(p, t, budget, key="usefulness", even=even)
        mask[start.members] = True
        current = energy(mask)  # the start is recorded even if greedy used up MAXSTEP
        search.evaluations += start.evaluations - 1  # greedy's evaluations count towards SA's
    walk, q_walk, deltas = mask, current, []
    for _ in range(probe_moves):
        if search.done:
            break
        nxt = propose(walk)
        q_next = energy(nxt)
        deltas.append(q_next - q_walk)
        walk, q_walk = nxt, q_next
    worse = -np.array([d for d in deltas if d < 0])
    tau0 = (worse.mean() if worse.size else 1e-3) / -np.log(accept0)
    tau = tau0
    if moves_per_temp == "budget":
        temperatures = math.ceil(math.log(tmin_ratio) / math.log(rho))
        per_temp = max(1, (maxstep - search.evaluations) // temperatures)
    else:
        per_temp = int(moves_per_temp or p.size)
    while not search.done:
        for _ in range(per_temp):
            if search.done:
                break
            cand = propose(mask)
            q = energy(cand)
            if q >= current or rng.random() < np.exp((q - current) / tau):
                mask, current = cand, q
        tau *= rho
        if tau < tmin_ratio * tau0:
            break
    return search.result("schedule")


def stochastic_search(
    p,
    t,
    budget,
    *,
    random_state=None,
    evaluate="odd_prefixes",
    even="drop_min",
    stop: StoppingRule | None = None,
    maxstep=MAXSTEP,
    steps="constructions",
    copies="maximal",
    batch=64,
) -> SelectionResult:
    """The paper's Algorithm 1: random constructions driven by the efficiency of eq. (5).

    Each construction adds items drawn with probability proportional to their efficiency
    (eq. 6) for the remaining budget until nothing fits; then "we restart the process to
    extract another ensemble in the next search step", so one step is one construction
    (``steps="constructions"``, default; ``"evaluations"`` counts energy evaluations).
    ``evaluate`` [I]: ``odd_prefixes`` scores every odd-sized prefix of the construction (the
    paper evaluates odd sizes only); ``final`` only the finished, maximal ensemble (it misses
    optima that leave budget unused). ``batch`` constructions are drawn at once (vectorised);
    a run stops exactly at MAXSTEP steps or at the first ensemble passing the stopping rule.

    Parameters
    ----------
    p, t, budget : array-like of shape (n,), array-like of shape (n,), float
        The pool and the total cost allowed, as :func:`check_pool` validates them.
    random_state : None, int, RandomState or Generator, default=None
        Seed (scikit-learn's convention).
    evaluate : {"odd_prefixes", "final"}, default="odd_prefixes"
        Which ensembles of a construction are scored.
    even : {"drop_min", "strict"}, default="drop_min"
        Score even-sized sets without their least accurate member (Lemma I.1) or as they are.
    stop, maxstep : StoppingRule or None, int or None (default MAXSTEP)
        Stop at the first ensemble reaching the rule (section IV) / after maxstep steps
        (None: the rule's own ``stop.maxstep``, eq. 29; refused without one).
    steps : {"constructions", "evaluations"}, default="constructions"
        What one step (the unit of ``maxstep``) is.
    copies : {"maximal", "odd"}, default="maximal"
        Copies counted by the efficiency (:func:`~ensemble_repro.knapsack.efficiency`).
    batch : int, default=64
        Constructions drawn per vectorised round (each holds batch x n random numbers).

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> from ensemble_repro.knapsack import stochastic_search
    >>> p, t = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]
    >>> res = stochastic_search(p, t, 4.0, random_state=0, maxstep=20)
    >>> res.members, round(res.accuracy, 5), res.steps
    (array([1, 2, 3]), 0.84375, 20)
    """
    p, t, budget = check_pool(p, t, budget)
    if evaluate not in ("final", "odd_prefixes"):
        raise ValueError(f"evaluate must be 'final' or 'odd_prefixes'; got {evaluate!r}")
    if steps not in ("constructions", "evaluations"):
        raise ValueError(f"steps must be 'constructions' or 'evaluations'; got {steps!r}")
    if copies not in ("maximal", "odd"):
        raise ValueError(f"copies must be 'maximal' or 'odd'; got {copies!r}")
    batch = _check_count("batch", batch)
    maxstep = _check_bounded(maxstep, stop)
    rng = check_generator(random_state)
    search = _Search(p, t, budget, even, stop, maxstep, unit=steps)
    n = p.size
    while not search.done:
        size = batch
        if steps == "constructions" and maxstep is not None:
            size = min(batch, maxstep - search.steps)
        rows = np.arange(size)
        masks = np.zeros((size, n), bool)
        remaining = np.full(size, budget * (1 + _TOL))
        prefixes = []
        while True:
            eff = np.where(masks, 0.0, efficiency(p, t, remaining[:, None], copies))
            fits = ~masks & (t <= remaining[:, None])
            eff = np.where(
                fits & (eff.sum(1, keepdims=True) == 0), 1.0, eff
            )  # all-zero rows: uniform
            total = eff.sum(1)
            active = total > 0
            if not active.any():
                break
            cum = np.cumsum(eff, axis=1)
            u = rng.random(size) * total
            pick = np.minimum((cum <= u[:, None]).sum(1), n - 1)
            masks[rows[active], pick[active]] = True
            remaining -= np.where(active, t[pick], 0.0)
            if evaluate == "odd_prefixes":
                odd = active & (masks.sum(1) % 2 == 1)
                prefixes.append(np.where(odd[:, None], masks, False))
        if evaluate == "odd_prefixes":
            stacked = np.stack(prefixes, axis=1)  # construction-major: (size, depth, n)
            keep = stacked.any(2)
            candidates = stacked[keep]
            owners = np.nonzero(keep)[0]
        else:
            candidates, owners = masks, rows
        q = search.evaluate(candidates, owners=owners if steps == "constructions" else None)
        if steps == "constructions":
            search.steps += int(owners[q.size - 1]) + 1 if q.size < owners.size else size
    return search.result()


#: Strategy functions by name (the names used in configs and tables).
STRATEGIES = {
    "exhaustive": exhaustive,
    "greedy_forward": greedy_forward,
    "greedy_backward": greedy_backward,
    "monte_carlo": monte_carlo,
    "simulated_annealing": simulated_annealing,
    "stochastic_search": stochastic_search,
}
