# The QWYC paper's claims next to the measured numbers, its verdicts copied from claims.csv.
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.qwyc import report  # noqa: E402

inp, q = snakemake.input, snakemake.params.cfg["qwyc"]
read = lambda files: pd.concat([pd.read_csv(f) for f in files], ignore_index=True)  # noqa: E731
sensitivity = read(inp.sensitivity) if inp.sensitivity else None
table = report.paper_vs_ours(read(inp.points), read(inp.smaller), read(inp.timing), q, sensitivity)
report.write_paper_vs_ours(table, inp.claims, snakemake.output[0], q)
