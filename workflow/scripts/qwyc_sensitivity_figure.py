# Main setting vs sensitivity settings (e.g. thresholds fitted on train vs on validation).
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.qwyc import report  # noqa: E402

inp, out = snakemake.input, snakemake.output
sens = pd.concat([pd.read_csv(f) for f in inp.sensitivity], ignore_index=True)
report.plot_sensitivity(
    pd.read_csv(inp.points),
    sens,
    snakemake.wildcards.qwyc_data,
    snakemake.params.cfg["qwyc"],
    out.pdf,
    out.png,
)
