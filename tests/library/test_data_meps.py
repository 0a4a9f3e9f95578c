"""The MEPS recipe on a small SAS XPORT file written here (pandas can read XPORT, not write it)."""

import gzip
import math
import struct
import zipfile

import numpy as np
import pandas as pd
import pytest

from ensemble_repro.data import DataError, fetch_raw, prepare
from ensemble_repro.data.recipes import MEPS_CATEGORICAL, MEPS_QUANTITATIVE, MEPS_UTILISATION, meps

DATE = b"01JAN16:00:00:00"


def _ibm_double(x: float) -> bytes:
    """IBM System/360 double: sign, base-16 exponent biased by 64, 56-bit fraction."""
    if x == 0:
        return bytes(8)
    sign, x, exp = (0x80 if x < 0 else 0), abs(float(x)), 64
    while x >= 1:
        x, exp = x / 16, exp + 1
    while x < 1 / 16:
        x, exp = x * 16, exp - 1
    return bytes([sign | exp]) + int(round(x * 2**56)).to_bytes(7, "big")


def write_xport(path, df: pd.DataFrame) -> None:
    """A minimal SAS XPORT v5 file: one member, numeric variables only."""

    def pad(b: bytes, fill=b" ") -> bytes:
        return b + fill * (-len(b) % 80)

    out = [
        b"HEADER RECORD*******LIBRARY HEADER RECORD!!!!!!!000000000000000000000000000000  ",
        b"SAS     SAS     SASLIB  9.4     X64_7PRO" + b" " * 24 + DATE,
        DATE + b" " * 64,
        b"HEADER RECORD*******MEMBER  HEADER RECORD!!!!!!!000000000000000001600000000140  ",
        b"HEADER RECORD*******DSCRPTR HEADER RECORD!!!!!!!000000000000000000000000000000  ",
        b"SAS     H192    SASDATA 9.4     X64_7PRO" + b" " * 24 + DATE,
        DATE + b" " * 16 + b"MEPS TEST".ljust(40) + b" " * 8,
        b"HEADER RECORD*******NAMESTR HEADER RECORD!!!!!!!000000"
        + f"{df.shape[1]:04d}".encode()
        + b"0" * 20
        + b"  ",
    ]
    names = b"".join(
        struct.pack(
            ">hhhh8s40s8shhh2s8shhl52s",
            1,
            0,
            8,
            i + 1,
            c.encode().ljust(8),
            b" " * 40,
            b" " * 8,
            0,
            0,
            0,
            b"  ",
            b" " * 8,
            0,
            0,
            8 * i,
            bytes(52),
        )
        for i, c in enumerate(df.columns)
    )
    out.append(pad(names))
    out.append(b"HEADER RECORD*******OBS     HEADER RECORD!!!!!!!000000000000000000000000000000  ")
    out.append(pad(b"".join(_ibm_double(v) for v in df.to_numpy().ravel())))
    with open(path, "wb") as fh:
        fh.write(b"".join(out))


def _person(**overrides):
    """A valid person: utilisation 1 each, categoricals 1, quantitative covariates 2."""
    row = {v: 1 for v in MEPS_UTILISATION} | {v: 1 for v in MEPS_CATEGORICAL}
    row |= {v: 2 for v in MEPS_QUANTITATIVE} | {"PANEL": 20, "PERWT16F": 1234.5}
    return row | overrides


PEOPLE = [
    _person(OBTOTV16=3, RXTOT16=10, AGE53X=-1, REGION53=4, RACEV2X=12),  # kept, AGE -1 -> 0
    _person(ERTOT16=-1),  # negative utilisation
    _person(REGION53=-8),  # categorical < -1
    _person(EDUCYR=-7),  # quantitative < -1
    _person(REGION53=-1, FAMINC16=-1, NOINSTM=-1, IPDIS16=0, MARRY53X=-1),  # kept, -1s
    _person(REGION53=2, AGE53X=85, FAMINC16=54321, OBTOTV16=0, RACEV2X=1),  # kept
    _person(OBCHIR16=-9, REGION53=3),  # negative utilisation
]


@pytest.fixture(scope="module")
def ssp(tmp_path_factory):
    path = tmp_path_factory.mktemp("meps") / "h192.ssp"
    cols = ["PANEL"] + MEPS_QUANTITATIVE[::-1] + MEPS_CATEGORICAL + ["PERWT16F"] + MEPS_UTILISATION
    write_xport(path, pd.DataFrame(PEOPLE)[cols].astype(np.float64))
    return path


def test_writer_roundtrips_through_pandas(ssp):
    back = pd.read_sas(ssp, format="xport")
    assert back.shape == (7, 46)
    assert back["PERWT16F"].tolist() == [1234.5] * 7
    assert back["FAMINC16"].tolist() == [2, 2, 2, 2, -1, 54321, 2]


def test_recipe_rows_recoding_columns_and_target(ssp):
    t = meps(ssp, chunksize=3)  # chunks straddle the dropped rows
    kept = [PEOPLE[i] for i in (0, 4, 5)]
    expected_cols = MEPS_QUANTITATIVE + [
        "REGION53_-1",
        "REGION53_2",
        "REGION53_4",
        "RACEV2X_1",
        "RACEV2X_12",
    ]
    for var in MEPS_CATEGORICAL[2:]:
        expected_cols += [f"{var}_-1", f"{var}_1"] if var == "MARRY53X" else [f"{var}_1"]
    assert list(t.X.columns) == expected_cols
    assert t.X.shape == (3, 7 + 3 + 2 + 18)
    assert t.X["AGE53X"].tolist() == [0.0, 2.0, 85.0]
    assert t.X["FAMINC16"].tolist() == [2.0, 0.0, 54321.0]
    assert t.X["NOINSTM"].tolist() == [2.0, 0.0, 2.0]
    assert t.X["REGION53_-1"].tolist() == [0.0, 1.0, 0.0]
    assert t.X["REGION53_4"].tolist() == [1.0, 0.0, 0.0]
    assert t.X["RACEV2X_12"].tolist() == [1.0, 0.0, 0.0]
    assert t.X["MARRY53X_-1"].tolist() == [0.0, 1.0, 0.0]
    assert t.X["HISPANX_1"].tolist() == [1.0, 1.0, 1.0]
    sums = [sum(p[v] for v in MEPS_UTILISATION) for p in kept]
    assert sums == [3 + 16 + 10, 17, 17]
    assert t.y.tolist() == pytest.approx([math.log1p(s) for s in sums], rel=1e-15)
    assert set(t.X.dtypes.astype(str)) == {"float64"}


def test_prepare_checks_the_shape_of_the_real_file(ssp, tmp_path):
    with pytest.raises(DataError, match=r"meps recipe gave 3 x 30 .*expected 33005 x 107"):
        prepare("meps", [ssp], tmp_path / "meps.parquet", tmp_path / "meps.json")
    assert not list(tmp_path.iterdir())


def test_missing_variable_is_reported(tmp_path):
    path = tmp_path / "h192.ssp"
    write_xport(path, pd.DataFrame(PEOPLE).drop(columns="WRGLAS42").astype(np.float64))
    with pytest.raises(DataError, match=r"lacks the MEPS variables \['WRGLAS42'\]"):
        meps(path)


def test_non_integer_values_are_rejected(tmp_path):
    path = tmp_path / "h192.ssp"
    write_xport(path, pd.DataFrame([_person(EDUCYR=12.5)]).astype(np.float64))
    with pytest.raises(DataError, match="not integers"):
        meps(path)


@pytest.mark.parametrize("layout", ["h192ssp.zip", "h192.ssp.gz", "h192.ssp"])
def test_meps_is_fetched_from_any_mirror_layout(ssp, tmp_path, layout):
    d = tmp_path / "mirror" / "meps_2016"
    d.mkdir(parents=True)
    if layout.endswith(".zip"):
        with zipfile.ZipFile(d / layout, "w") as zf:
            zf.write(ssp, "H192.SSP")  # member names are matched case-insensitively
    else:
        (d / layout).write_bytes(
            gzip.compress(ssp.read_bytes()) if layout.endswith(".gz") else ssp.read_bytes()
        )
    out = tmp_path / "raw" / "meps_2016" / "h192.ssp"
    cfg = {
        "mirror": str(tmp_path / "mirror"),
        "sources": ["mirror"],
        "base_url": None,
        "timeout_seconds": 5,
        "retries": 1,
        "require_all": False,
    }
    assert fetch_raw("meps_2016", "h192.ssp", cfg, out).endswith(layout)
    assert out.read_bytes() == ssp.read_bytes()


def test_meps_that_is_not_xport_is_rejected(tmp_path):
    d = tmp_path / "mirror" / "meps_2016"
    d.mkdir(parents=True)
    (d / "h192.ssp").write_bytes(b"<html>AHRQ maintenance page</html>")
    cfg = {
        "mirror": str(tmp_path / "mirror"),
        "sources": ["mirror"],
        "base_url": None,
        "timeout_seconds": 5,
        "retries": 1,
        "require_all": False,
    }
    out = tmp_path / "raw" / "h192.ssp"
    with pytest.raises(DataError, match="did not give a SAS XPORT file"):
        fetch_raw("meps_2016", "h192.ssp", cfg, out)
    assert not list(out.parent.iterdir())
