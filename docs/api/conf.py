"""Sphinx configuration of the API reference (``make docs``: build/docs/api, warnings as errors).

The pages document each package's ``__all__`` from its numpydoc docstrings.
"""

import ensemble_repro

project = "ensemble-repro"
author = "ensemble-repro contributors"
copyright = "2026, ensemble-repro contributors"
release = ensemble_repro.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.intersphinx", "numpydoc"]
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc Parameters sections give the types
numpydoc_show_class_members = False  # autodoc lists the methods
numpydoc_validation_checks = set()
intersphinx_mapping = {}  # offline: no inventories fetched
html_theme = "alabaster"
html_static_path = []
exclude_patterns = ["_build"]


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_*_request`` methods (metadata routing) are not ours."""
    return True if name.startswith("set_") and name.endswith("_request") else skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
