"""What the papers' config checks share: the largest seed, and repeated list entries.

Each paper's cross-field config rules live in its package (``config_checks``, declared as
:attr:`ensemble_repro.papers.paper.Paper.check_config`); :func:`ensemble_repro.config.check_semantics`
runs them. A rule returns (path, sentence) pairs; the sentence names the key, the bad value
and the fix.
"""

from __future__ import annotations

#: Largest seed NumPy's ``RandomState`` and scikit-learn's ``random_state`` accept.
MAX_SEED = 2**32 - 1


def normalised_repeats(key: str, items, normal) -> list[tuple[list, str]]:
    """Entries of the list ``key`` that are equal once written the same way by ``normal``."""
    out, seen = [], {}
    for i, item in enumerate(items):
        norm = normal(item)
        if norm in seen:
            msg = (
                f"config value {key} lists {items[seen[norm]]!r} (entry {seen[norm]}) and "
                f"{item!r} (entry {i}), the same setting written twice; each entry becomes "
                f"rows of a result table, so the rows would be duplicated. Remove entry {i}"
            )
            out.append((key.split(".") + [i], msg))
        else:
            seen[norm] = i
    return out
