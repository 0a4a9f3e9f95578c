"""The pipeline layer of each built-in paper, one package per paper.

Each subpackage that defines ``PAPER`` (a :class:`.paper.Paper`) is a paper; it also holds the
paper's experiment cells, figures and tables, claims and their evaluator, config checks and the
cost of its jobs. :mod:`ensemble_repro.paper_loader` finds them (with the plug-ins a config
names) and lists them in report order: no list of papers is kept here.
"""
