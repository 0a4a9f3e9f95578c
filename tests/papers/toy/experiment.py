"""The toy's experiment and its claim's evaluator."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ensemble_repro.claims.build import read_table, write_paper_claims
from ensemble_repro.claims.rules import INCONCLUSIVE, band_verdict, repeats_needed, t_interval
from ensemble_repro.claims.table import claim_row
from ensemble_repro.io import write_csv
from ensemble_repro.provenance import write_provenance

from .declared import MARGIN


def write_draws(out: str, params: Mapping) -> None:
    """``toy.n_draws`` standard normal draws from the run's seed, one per row."""
    rng = np.random.default_rng(params["seed"])
    draws = pd.DataFrame({"draw": rng.standard_normal(params["toy"]["n_draws"])})
    write_csv(draws, out)
    write_provenance(out, config=params, seed=params["seed"])


def write_claims(draws: str, out: str, scale: str) -> None:
    """The claim's row: the t interval of the mean against +-MARGIN."""
    values = read_table(draws)["draw"]
    iv = t_interval(values)
    verdict = band_verdict(iv, -MARGIN, MARGIN)
    need = (
        repeats_needed(iv, low=-MARGIN, high=MARGIN, unit="draws")
        if verdict == INCONCLUSIVE
        else ""
    )
    row = claim_row(
        "toy.mean_zero",
        "normal draws",
        ours=f"mean {iv.estimate:.3f}",
        verdict=verdict,
        interval=iv,
        n_repeats=iv.n,
        effect=iv,
        band=(-MARGIN, MARGIN),
        repeats_needed=need,
    )
    write_paper_claims([row], out, scale)
