"""The verdict engine every paper's claims share.

``claim`` holds the claim record, the output files and the scale label; ``rules`` the
decision rules and intervals; ``table`` and ``render`` write ``results/claims.csv`` and the
verdict pages; ``forest`` the forest plots; ``build`` what the workflow rules call. Each paper's
claims, margins and evaluator live in its package (``ensemble_repro.papers.<paper>``).
"""
