"""A toy fourth paper: one experiment, one table, one claim, in this folder alone.

It shows what a plug-in paper declares (``docs/development.md``, "Adding a paper"): its rules,
config keys and benchmark files and its claim (:mod:`.declared`), the cost of its jobs
(:mod:`.cost`), its rules file (``rules.smk``, with its thin scripts), its config defaults
(``config.yaml``) and their schema (``schema.yaml``), and its docs page (``README.md``).
``tests/pipeline/test_paper_plugins.py`` runs it through the workflow.
"""

from ensemble_repro.papers.paper import Paper

from . import declared

PAPER = Paper.declare(
    "toy",
    "A toy paper (the plug-in example)",
    "Toy paper",
    keys=declared,
    names=declared,
    claim_list=declared,
    order=100,
    package=__name__,
    check_config=declared.check_config,
    rules="rules.smk",
    docs="README.md",
    config_defaults="config.yaml",
    config_schema="schema.yaml",
)
