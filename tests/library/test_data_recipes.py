"""Every recipe on the real mirror: shapes, targets checked against the raw text, dtypes, no NaN."""

import gzip
import json
import math

import numpy as np
import pytest

from ensemble_repro.data import DATASETS, DataError, fetch_raw, load, prepare, prepared_names_for
from ensemble_repro.data.catalog import raw_files_for
from ensemble_repro.data.preflight import DataPlan

NAMES = [n for n in DATASETS if n != "meps"]
REGRESSION = {"communities", "blog"}


@pytest.fixture(scope="session")
def prepared(mirror, tmp_path_factory):
    """Fetch every raw file from the mirror and prepare every data set once per session."""
    root = tmp_path_factory.mktemp("prepared")
    cfg = {
        "mirror": str(mirror),
        "sources": ["mirror"],
        "base_url": None,
        "timeout_seconds": 5,
        "retries": 1,
        "require_all": False,
    }
    for name in NAMES:
        paths = DataPlan.raw_paths(name, str(root / "raw"))
        for p in paths:
            if not (root / p).exists():
                group, filename = p.split("/")[-2:]
                fetch_raw(group, filename, cfg, p)
        prepare(
            name,
            paths,
            root / "results" / "data" / f"{name}.parquet",
            root / "results" / "data" / f"{name}.json",
        )
    return root


def _lines(mirror, rel):
    return gzip.decompress((mirror / f"{rel}.gz").read_bytes()).decode("latin-1").splitlines()


@pytest.mark.parametrize("name", NAMES)
def test_shape_dtypes_no_nan_and_sidecar(prepared, name):
    X, y = load(name, prepared / "results")
    ds = DATASETS[name]
    assert X.shape == (ds.n_rows, ds.n_features)
    assert y.name == "target" and len(y) == ds.n_rows
    assert not X.isna().any().any() and not y.isna().any()
    assert set(X.dtypes.astype(str)) <= {"float64", "int64"}
    assert str(y.dtype) == ("float64" if name in REGRESSION else "int64")
    if name not in REGRESSION:
        assert set(y.unique()) == {0, 1}
    meta = json.loads((prepared / "results" / "data" / f"{name}.json").read_text())
    assert meta["name"] == name and meta["shape"] == [ds.n_rows, ds.n_features]
    assert meta["feature_names"] == list(X.columns)
    assert meta["sources"] == {r.filename: r.sha256 for r in raw_files_for(name)}


def test_communities_columns_and_target_from_raw_text(prepared, mirror):
    X, y = load("communities", prepared / "results")
    names = [
        ln.split()[1]
        for ln in _lines(mirror, "communities_and_crime/communities.names")
        if ln.startswith("@attribute")
    ]
    rows = [ln.split(",") for ln in _lines(mirror, "communities_and_crime/communities.data")]
    with_q = {j for r in rows for j, v in enumerate(r) if v == "?"}
    kept = [j for j in range(5, 127) if j not in with_q]
    assert list(X.columns) == [names[j] for j in kept]
    assert "OtherPerCap" not in X.columns  # the single '?' in OtherPerCap drops that column
    for i in (0, 17, 1993):
        assert y[i] == float(rows[i][127])
        assert X.iloc[i].tolist() == [float(rows[i][j]) for j in kept]


def test_blog_target_is_log1p_of_last_column(prepared, mirror):
    X, y = load("blog", prepared / "results")
    lines = _lines(mirror, "blogfeedback/blogData_train.csv")
    for i in (0, 1, 4242, 52396):
        fields = [float(v) for v in lines[i].split(",")]
        assert y[i] == pytest.approx(math.log(1.0 + fields[280]), rel=1e-15, abs=0)
        assert X.iloc[i].tolist() == fields[:280]
    assert y.max() == pytest.approx(math.log(1 + max(float(ln.rsplit(",", 1)[1]) for ln in lines)))


def test_adult_codes_labels_and_shared_categories(prepared, mirror):
    Xtr, ytr = load("adult_train", prepared / "results")
    Xte, yte = load("adult_test", prepared / "results")
    train = [ln.split(", ") for ln in _lines(mirror, "adult/adult.data") if ln]
    test = [ln.split(", ") for ln in _lines(mirror, "adult/adult.test")[1:] if ln]
    assert ytr.tolist() == [int(r[14] == ">50K") for r in train]
    assert yte.tolist() == [int(r[14] == ">50K.") for r in test]
    meta_tr = json.loads((prepared / "results" / "data" / "adult_train.json").read_text())
    meta_te = json.loads((prepared / "results" / "data" / "adult_test.json").read_text())
    assert meta_tr["categories"] == meta_te["categories"]
    cats = meta_tr["categories"]["native-country"]
    assert "Holand-Netherlands" in cats and cats == sorted(cats)  # only in adult.data
    for X, rows in ((Xtr, train), (Xte, test)):
        for i in (0, 1, 27, len(rows) - 1):
            for j, col in ((1, "workclass"), (13, "native-country")):
                expected = -1 if rows[i][j] == "?" else meta_tr["categories"][col].index(rows[i][j])
                assert X[col][i] == expected
            assert X["age"][i] == float(rows[i][0])
        assert (X["workclass"] == -1).sum() == sum(r[1] == "?" for r in rows)


def test_nomao_labels_and_first_row(prepared, mirror):
    X, y = load("nomao", prepared / "results")
    lines = _lines(mirror, "nomao/nomao.arff")
    data = lines[lines.index("@data") + 1 :]
    first = data[0].split(",")
    assert X.iloc[0].tolist() == [float(v) for v in first[:118]]
    assert y[0] == int(first[118]) - 1
    assert int(y.sum()) == 24621 and int((y == 0).sum()) == 9844
    assert str(X["V7"].dtype) == "int64" and str(X["V1"].dtype) == "float64"


@pytest.mark.parametrize(
    "name, rel, label_col, positive, count",
    [
        ("wdbc", "uci_binary/wdbc.data", 1, "M", 212),
        ("ionosphere", "uci_binary/ionosphere.data", 34, "g", 225),
        ("sonar", "uci_binary/sonar.all-data", 60, "M", 111),
        ("spambase", "uci_binary/spambase.data", 57, "1", 1813),
        ("banknote", "uci_binary/data_banknote_authentication.txt", 4, "1", 610),
    ],
)
def test_uci_labels_and_rows_from_raw_text(prepared, mirror, name, rel, label_col, positive, count):
    X, y = load(name, prepared / "results")
    rows = [ln.split(",") for ln in _lines(mirror, rel) if ln]
    assert int(y.sum()) == count
    assert y.tolist() == [int(r[label_col] == positive) for r in rows]
    first = 2 if name == "wdbc" else 0
    for i in (0, len(rows) // 2, len(rows) - 1):
        assert X.iloc[i].tolist() == [float(v) for v in rows[i][first : first + X.shape[1]]]


def test_spambase_and_wdbc_feature_names(prepared):
    assert list(load("spambase", prepared / "results")[0].columns[[0, 48, 56]]) == [
        "word_freq_make",
        "char_freq_;",
        "capital_run_length_total",
    ]
    assert list(load("wdbc", prepared / "results")[0].columns[[0, 10, 29]]) == [
        "radius_mean",
        "radius_se",
        "fractal_dimension_worst",
    ]


def test_german_codes_and_label(prepared, mirror):
    X, y = load("german", prepared / "results")
    rows = [ln.split() for ln in _lines(mirror, "uci_binary/german.data") if ln]
    assert y.tolist() == [int(r[20] == "2") for r in rows]  # 1 = bad
    assert X.iloc[0].tolist() == [1, 6, 4, 3, 1169, 5, 5, 4, 3, 1, 4, 1, 67, 3, 2, 2, 3, 1, 2, 1]
    assert rows[0][:4] == ["A11", "6", "A34", "A43"]
    assert X["purpose"].max() == 10  # A410
    assert str(X["duration"].dtype) == "float64" and str(X["purpose"].dtype) == "int64"


def test_prepared_names_for():
    assert prepared_names_for(["communities", "adult", "nomao", "adult", "wdbc"]) == [
        "communities",
        "adult_train",
        "adult_test",
        "nomao",
        "wdbc",
    ]
    with pytest.raises(DataError, match="unknown data set 'boston'.*adult"):
        prepared_names_for(["boston"])


def test_load_missing_says_how_to_make_it(tmp_path):
    with pytest.raises(DataError, match=r"sonar\.parquet does not exist.*snakemake --cores 1 data"):
        load("sonar", tmp_path)


def test_prepare_rejects_a_corrupt_raw_file(prepared, tmp_path):
    bad = tmp_path / "sonar.all-data"
    data = bytearray((prepared / "raw" / "uci_binary" / "sonar.all-data").read_bytes())
    data[100] ^= 1
    bad.write_bytes(bytes(data))
    with pytest.raises(
        DataError, match="sonar.all-data is corrupt: sha256 [0-9a-f]{64}, expected e90434"
    ):
        prepare("sonar", [bad], tmp_path / "sonar.parquet", tmp_path / "sonar.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sonar.all-data"]
    assert np.isfinite(load("sonar", prepared / "results")[0].to_numpy()).all()
