# The QWYC paper's claims next to the measured numbers.
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments import qwyc  # noqa: E402

inp, p = snakemake.input, snakemake.params
read = lambda files: pd.concat([pd.read_csv(f) for f in files], ignore_index=True)  # noqa: E731
sensitivity = read(inp.sensitivity) if inp.sensitivity else None
table = qwyc.paper_vs_ours(read(inp.points), read(inp.smaller), read(inp.timing), p.qwyc,
                           sensitivity)
qwyc.write_paper_vs_ours(table, snakemake.output[0], p.qwyc)
