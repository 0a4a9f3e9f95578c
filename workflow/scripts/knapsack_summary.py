"""Knapsack tables (CSV + Markdown) and figures from all selection runs."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.io import write_csv, write_markdown  # noqa: E402
from ensemble_repro.papers.knapsack import cells  # noqa: E402
from ensemble_repro.papers.knapsack.names import KNAPSACK_TABLES  # noqa: E402
from ensemble_repro.provenance import write_provenance  # noqa: E402

inp, out, params = snakemake.input, snakemake.output, snakemake.params.cfg
cfg = params["knapsack"]
runs = cells.read_runs(inp.runs)
tables = cells.summary_tables(runs, inp.pools, seed=params["seed"], beta_fit=cfg["beta_fit"])
for name, table in tables.items():
    write_csv(table, out[name])
    write_markdown(table, out[f"{name}_md"], title=KNAPSACK_TABLES[name][1])
    write_provenance(out[name], config=params, seed=params["seed"])
cells.write_summary_figures(
    runs,
    tables["savings"],
    cfg,
    convergence=zip(inp.runs, inp.traces, out.convergence_pdf, out.convergence_png, strict=False),
    savings_figure=(out.savings_csv, out.savings_pdf, out.savings_png),
    empirical_figure=(out.empirical_pdf, out.empirical_png),
)
