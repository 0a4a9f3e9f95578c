"""Machine calibration of the cost estimate (ensemble_repro.cost.machine): kernel times are
cached per machine and reused, a new machine is measured, and the factors scale the unit
costs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from workflow_helpers import REPO, SNAKEFILE

from ensemble_repro import estimate as est
from ensemble_repro.cost import machine as mc
from ensemble_repro.cost.dag import config_jobs
from ensemble_repro.cost.units import UnitCosts, at_reference, unit_family

KEY = {"hostname": "box", "cpu_model": "Some CPU", "cores": 2}


class FakeMeasure:
    """Kernel times ``factor`` x the shipped reference, counting its calls (nothing is timed)."""

    def __init__(self, factor: float):
        self.factor, self.calls = factor, 0

    def __call__(self, families):
        self.calls += 1
        ref = UnitCosts().reference_kernels()
        return {f: ref[f] * self.factor for f in families}


def test_cached_calibration_is_reused(tmp_path):
    measure = FakeMeasure(2.0)
    first = mc.machine_calibration(tmp_path, key=KEY, measure=measure)
    second = mc.machine_calibration(tmp_path, key=KEY, measure=measure)
    assert measure.calls == 1
    assert second.kernels == first.kernels and second.path == first.path
    assert json.loads(first.path.read_text())["key"] == KEY


def test_another_machine_or_refresh_measures_again(tmp_path):
    measure = FakeMeasure(2.0)
    mc.machine_calibration(tmp_path, key=KEY, measure=measure)
    other = mc.machine_calibration(tmp_path, key={**KEY, "cores": 4}, measure=FakeMeasure(3.0))
    assert other.factors(UnitCosts().reference_kernels())["rf"] == pytest.approx(3.0)
    # the first machine's calibration is still there
    again = mc.machine_calibration(tmp_path, key=KEY, measure=measure)
    assert measure.calls == 1
    assert again.factors(UnitCosts().reference_kernels())["rf"] == pytest.approx(2.0)
    mc.machine_calibration(tmp_path, key=KEY, measure=measure, refresh=True)
    assert measure.calls == 2


def test_unreadable_cache_is_measured_again(tmp_path):
    measure = FakeMeasure(1.0)
    cal = mc.machine_calibration(tmp_path, key=KEY, measure=measure)
    cal.path.write_text("{not json")
    mc.machine_calibration(tmp_path, key=KEY, measure=measure)
    assert measure.calls == 2


@pytest.fixture(scope="module")
def smoke():
    """The jobs and config of the smoke config."""
    return config_jobs(REPO / "config" / "smoke.yaml", snakefile=SNAKEFILE)


def test_slower_machine_doubles_the_cpu_time(tmp_path, smoke):
    """A machine whose kernels take twice as long doubles every CPU cost of the estimate."""
    reference = est.estimate(*smoke, cores=2)
    units, cal = mc.machine_units(cache_dir=tmp_path, measure=FakeMeasure(2.0))
    assert all(f == pytest.approx(2.0) for f in cal.factors(units.reference_kernels()).values())
    slower = est.estimate(*smoke, cores=2, units=units)
    for a, b in zip(reference, slower, strict=True):
        assert b.jobs == a.jobs
        assert b.cpu_hours == pytest.approx(2 * a.cpu_hours)
        assert b.wall_hours == pytest.approx(2 * a.wall_hours)


def test_one_family_scales_only_its_units(tmp_path):
    units = UnitCosts()
    factors = dict.fromkeys(mc.KERNEL_FAMILIES, 1.0) | {"nn": 3.0}
    scaled = units.scaled(factors, mc.UNIT_FAMILIES)
    assert scaled.get("jab_predict", "blog/nn") == pytest.approx(
        3 * units.get("jab_predict", "blog/nn")
    )
    assert scaled.get("jab_predict", "blog/rf") == units.get("jab_predict", "blog/rf")
    assert scaled.get("rows", "blog") == units.get("rows", "blog")  # a count, not a cost
    assert scaled.factor("jab_main_cell") == units.factor("jab_main_cell")


def test_units_measured_elsewhere_are_stored_at_the_reference_speed():
    """Re-measuring some units on another machine (calibrate_costs.py --only) stores them so
    that scaling back to that machine gives what was measured there."""
    units = UnitCosts()
    factors = dict.fromkeys(mc.KERNEL_FAMILIES, 1.0) | {"nn": 0.8, "rf": 1.25}
    there = [
        (unit, key, size, cpu * factors[unit_family(unit, key, mc.UNIT_FAMILIES) or "start"])
        for (unit, key), pts in units.rows.items()
        if unit in ("jab_fit", "jab_predict", "rows")
        for size, cpu in pts
    ]
    stored = at_reference(there, factors, mc.UNIT_FAMILIES)
    assert [(u, k, s) for u, k, s, _ in stored] == [(u, k, s) for u, k, s, _ in there]
    for (unit, key, size, cpu), (*_, measured) in zip(stored, there, strict=True):
        assert cpu == pytest.approx(units.at(unit, key, size))
        assert units.scaled(factors, mc.UNIT_FAMILIES).at(unit, key, size) == pytest.approx(
            measured
        )
    with pytest.raises(KeyError, match="'gbt' of unit 'qwyc_gbt'"):
        at_reference([("qwyc_gbt", "adult", 0, 1.0)], {"nn": 1.0}, mc.UNIT_FAMILIES)


def test_load_share_divides_the_local_wall_time(smoke):
    full = est.estimate(*smoke, cores=2)[-1]
    half = est.estimate(*smoke, cores=2, share=0.5)[-1]
    assert half.cpu_hours == pytest.approx(full.cpu_hours)
    assert half.wall_hours == pytest.approx(2 * full.wall_hours)


def test_every_unit_cost_has_a_family_and_every_family_a_reference():
    units = UnitCosts()
    for unit, key in units.rows:
        family = unit_family(unit, key, mc.UNIT_FAMILIES)
        assert family is None or family in mc.KERNEL_FAMILIES, (unit, key)
    assert set(units.reference_kernels()) == set(mc.KERNEL_FAMILIES)
    with pytest.raises(ValueError, match="'made_up'.*UNIT_FAMILIES of its paper's cost_units"):
        unit_family("made_up", "x", mc.UNIT_FAMILIES)


def test_reference_without_a_kernel_is_named(tmp_path):
    cal = mc.machine_calibration(tmp_path, key=KEY, measure=FakeMeasure(1.0))
    ref = UnitCosts().reference_kernels()
    del ref["gbt"]
    with pytest.raises(KeyError, match=r"\['gbt'\].*calibrate_costs.py --only kernels"):
        cal.factors(ref)


def test_kernels_and_load_probe_return_positive_numbers():
    """What the measurements return (not how fast: speed targets live in benchmarks/)."""
    times = mc.time_kernels(["ridge", "numeric"], repeats=1)
    assert set(times) == {"ridge", "numeric"} and all(t > 0 for t in times.values())
    assert 0 < mc.core_share(1, seconds=0.1) <= 1


def _fake_proc(root, threads, autogroup="0"):
    """A /proc holding ``threads`` ((pid, tid) -> (command, state, nice))."""
    (root / "sys/kernel").mkdir(parents=True)
    (root / "sys/kernel/sched_autogroup_enabled").write_text(autogroup + "\n")
    for (pid, tid), (comm, state, nice) in threads.items():
        task = root / str(pid) / "task" / str(tid)
        task.mkdir(parents=True)
        fields = [state, 1, 1, 1, 0, -1, 0, 0, 0, 0, 0, 7, 3, 0, 0, 20 + nice, nice]
        (task / "stat").write_text(f"{tid} ({comm}) {' '.join(map(str, fields))} 1 0\n")
    (root / "self").mkdir()  # not a pid: skipped


def test_niced_runnable_threads_are_read_from_the_process_table(tmp_path):
    own = os.nice(0)
    threads = {
        (101, 101): ("snakemake (record)", "R", own + 19),  # niced and runnable: counted
        (101, 102): ("snakemake (record)", "R", own + 19),  # its second thread too
        (101, 103): ("snakemake (record)", "S", own + 19),  # sleeping
        (102, 102): ("python", "R", own),  # the run's own priority: its competition
        (103, 103): ("make", "R", own + 5),
    }
    _fake_proc(tmp_path, threads)
    assert mc.niced_runnable(tmp_path) == 3
    # with autogroup scheduling, nice does not reach across sessions: nothing gives way
    other = tmp_path / "autogroup"
    _fake_proc(other, threads, autogroup="1")
    assert mc.niced_runnable(other) == 0


def test_niced_work_leaves_the_queue():
    """A load made of niced work that used the cores does not shrink the share; the same load
    at the run's own priority does."""
    cpus = os.cpu_count()
    busy = 100.0 * cpus
    assert mc.core_share(1, seconds=0.05, load=busy, niced=0.0) <= cpus / (busy + 1)
    assert mc.core_share(1, seconds=0.05, load=busy, niced=busy) > cpus / (busy + 1)


def test_cached_calibration_reads_the_cache_and_never_measures(tmp_path):
    assert mc.cached_calibration(tmp_path, key=KEY) is None
    assert not list(tmp_path.iterdir())  # nothing measured, nothing written
    cal = mc.machine_calibration(tmp_path, key=KEY, measure=FakeMeasure(1.0))
    assert mc.cached_calibration(tmp_path, key=KEY).kernels == cal.kernels


def test_machine_key_names_host_cpu_and_cores():
    key = mc.machine_key()
    assert set(key) == {"hostname", "cpu_model", "cores"} and key["cores"] >= 1


@pytest.mark.parametrize("value", ["fast", None, 0, -2.0, True])
def test_a_bad_cached_kernel_time_names_the_cache_file(tmp_path, value):
    """A kernel time that is not a positive number of seconds (text, null, zero, negative)
    is named with its file and the fix, never divided into a TypeError or a "~-2 s" estimate."""
    cal = mc.machine_calibration(tmp_path, key=KEY, measure=FakeMeasure(1.0))
    family = mc.KERNEL_FAMILIES[0]
    data = json.loads(cal.path.read_text())
    data["kernels"][family] = value
    cal.path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as info:
        mc.machine_calibration(tmp_path, key=KEY, measure=FakeMeasure(1.0))
    assert str(info.value) == (
        f"the machine-calibration cache {cal.path} holds kernels.{family} = "
        f"{json.dumps(value)}, not a positive number of CPU seconds: delete the file (the "
        "machine is then timed again, well under a minute)"
    )
