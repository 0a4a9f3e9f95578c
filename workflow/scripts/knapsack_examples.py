"""Worked example and Propositions II.1-4 (section II), adversarial pool (section III), Fig. 1 /
Lemma IV.1 and the ensemble-size estimates of eqs. (22) and (33) (section IV), brute force on
small pools (Lemma I.1, backward selection, eq. 29)."""

from ensemble_repro.logs import setup_logging

log = setup_logging(snakemake.log[0])

from ensemble_repro.io import write_csv, write_markdown  # noqa: E402
from ensemble_repro.papers.knapsack import cells  # noqa: E402
from ensemble_repro.papers.knapsack.plots import lemma_figure  # noqa: E402
from ensemble_repro.provenance import write_provenance  # noqa: E402

params, out = snakemake.params.cfg, snakemake.output
log.info("knapsack examples: the worked example (section II)")
worked = cells.worked_example()
log.info("knapsack examples: the adversarial pool's searches (section III)")
runs, rates = cells.adversarial(params["knapsack"], params["seed"])
log.info("knapsack examples: Lemma IV.1, greedy worst cases, ensemble-size estimates")
lemma = cells.lemma_iv1_table()
greedy = cells.greedy_worst_case(params["knapsack"], params["seed"])
sizes = cells.size_estimates(params["knapsack"], params["seed"])
small = cells.small_pools(params["knapsack"], params["seed"])
for table, csv, md, title in (
    (worked, out.worked, out.worked_md, "Worked example (section II)"),
    (rates, out.rates, out.rates_md, "Adversarial pool: success rates"),
    (runs, out.runs, None, None),
    (lemma, out.lemma, None, None),
    (greedy, out.greedy, out.greedy_md, "Propositions II.1-4: greedy errors"),
    (sizes, out.sizes, None, None),
    (small, out.small, None, None),
):
    write_csv(table, csv)
    if md:
        write_markdown(table, md, title=title)
    write_provenance(csv, config=params, seed=params["seed"])
lemma_figure(lemma, out.fig1_pdf, out.fig1_png)
