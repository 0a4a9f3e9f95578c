"""A damaged result file is named, with the fix, wherever it is read back."""

import pandas as pd
import pytest
from workflow_helpers import smoke_config

from ensemble_repro.data import recipes
from ensemble_repro.io import UnreadableFileError, read_parquet, write_parquet
from ensemble_repro.papers.jab import report as jab_report
from ensemble_repro.papers.knapsack import cells as knapsack
from ensemble_repro.papers.qwyc import cells as qwyc
from ensemble_repro.papers.qwyc import claims as qwyc_claims


@pytest.fixture
def cells(tmp_path):
    df = pd.DataFrame({"dataset": ["blog"] * 3, "trial": [0, 1, 2], "width": [1.0, 2.0, 3.0]})
    good, bad = tmp_path / "good.parquet", tmp_path / "cut.parquet"
    write_parquet(df, good)
    write_parquet(df, bad)
    bad.write_bytes(bad.read_bytes()[: bad.stat().st_size // 2])  # cut short
    return df, good, bad


def test_read_parquet_names_a_truncated_file(cells):
    df, good, bad = cells
    pd.testing.assert_frame_equal(read_parquet(good), df)
    with pytest.raises(UnreadableFileError) as err:
        read_parquet(bad)
    msg = str(err.value)
    assert msg.startswith(f"cannot read {bad}: it is not a complete Parquet file")
    assert f"`rm {bad}`" in msg and "the workflow rebuilds it" in msg
    with pytest.raises(FileNotFoundError):
        read_parquet(bad.with_name("missing.parquet"))


def test_collector_names_the_truncated_cell(cells):
    _, good, bad = cells
    with pytest.raises(UnreadableFileError, match=rf"cannot read {bad}"):
        jab_report._read_all([good, bad])


def test_prepared_data_names_the_truncated_file(cells, tmp_path):
    _, _, bad = cells
    (tmp_path / "data").mkdir()
    bad.rename(tmp_path / "data" / "blog.parquet")
    with pytest.raises(UnreadableFileError, match=r"cannot read .*data/blog.parquet"):
        recipes.load("blog", results_dir=str(tmp_path))


def test_qwyc_model_job_names_the_truncated_prepared_table(cells):
    _, good, bad = cells
    q = smoke_config()["qwyc"]
    with pytest.raises(UnreadableFileError, match=rf"cannot read {bad}: .*`rm {bad}`"):
        qwyc.model_job("adult", q, 0, {"adult_train": bad, "adult_test": good})


def test_knapsack_selection_names_the_truncated_votes(cells, tmp_path):
    _, _, bad = cells
    pool = tmp_path / "pool.csv"
    pd.DataFrame({"member": ["a", "b", "c"], "p": [0.7, 0.8, 0.9], "flops": [1, 2, 3]}).to_csv(
        pool, index=False
    )
    cfg = smoke_config()["knapsack"]
    with pytest.raises(UnreadableFileError, match=rf"cannot read {bad}: .*`rm {bad}`"):
        knapsack.select_pool("sonar", cfg, 0, pool_path=pool, votes_path=bad)


def test_qwyc_claims_name_the_truncated_rows_table(cells, tmp_path):
    _, _, bad = cells
    with pytest.raises(UnreadableFileError, match=rf"cannot read {bad}: .*`rm {bad}`"):
        qwyc_claims.write_claims(
            [bad], [], [], [], [], [], tmp_path / "c.csv", qwyc_cfg={}, scale="smoke"
        )
