"""ensemble-repro: methods and experiments of three papers on the cost of ensembles.

Modules: ``conformal`` (Jackknife+-after-bootstrap, Kim, Xu & Barber 2020), ``knapsack``
(stochastic knapsack ensemble selection, Hajdu et al. 2020), ``qwyc`` (Quit When You Can,
Wang, Gupta & You 2018), ``data`` (fetching and preparing the data sets).
"""

__version__ = "0.2.0.dev0"  # the one version source: pyproject.toml reads it
