"""Recipes: raw files -> (X, y), exactly as in the data mirror's README.md (docs/data.md).

Every recipe returns a :class:`Table`: features (named columns, float64 — int64 for categorical
codes), target, and the text that goes into the JSON sidecar. :func:`prepare` runs a recipe,
checks the raw checksums and the registered shape, and writes ``<name>.parquet`` (features,
then a final ``target`` column) and ``<name>.json``; :func:`load` reads them back.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import read_parquet, write_json, write_parquet
from .catalog import DATASETS, DataError, raw_files_for
from .fetch import sha256_file


@dataclass
class Table:
    X: pd.DataFrame
    y: pd.Series
    recipe: str
    target: str
    extra: dict = field(default_factory=dict)


def _read_csv(path, **kw) -> pd.DataFrame:
    return pd.read_csv(path, header=None, keep_default_na=False, **kw)


def _labels(values: pd.Series, mapping: dict, what: str) -> pd.Series:
    """Map class labels to {0, 1}; any other label is a DataError."""
    bad = sorted(set(values.unique()) - set(mapping))
    if bad:
        raise DataError(f"{what}: unexpected class labels {bad[:5]}; expected {sorted(mapping)}.")
    return values.map(mapping).astype(np.int64).rename("target")


def _numbered(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(1, n + 1)]


# --- Paper 1 (J+aB): regression --------------------------------------------------------------


def communities(data_path, names_path) -> Table:
    """Communities and Crime: drop 5 non-predictive columns, then every column with a '?'."""
    text = Path(names_path).read_text(encoding="latin-1")
    names = [ln.split()[1] for ln in text.splitlines() if ln.lower().startswith("@attribute")]
    if len(names) != 128:
        raise DataError(f"{names_path}: found {len(names)} @attribute lines, expected 128.")
    df = _read_csv(data_path, names=names, na_values=["?"])
    df = df.iloc[:, 5:]
    df = df.loc[:, ~df.isna().any()]
    if df.columns[-1] != "ViolentCrimesPerPop":
        raise DataError(
            f"{data_path}: last column is {df.columns[-1]}, expected ViolentCrimesPerPop."
        )
    y = df.pop("ViolentCrimesPerPop").astype(np.float64).rename("target")
    return Table(
        df.astype(np.float64),
        y,
        "communities.data with column names from the @attribute lines of communities.names; "
        "drop the first 5 columns (state, county, community, communityname, fold), then "
        "every column containing '?'; the last remaining column is the response.",
        "ViolentCrimesPerPop (per-capita violent crimes, normalised to [0, 1]), untransformed",
    )


def blog(train_path) -> Table:
    """BlogFeedback training file: X = the first 280 columns, y = ln(1 + column 281)."""
    df = _read_csv(train_path, dtype=np.float64)
    if df.shape[1] != 281:
        raise DataError(f"{train_path}: {df.shape[1]} columns, expected 281.")
    X = df.iloc[:, :280]
    X.columns = _numbered("V", 280)
    y = np.log1p(df.iloc[:, 280]).rename("target")
    return Table(
        X,
        y,
        "blogData_train.csv: features = columns 1..280 (named V1..V280).",
        "ln(1 + column 281), column 281 = number of comments in the next 24 hours",
    )


MEPS_UTILISATION = [
    "OBTOTV16",
    "OBCHIR16",
    "OBNURS16",
    "OBOPTO16",
    "OBASST16",
    "OBTHER16",
    "OPTOTV16",
    "AMCHIR16",
    "AMNURS16",
    "AMOPTO16",
    "AMASST16",
    "AMTHER16",
    "ERTOT16",
    "IPDIS16",
    "IPNGTD16",
    "DVTOT16",
    "HHTOTD16",
    "RXTOT16",
]
MEPS_CATEGORICAL = [
    "REGION53",
    "RACEV2X",
    "HISPANX",
    "MARRY53X",
    "ACTDTY53",
    "HONRDC53",
    "LANGSPK",
    "FILEDR16",
    "PREGNT53",
    "WLKLIM53",
    "WLKDIF53",
    "AIDHLP53",
    "SOCLIM53",
    "COGLIM53",
    "WRGLAS42",
    "EMPST53",
    "MORJOB53",
    "OCCCT53H",
    "INDCT53H",
]
MEPS_QUANTITATIVE = ["AGE53X", "EDUCYR", "HIDEG", "FAMINC16", "RTHLTH53", "MNHLTH53", "NOINSTM"]


def meps(ssp_path, chunksize: int = 5000) -> Table:
    """MEPS 2016 HC-192, both panels: the 7-step recipe of ../shared/data/README.md."""
    keep = MEPS_UTILISATION + MEPS_CATEGORICAL + MEPS_QUANTITATIVE
    parts = []
    with pd.read_sas(ssp_path, format="xport", chunksize=chunksize) as reader:
        for chunk in reader:
            chunk.columns = [str(c).upper() for c in chunk.columns]
            missing = [c for c in keep if c not in chunk.columns]
            if missing:
                raise DataError(
                    f"{ssp_path} lacks the MEPS variables {missing}: it is not the "
                    f"2016 full-year consolidated file HC-192."
                )
            parts.append(chunk[keep])
    raw = pd.concat(parts, ignore_index=True)
    values = raw.to_numpy(dtype=np.float64)
    # Step 2. Rounding is needed: pandas decodes an IBM-float zero (all bytes 0) as 16**-65.
    rounded = np.round(values)
    if np.isnan(values).any() or (np.abs(values - rounded) > 1e-9).any():
        raise DataError(f"{ssp_path}: some of the 44 MEPS variables are missing or not integers.")
    df = pd.DataFrame(rounded.astype(np.int64), columns=keep)
    util = df[MEPS_UTILISATION].to_numpy()
    cov = df[MEPS_CATEGORICAL + MEPS_QUANTITATIVE].to_numpy()
    keep_rows = (util >= 0).all(axis=1) & (cov >= -1).all(axis=1)  # steps 3 and 4
    df = df.loc[keep_rows].reset_index(drop=True)
    quant = df[MEPS_QUANTITATIVE].mask(df[MEPS_QUANTITATIVE] == -1, 0).astype(np.float64)  # step 5
    indicators = {}
    for var in MEPS_CATEGORICAL:  # step 6: every level present, ascending, no level dropped
        col = df[var].to_numpy()
        for level in np.unique(col):
            indicators[f"{var}_{level}"] = (col == level).astype(np.float64)
    X = pd.concat([quant, pd.DataFrame(indicators)], axis=1)
    y = pd.Series(np.log1p(df[MEPS_UTILISATION].sum(axis=1).to_numpy(np.float64)), name="target")
    return Table(
        X,
        y,
        "h192.ssp (MEPS HC-192, panels 20+21, no weights): keep 18 utilisation counts, 19 "
        "categorical and 7 quantitative covariates; drop persons with a negative utilisation "
        "or a covariate below -1; recode -1 to 0 in the quantitative covariates; one-hot "
        "encode the categoricals (columns VAR_level, every level present, ascending); "
        "columns = 7 quantitative covariates then the indicators in variable order.",
        "ln(1 + sum of the 18 utilisation counts)",
    )


# --- Paper 2 (QWYC): classification ----------------------------------------------------------

ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
]
ADULT_CATEGORICAL = [
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
]


def _adult_raw(path, skiprows: int) -> pd.DataFrame:
    df = _read_csv(
        path,
        names=ADULT_COLUMNS + ["income"],
        skipinitialspace=True,
        dtype=str,
        skiprows=skiprows,
        na_values=["?"],
    )
    return df.apply(lambda c: c.str.strip())


def adult(data_path, test_path, part: str) -> Table:
    """Adult, standard split; categoricals as integer codes of one category list for both parts."""
    if part not in ("train", "test"):
        raise ValueError(f"part must be 'train' or 'test', got {part!r}")
    train, test = _adult_raw(data_path, 0), _adult_raw(test_path, 1)  # skip the test banner line
    df = train if part == "train" else test
    categories = {
        c: sorted(set(train[c].dropna()) | set(test[c].dropna())) for c in ADULT_CATEGORICAL
    }
    X = pd.DataFrame(
        {
            c: (
                pd.Categorical(df[c], categories=categories[c]).codes.astype(np.int64)
                if c in categories
                else df[c].astype(np.float64)
            )
            for c in ADULT_COLUMNS
        }
    )
    y = _labels(df["income"].str.rstrip("."), {"<=50K": 0, ">50K": 1}, f"adult {part}")
    return Table(
        X,
        y,
        f"adult.{'data' if part == 'train' else 'test'} (banner line of adult.test skipped; "
        "fields stripped; trailing '.' of test labels removed). Categorical columns are "
        "integer codes into the sorted union of the values seen in adult.data and "
        "adult.test (see 'categories'); '?' (missing) is code -1. Numeric columns as is.",
        "1 if income >50K else 0",
        {"categories": categories, "missing_code": -1},
    )


def _arff(path) -> tuple[list[tuple[str, str]], pd.DataFrame]:
    """A dense ARFF file: (attribute name, type) pairs and the data as strings."""
    text = Path(path).read_text(encoding="utf-8")
    m = re.search(r"^@data\s*$", text, flags=re.IGNORECASE | re.MULTILINE)
    if not m:
        raise DataError(f"{path}: no @data line; not an ARFF file.")
    attrs = re.findall(
        r"^@attribute\s+('[^']*'|\S+)\s+(.+?)\s*$",
        text[: m.start()],
        flags=re.IGNORECASE | re.MULTILINE,
    )
    attrs = [(n.strip("'"), t) for n, t in attrs]
    data = _read_csv(
        io.StringIO(text[m.end() :]),
        names=[a for a, _ in attrs],
        dtype=str,
        comment="%",
        skip_blank_lines=True,
    )
    return attrs, data


def nomao(arff_path) -> Table:
    """Nomao (OpenML 1486): 118 features; nominal ones kept as integer values; Class 1/2 -> 0/1."""
    attrs, data = _arff(arff_path)
    if (data == "?").any().any():
        raise DataError(f"{arff_path}: has missing values ('?'); expected none.")
    cols = {}
    for name, kind in attrs[:-1]:
        if kind.startswith("{"):
            levels = [v.strip() for v in kind.strip("{}").split(",")]
            if not data[name].isin(levels).all():
                raise DataError(f"{arff_path}: {name} has values outside {kind}.")
            cols[name] = data[name].astype(np.int64)
        else:
            cols[name] = data[name].astype(np.float64)
    X = pd.DataFrame(cols)
    y = _labels(data[attrs[-1][0]], {"1": 0, "2": 1}, "nomao Class")
    return Table(
        X,
        y,
        "nomao.arff (OpenML 1486): features V1..V118 as given (nominal {1,2} and "
        "{1,2,3} attributes keep their integer values).",
        "Class - 1, i.e. 0 for Class 1 (9844 rows) and 1 for Class 2 (24621 rows)",
    )


# --- Paper 3 (knapsack): UCI binary classification -------------------------------------------

WDBC_FEATURES = [
    "radius",
    "texture",
    "perimeter",
    "area",
    "smoothness",
    "compactness",
    "concavity",
    "concave_points",
    "symmetry",
    "fractal_dimension",
]


def wdbc(path) -> Table:
    df = _read_csv(path)
    X = df.iloc[:, 2:].astype(np.float64)
    X.columns = [f"{f}_{s}" for s in ("mean", "se", "worst") for f in WDBC_FEATURES]
    return Table(
        X,
        _labels(df[1], {"M": 1, "B": 0}, "wdbc diagnosis"),
        "wdbc.data: drop the id column; 30 features (10 nucleus measures x mean, se, worst).",
        "1 = malignant (M), 0 = benign (B)",
    )


def ionosphere(path) -> Table:
    df = _read_csv(path)
    X = df.iloc[:, :34].astype(np.float64)
    X.columns = _numbered("V", 34)
    return Table(
        X,
        _labels(df[34], {"g": 1, "b": 0}, "ionosphere label"),
        "ionosphere.data: 34 radar features V1..V34.",
        "1 = good (g), 0 = bad (b)",
    )


def sonar(path) -> Table:
    df = _read_csv(path)
    X = df.iloc[:, :60].astype(np.float64)
    X.columns = _numbered("V", 60)
    return Table(
        X,
        _labels(df[60], {"M": 1, "R": 0}, "sonar label"),
        "sonar.all-data: 60 band energies V1..V60.",
        "1 = mine (M), 0 = rock (R)",
    )


def spambase(data_path, names_path) -> Table:
    text = Path(names_path).read_text(encoding="latin-1")
    names = re.findall(r"^(\S+):\s+continuous\.\s*$", text, flags=re.MULTILINE)
    if len(names) != 57:
        raise DataError(f"{names_path}: found {len(names)} attribute names, expected 57.")
    df = _read_csv(data_path)
    X = df.iloc[:, :57].astype(np.float64)
    X.columns = names
    return Table(
        X,
        _labels(df[57], {1: 1, 0: 0}, "spambase label"),
        "spambase.data with the 57 attribute names of spambase.names.",
        "1 = spam, 0 = not spam",
    )


def banknote(path) -> Table:
    df = _read_csv(path)
    X = df.iloc[:, :4].astype(np.float64)
    X.columns = ["variance", "skewness", "curtosis", "entropy"]
    return Table(
        X,
        _labels(df[4], {1: 1, 0: 0}, "banknote class"),
        "data_banknote_authentication.txt: 4 wavelet features.",
        "the file's class column (0 or 1) as is",
    )


GERMAN_COLUMNS = [
    "checking_status",
    "duration",
    "credit_history",
    "purpose",
    "credit_amount",
    "savings_status",
    "employment",
    "installment_commitment",
    "personal_status",
    "other_parties",
    "residence_since",
    "property_magnitude",
    "age",
    "other_payment_plans",
    "housing",
    "existing_credits",
    "job",
    "num_dependents",
    "own_telephone",
    "foreign_worker",
]
GERMAN_NUMERIC = {2, 5, 8, 11, 13, 16, 18}  # 1-based attribute numbers (german.doc)


def german(path) -> Table:
    """Statlog German credit: attribute j's code A<j><k> becomes the integer k."""
    df = _read_csv(path, sep=" ", dtype=str)
    cols = {}
    for j, name in enumerate(GERMAN_COLUMNS, start=1):
        col = df[j - 1]
        if j in GERMAN_NUMERIC:
            cols[name] = col.astype(np.float64)
        else:
            k = col.str.removeprefix(f"A{j}")
            if not k.str.fullmatch(r"\d+").all():
                raise DataError(f"{path}: attribute {j} has codes not of the form A{j}<k>.")
            cols[name] = k.astype(np.int64)
    X = pd.DataFrame(cols)
    return Table(
        X,
        _labels(df[20], {"2": 1, "1": 0}, "german class"),
        "german.data: 20 attributes; qualitative code A<j><k> of attribute j -> integer k "
        "(e.g. A43 -> 3, A410 -> 10), numeric attributes as is.",
        "1 = bad credit risk (class 2, the costly minority), 0 = good (class 1)",
    )


def _recipe(name: str, paths: list[str]) -> Table:
    simple = {
        "communities": communities,
        "blog": blog,
        "meps": meps,
        "nomao": nomao,
        "wdbc": wdbc,
        "ionosphere": ionosphere,
        "sonar": sonar,
        "spambase": spambase,
        "banknote": banknote,
        "german": german,
    }
    if name in ("adult_train", "adult_test"):
        return adult(*paths, part=name.removeprefix("adult_"))
    return simple[name](*paths)


def build(name: str, raw_paths) -> tuple[Table, dict[str, str]]:
    """Check the raw files' sha256, run the recipe, check the shape; return table and checksums."""
    raws = raw_files_for(name)
    paths = [str(p) for p in raw_paths]
    if [Path(p).name for p in paths] != [r.filename for r in raws]:
        raise DataError(f"{name} needs the raw files {[r.filename for r in raws]}, got {paths}.")
    sources = {}
    for raw, path in zip(raws, paths, strict=True):
        actual = sha256_file(path)
        if raw.sha256 is not None and actual != raw.sha256:
            raise DataError(
                f"{path} is corrupt: sha256 {actual}, expected {raw.sha256}. Delete it "
                f"and rerun so that it is fetched again."
            )
        sources[raw.filename] = actual
    table = _recipe(name, paths)
    ds = DATASETS[name]
    got = (len(table.X), table.X.shape[1])
    if got != (ds.n_rows, ds.n_features) or len(table.y) != ds.n_rows:
        raise DataError(
            f"the {name} recipe gave {got[0]} x {got[1]} (target {len(table.y)}), "
            f"expected {ds.n_rows} x {ds.n_features}: {', '.join(sources)} is not the "
            f"registered file."
        )
    if table.X.isna().any().any() or table.y.isna().any():
        raise DataError(f"the {name} recipe left missing values.")
    return table, sources


def prepare(name: str, raw_paths, table_path, meta_path) -> Table:
    """Write ``table_path`` (Parquet: features, then ``target``) and its JSON sidecar
    ``meta_path``."""
    table, sources = build(name, raw_paths)
    write_parquet(pd.concat([table.X, table.y.rename("target")], axis=1), table_path)
    write_json(
        meta_path,
        {
            "name": name,
            "sources": sources,
            "recipe": table.recipe,
            "target": table.target,
            "shape": [len(table.X), table.X.shape[1]],
            "feature_names": list(map(str, table.X.columns)),
            **table.extra,
        },
    )
    return table


def load(name: str, results_dir: str = "results") -> tuple[pd.DataFrame, pd.Series]:
    """``(X, y)`` of a prepared data set; ``y`` is the Series named ``target``."""
    if name not in DATASETS:
        raise DataError(
            f"unknown prepared data set {name!r}; expected one of {', '.join(DATASETS)}."
        )
    path = Path(results_dir) / "data" / f"{name}.parquet"
    if not path.is_file():
        raise DataError(
            f"{path} does not exist: prepare it with `snakemake --cores 1 data` "
            f"(or `snakemake --cores 1 {path}`)."
        )
    df = read_parquet(path)
    return df.drop(columns="target"), df["target"]
