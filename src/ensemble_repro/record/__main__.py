"""``python -m ensemble_repro.record {publish,restore,runmd,readme,report} ...`` (``make
record``, ``make record-resume``, ``make record-readme``, ``make record-report``)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from .files import (
    DEFAULT_SLICE,
    MAX_FILE_BYTES,
    RECORD_BUDGET_BYTES,
    RecordError,
    build_report,
    clear_touch_pending,
    effective_config,
    machine_facts,
    mark_touch_pending,
    publish,
    report_of_record,
    restore,
    touch_cells,
)
from .readme import update_readme
from .runmd import SNAKEFILE, write_run_md


def _results(path: str) -> Path:
    results = Path(path)
    if results.name != "results":
        raise RecordError(
            f"{path}: give the run's results/ directory (its parent is the run directory)"
        )
    return results


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number above 0")
    return value


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m ensemble_repro.record",
        description="Publish a run into a record folder, restore its J+aB cells, write its "
        "RUN.md and the README's verdict table, build its report.",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("publish", help="copy a run's small outputs into a record folder")
    p.add_argument("results", help="the run's results/ directory")
    p.add_argument("record", help="the record folder, e.g. record/paper")
    p.add_argument(
        "--configfile",
        nargs="+",
        default=[],
        help="the run's --configfile files, relative to the run directory",
    )
    p.add_argument("--slice", default=DEFAULT_SLICE, help="name of this part of the run")
    p.add_argument(
        "--replace",
        action="store_true",
        help="also delete record files of the same slice that the run no longer has",
    )
    p.add_argument("--exclude", action="append", default=[], help="leave out files (glob)")
    p.add_argument(
        "--build-report",
        action="store_true",
        help="first build results/report.html with snakemake in the run directory",
    )
    p.add_argument("--notes", help="text file on the machine's load while the run went on")
    p.add_argument("--snakefile", help="for --build-report (default: the run directory's)")
    p.add_argument(
        "--cores", type=_positive_int, help="cores the run used (default: this machine's)"
    )
    p.add_argument("--cpu-model", help="CPU model (default: from /proc/cpuinfo)")
    p.add_argument(
        "--memory-gb", type=_positive_float, help="memory in GB (default: /proc/meminfo)"
    )
    p.add_argument("--max-file-mb", type=_positive_float, default=MAX_FILE_BYTES / 1e6)
    p.add_argument("--budget-mb", type=_positive_float, default=RECORD_BUDGET_BYTES / 1e6)

    r = sub.add_parser("restore", help="copy a record's J+aB cells and benchmarks into a run")
    r.add_argument("record")
    r.add_argument("results", nargs="?", default="results")
    r.add_argument("--configfile", nargs="+", default=[], help="the config of the run to resume")
    r.add_argument("--overwrite", action="store_true", help="replace files the run has")
    r.add_argument("--snakefile", help="for the touch (default: the run directory's)")
    r.add_argument(
        "--no-touch",
        action="store_true",
        help="do not run snakemake --touch on the restored cells (then Snakemake holds no "
        "metadata for them and a later config change does not rerun them)",
    )

    m = sub.add_parser("runmd", help="write the record's RUN.md")
    m.add_argument("record")
    m.add_argument("--notes", help="text file for the 'load while it ran' section")
    m.add_argument("--snakefile", default=SNAKEFILE, help="the workflow (the repository's)")

    d = sub.add_parser("readme", help="write the verdict table between the README's markers")
    d.add_argument("record")
    d.add_argument("--readme", default="README.md")

    o = sub.add_parser("report", help="build the Snakemake report of a record from its files")
    o.add_argument("record")
    o.add_argument("--out", default="results/report_of_record.html", help="the HTML file")
    o.add_argument("--snakefile", default="Snakefile", help="the workflow (the repository's)")
    return ap


def main(argv=None) -> int:
    """Run one command; errors print one message and return 2."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "publish":
            results = _results(args.results)
            workdir = results.resolve().parent
            if args.build_report:
                failed = build_report(workdir, args.configfile, args.snakefile)
                if failed:
                    print(f"warning: report not built: {failed}", file=sys.stderr)
            machine = machine_facts(args.cores, args.cpu_model, args.memory_gb)
            out = publish(
                results,
                args.record,
                slice_name=args.slice,
                replace=args.replace,
                config_files=args.configfile,
                exclude=args.exclude,
                machine=machine,
                notes=args.notes,
                max_file_bytes=int(args.max_file_mb * 1e6),
                budget_bytes=int(args.budget_mb * 1e6),
            )
            print("\n".join(out.lines()))
        elif args.command == "restore":
            results = _results(args.results)
            workdir = results.resolve().parent
            config, _ = effective_config(workdir, args.configfile)
            out = restore(args.record, results, config, overwrite=args.overwrite)
            print("\n".join(out.lines()))
            if not args.no_touch:
                # the marker outlives a restore killed before its touch ended: the next one
                # touches those cells too
                cells = mark_touch_pending(results, out.cells)
                if len(cells) > len(out.cells):
                    print(f"{len(cells) - len(out.cells)} cells of an interrupted restore to touch")
                if cells:
                    proc = touch_cells(workdir, args.configfile, cells, args.snakefile)
                    if proc.returncode != 0:
                        print(proc.stdout[-3000:] + proc.stderr[-3000:], file=sys.stderr)
                        raise RecordError(
                            "snakemake --touch of the restored cells failed (output above): "
                            "fix the cause and rerun the restore"
                        )
                    clear_touch_pending(results)
                    print(f"snakemake --touch recorded metadata for {len(cells)} cells")
        elif args.command == "runmd":
            print(write_run_md(args.record, args.notes, args.snakefile))
        elif args.command == "readme":
            path, changed = update_readme(args.record, args.readme)
            print(f"{path}: verdict table {'rewritten' if changed else 'already up to date'}")
        elif args.command == "report":
            print(f"wrote {report_of_record(args.record, args.out, args.snakefile)}")
    except RecordError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
