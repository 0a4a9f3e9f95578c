"""QWYC Figure 1 drawn from one fit: the table holds every plotted point (the smaller GBTs one
row per size and variant), the figure draws each method as a curve, and the paper-vs-ours page
counts distinct fits, never splits that share one."""

import matplotlib
import pandas as pd

from ensemble_repro.papers.qwyc import cells, report

matplotlib.use("Agg")

SIZES = [5, 10, 20, 30, 40]


def _points(rates):
    """Sweep points of splits that chose ``rates`` (train_full: one fit per rate)."""
    rows = []
    for split, lr in enumerate(rates):
        for method, values in (("qwyc_joint", [0.0, 0.01]), ("fan_individual_mse", [0, 1, 3])):
            for i, v in enumerate(values):
                rows.append(
                    {
                        "dataset": "adult",
                        "split": split,
                        "method": method,
                        "label": cells.LABELS[method],
                        "param": "alpha",
                        "value": float(v),
                        "fit_on": "train_full",
                        "learning_rate": lr,
                        "test_mean_evaluated": 10.0 + 5 * i + 100 * lr,
                        "test_differences_pct": 1.0 - 0.3 * i,
                        "test_accuracy": 0.85,
                        "full_test_accuracy": 0.86,
                    }
                )
    return pd.DataFrame(rows)


def _smaller(rates):
    return pd.DataFrame(
        [
            {
                "dataset": "adult",
                "split": split,
                "method": method,
                "label": cells.LABELS[method],
                "n_trees": t,
                "learning_rate": lr if method == "smaller_same_lr" else 0.1,
                "test_mean_evaluated": float(t),
                "test_accuracy": 0.8 + t / 1000,
                "test_differences_pct": 10.0 / t,
            }
            for split, lr in enumerate(rates)
            for method in ("smaller_same_lr", "smaller_tuned_lr")
            for t in SIZES
        ]
    )


def test_figure_table_is_one_fit_with_a_row_per_size_and_variant():
    rates = [0.05, 0.1, 0.1]  # two carve-outs chose 0.1: the main fit is split 1's
    table = cells.figure_table(_points(rates), _smaller(rates))
    assert set(table["split"]) == {1}
    assert set(table.loc[table.method == "qwyc_joint", "learning_rate"]) == {0.1}
    for variant in ("smaller_same_lr", "smaller_tuned_lr"):
        sizes = table.loc[table.method == variant, "value"].tolist()
        assert sorted(sizes) == SIZES  # one row per size: every plotted point
    assert (table.loc[table.method.str.startswith("smaller"), "param"] == "n_trees").all()


def test_plot_figure1_draws_every_method_as_a_curve_with_a_legend(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    drawn = {}
    monkeypatch.setattr(
        "ensemble_repro.plotting.save_figure", lambda fig, pdf, png: drawn.setdefault("fig", fig)
    )
    rates = [0.05, 0.1, 0.1]
    table = cells.figure_table(_points(rates), _smaller(rates))
    report.plot_figure1(table, "adult", tmp_path / "f.pdf", tmp_path / "f.png")
    fig = drawn["fig"]
    left, right = fig.axes[:2]
    curves = {line.get_label(): len(line.get_xdata()) for line in right.get_lines()}
    assert curves["smaller GBT (lr 0.1, sizes 5-40)"] == len(SIZES)
    assert curves["smaller GBT (lr validated per size, sizes 5-40)"] == len(SIZES)
    assert curves["QWYC*"] == 2 and curves["Fan*"] == 3
    legend = [t.get_text() for t in right.get_legend().get_texts()]
    assert set(curves) | {"full ensemble (accuracy)"} == set(legend)
    title = fig._suptitle.get_text()
    assert "Figure 1 (Experiment 1)" in title and "learning rate 0.1" in title
    assert left.get_xlabel() and left.get_ylabel() and right.get_ylabel()
    plt.close(fig)


def test_paper_vs_ours_counts_one_fit_not_the_splits_that_share_it():
    rates = [0.1, 0.1, 0.1, 0.1, 0.1]  # five carve-outs, one train_full fit
    q = {"gbt": {"n_estimators": 40}, "timing": {"target_differences": [0.005]}}
    points = _points(rates)
    timing = pd.DataFrame(columns=["dataset", "split", "method", "target_differences_pct"])
    table = report.paper_vs_ours(points, _smaller(rates), timing, q)
    text = " ".join(table["ours"])
    assert "(one fit)" in text and "n = 5" not in text
    assert "1 of 1 fits reach it" in text or "0 of 1 fits reach it" in text
    carve = points.assign(fit_on="train")  # carve-out fits: five distinct fits
    text = " ".join(report.paper_vs_ours(carve, _smaller(rates), timing, q)["ours"])
    assert "(n = 5 carve-outs)" in text
