"""Progress logging for workflow scripts: one line per unit of work, into the rule's log."""

from __future__ import annotations

import logging
import sys
import time

LOGGER_NAME = "ensemble_repro"


def setup_logging(log_path: str | None = None, level: int = logging.INFO) -> logging.Logger:
    """Send the package logger to ``log_path`` (a Snakemake ``log:`` file) and stderr."""
    logger = logging.getLogger(LOGGER_NAME)
    logger.setLevel(level)
    for h in list(logger.handlers):
        logger.removeHandler(h)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%Y-%m-%d %H:%M:%S")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    for h in handlers:
        h.setFormatter(fmt)
        logger.addHandler(h)
    logger.propagate = False
    return logger


def get_logger(name: str | None = None) -> logging.Logger:
    return logging.getLogger(LOGGER_NAME if not name else f"{LOGGER_NAME}.{name}")


class Progress:
    """Log ``done/total`` with elapsed time and a naive ETA after each step."""

    def __init__(self, total: int, what: str, logger: logging.Logger | None = None):
        self.total, self.what, self.done = int(total), what, 0
        self.logger = logger or get_logger()
        self.start = time.perf_counter()

    def step(self, detail: str = "", steps: int = 1) -> None:
        """Count ``steps`` more done (steps skipped at no cost count too) and log."""
        self.done += steps
        el = time.perf_counter() - self.start
        eta = el / self.done * (self.total - self.done)
        self.logger.info(
            "%s %d/%d %s (elapsed %.1fs, eta %.1fs)",
            self.what,
            self.done,
            self.total,
            detail,
            el,
            eta,
        )
