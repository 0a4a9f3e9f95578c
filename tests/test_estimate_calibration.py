"""Machine calibration of the cost estimate (ensemble_repro.estimate): kernel times are cached
per machine and reused, a new machine is measured, and the factors scale the unit costs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workflow_helpers import smoke_config

from ensemble_repro import estimate as est

SMOKE = smoke_config()
KEY = {"hostname": "box", "cpu_model": "Some CPU", "cores": 2}


class FakeMeasure:
    """Kernel times ``factor`` x the shipped reference, counting its calls (nothing is timed)."""

    def __init__(self, factor: float):
        self.factor, self.calls = factor, 0

    def __call__(self, families):
        self.calls += 1
        ref = est.UnitCosts().reference_kernels()
        return {f: ref[f] * self.factor for f in families}


def test_cached_calibration_is_reused(tmp_path):
    measure = FakeMeasure(2.0)
    first = est.machine_calibration(tmp_path, key=KEY, measure=measure)
    second = est.machine_calibration(tmp_path, key=KEY, measure=measure)
    assert measure.calls == 1
    assert second.kernels == first.kernels and second.path == first.path
    assert json.loads(first.path.read_text())["key"] == KEY


def test_another_machine_or_refresh_measures_again(tmp_path):
    measure = FakeMeasure(2.0)
    est.machine_calibration(tmp_path, key=KEY, measure=measure)
    other = est.machine_calibration(tmp_path, key={**KEY, "cores": 4}, measure=FakeMeasure(3.0))
    assert other.factors(est.UnitCosts().reference_kernels())["rf"] == pytest.approx(3.0)
    # the first machine's calibration is still there
    again = est.machine_calibration(tmp_path, key=KEY, measure=measure)
    assert measure.calls == 1
    assert again.factors(est.UnitCosts().reference_kernels())["rf"] == pytest.approx(2.0)
    est.machine_calibration(tmp_path, key=KEY, measure=measure, refresh=True)
    assert measure.calls == 2


def test_unreadable_cache_is_measured_again(tmp_path):
    measure = FakeMeasure(1.0)
    cal = est.machine_calibration(tmp_path, key=KEY, measure=measure)
    cal.path.write_text("{not json")
    est.machine_calibration(tmp_path, key=KEY, measure=measure)
    assert measure.calls == 2


def test_slower_machine_doubles_the_cpu_time(tmp_path):
    """A machine whose kernels take twice as long doubles every CPU cost of the estimate."""
    reference = est.estimate(SMOKE, cores=2)
    units, cal = est.machine_units(cache_dir=tmp_path, measure=FakeMeasure(2.0))
    assert all(f == pytest.approx(2.0) for f in cal.factors(units.reference_kernels()).values())
    slower = est.estimate(SMOKE, cores=2, units=units)
    for a, b in zip(reference, slower, strict=True):
        assert b.jobs == a.jobs
        assert b.cpu_hours == pytest.approx(2 * a.cpu_hours)
        assert b.wall_hours == pytest.approx(2 * a.wall_hours)


def test_one_family_scales_only_its_units(tmp_path):
    units = est.UnitCosts()
    factors = dict.fromkeys(est.KERNEL_FAMILIES, 1.0) | {"nn": 3.0}
    scaled = units.scaled(factors)
    assert scaled.get("jab_predict", "blog/nn") == pytest.approx(
        3 * units.get("jab_predict", "blog/nn")
    )
    assert scaled.get("jab_predict", "blog/rf") == units.get("jab_predict", "blog/rf")
    assert scaled.get("rows", "blog") == units.get("rows", "blog")  # a count, not a cost
    assert scaled.factor("jab_main_cell") == units.factor("jab_main_cell")


def test_load_share_divides_the_local_wall_time():
    full = est.estimate(SMOKE, cores=2)[-1]
    half = est.estimate(SMOKE, cores=2, share=0.5)[-1]
    assert half.cpu_hours == pytest.approx(full.cpu_hours)
    assert half.wall_hours == pytest.approx(2 * full.wall_hours)


def test_every_unit_cost_has_a_family_and_every_family_a_reference():
    units = est.UnitCosts()
    for unit, key in units.rows:
        family = est.unit_family(unit, key)
        assert family is None or family in est.KERNEL_FAMILIES, (unit, key)
    assert set(units.reference_kernels()) == set(est.KERNEL_FAMILIES)
    with pytest.raises(ValueError, match="'made_up'.*UNIT_FAMILIES"):
        est.unit_family("made_up", "x")


def test_reference_without_a_kernel_is_named(tmp_path):
    cal = est.machine_calibration(tmp_path, key=KEY, measure=FakeMeasure(1.0))
    ref = est.UnitCosts().reference_kernels()
    del ref["gbt"]
    with pytest.raises(KeyError, match=r"\['gbt'\].*calibrate_costs.py --only kernels"):
        cal.factors(ref)


def test_kernels_and_load_probe_return_positive_numbers():
    """What the measurements return (not how fast: speed targets live in benchmarks/)."""
    times = est.time_kernels(["ridge", "numeric"], repeats=1)
    assert set(times) == {"ridge", "numeric"} and all(t > 0 for t in times.values())
    assert 0 < est.core_share(1, seconds=0.1) <= 1


def test_load_average_caps_the_share():
    cpus = os.cpu_count()
    assert est.core_share(1, seconds=0.05, load=100 * cpus) <= cpus / (100 * cpus + 1)


def test_machine_key_names_host_cpu_and_cores():
    key = est.machine_key()
    assert set(key) == {"hostname", "cpu_model", "cores"} and key["cores"] >= 1
