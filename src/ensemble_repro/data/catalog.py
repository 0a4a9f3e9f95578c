"""Catalog of the raw files and prepared data sets (one entry per raw file).

Checksums are the sha256 of the *uncompressed* original files, copied from the mirror's
``MANIFEST.tsv``; sizes were measured once on the mirror (``gunzip -c | wc -c``). The mirror
keeps each file as ``<mirror>/<group>/<filename>.gz``; the fetch rule writes it to
``resources/raw/<group>/<filename>``.

OpenML ids are recorded for reference; only Nomao is fetched from OpenML, because only there is
the OpenML file *the* registered raw file (dataset 1486, file 1592278 is ``nomao.arff`` itself).
The other OpenML copies are not byte-identical to the UCI originals, so their sha256 cannot
match: OpenML re-serialises every upload as ARFF (and Parquet), adds a header, renames the
columns and re-encodes labels — Adult 1590 merges ``adult.data`` and ``adult.test`` into one
table without the test banner or the trailing ``.`` of the test labels; wdbc 1510 drops the id
column; spambase 44, banknote 1462 and credit-g 31 replace the codes and line endings of the
text files. Fetching them would therefore always fail the checksum.

MEPS HC-192 (``h192.ssp``) has no pinned sha256: AHRQ does not publish one and the file could
not be staged. It is checked instead by its content: the SAS XPORT header when fetched, and the
exact shape the recipe must produce (33005 x 107) when prepared.
"""

from __future__ import annotations

from dataclasses import dataclass


class DataError(RuntimeError):
    """A raw data file is missing, corrupt or cannot be fetched; the message says how to fix it."""


UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
MEPS_URL = "https://meps.ahrq.gov/mepsweb/data_files/pufs/h192ssp.zip"
MEPS_DOC = "https://meps.ahrq.gov/data_stats/download_data/pufs/h192/h192doc.shtml"


@dataclass(frozen=True)
class RawFile:
    """One original file: where it lives in the mirror and on the web, and its checksum."""

    group: str  # mirror directory and resources/raw/<group>/
    filename: str
    url: str  # official download URL (a zip archive when ``member`` is set)
    sha256: str | None  # of the uncompressed bytes; None = not pinned (MEPS)
    size: int | None  # uncompressed bytes
    member: str | None = None  # file name inside the zip archive at ``url``
    openml_id: int | None = None  # OpenML dataset id (reference)
    openml_file_id: int | None = None  # OpenML file id, set only when that file IS this raw file

    @property
    def key(self) -> str:
        return f"{self.group}/{self.filename}"


_FILES = [
    RawFile(
        "communities_and_crime",
        "communities.data",
        f"{UCI}/communities/communities.data",
        "09e0b5c07eae24c1efab19b2edee05e160e7f5743b6f31e31eec3d73624da2ea",
        1102815,
    ),
    RawFile(
        "communities_and_crime",
        "communities.names",
        f"{UCI}/communities/communities.names",
        "80914f24ab37261fb0fbda7e417cad8001335dadda4a8d702c265601ef8434fc",
        27179,
    ),
    RawFile(
        "blogfeedback",
        "blogData_train.csv",
        f"{UCI}/00304/BlogFeedback.zip",
        "f3cc953ea9913361be6d3bae2c393eef73eab57b1cb8e5bf8a22f1e5eb5dd05f",
        65095322,
        member="blogData_train.csv",
    ),
    RawFile("meps_2016", "h192.ssp", MEPS_URL, None, None, member="h192.ssp"),
    RawFile(
        "adult",
        "adult.data",
        f"{UCI}/adult/adult.data",
        "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
        3974305,
        openml_id=1590,
    ),
    RawFile(
        "adult",
        "adult.test",
        f"{UCI}/adult/adult.test",
        "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
        2003153,
        openml_id=1590,
    ),
    RawFile(
        "nomao",
        "nomao.arff",
        "https://www.openml.org/data/download/1592278/phpDYCOet",
        "94b4e6229e434d04fb61f081e547c95ec0bfa99e9ea9e880acd5276d13b972e6",
        20200787,
        openml_id=1486,
        openml_file_id=1592278,
    ),
    RawFile(
        "uci_binary",
        "wdbc.data",
        f"{UCI}/breast-cancer-wisconsin/wdbc.data",
        "d606af411f3e5be8a317a5a8b652b425aaf0ff38ca683d5327ffff94c3695f4a",
        124103,
        openml_id=1510,
    ),
    RawFile(
        "uci_binary",
        "ionosphere.data",
        f"{UCI}/ionosphere/ionosphere.data",
        "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd",
        76467,
    ),
    RawFile(
        "uci_binary",
        "sonar.all-data",
        f"{UCI}/undocumented/connectionist-bench/sonar/sonar.all-data",
        "e90434cdbf00fcf93ffa911fe447ae25606979658e60f1d32e155c3b5240234d",
        87776,
    ),
    RawFile(
        "uci_binary",
        "spambase.data",
        f"{UCI}/spambase/spambase.data",
        "b1ef93de71f97714d3d7d4f58fc9f718da7bbc8ac8a150eff2778616a8097b12",
        702942,
        openml_id=44,
    ),
    RawFile(
        "uci_binary",
        "spambase.names",
        f"{UCI}/spambase/spambase.names",
        "df418fab7923f929237b81efa0987ddfaf2d68cf61291243625aadc684d5ab6a",
        3566,
    ),
    RawFile(
        "uci_binary",
        "data_banknote_authentication.txt",
        f"{UCI}/00267/data_banknote_authentication.txt",
        "d0539aaed2139ba7a587b3e34fb345ce503ff7d5d33dbf9912d8e195ce425cb9",
        46400,
        openml_id=1462,
    ),
    RawFile(
        "uci_binary",
        "german.data",
        f"{UCI}/statlog/german/german.data",
        "b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871",
        79793,
        openml_id=31,
    ),
]

#: Raw files by ``group/filename``.
RAW_FILES: dict[str, RawFile] = {f.key: f for f in _FILES}


@dataclass(frozen=True)
class Dataset:
    """A prepared data set: the raw files its recipe reads and the shape it must produce."""

    name: str
    raw: tuple[str, ...]  # keys of RAW_FILES, in the order the recipe takes them
    n_rows: int
    n_features: int


DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in [
        Dataset(
            "communities",
            ("communities_and_crime/communities.data", "communities_and_crime/communities.names"),
            1994,
            99,
        ),
        Dataset("blog", ("blogfeedback/blogData_train.csv",), 52397, 280),
        Dataset("meps", ("meps_2016/h192.ssp",), 33005, 107),
        Dataset("adult_train", ("adult/adult.data", "adult/adult.test"), 32561, 14),
        Dataset("adult_test", ("adult/adult.data", "adult/adult.test"), 16281, 14),
        Dataset("nomao", ("nomao/nomao.arff",), 34465, 118),
        Dataset("wdbc", ("uci_binary/wdbc.data",), 569, 30),
        Dataset("ionosphere", ("uci_binary/ionosphere.data",), 351, 34),
        Dataset("sonar", ("uci_binary/sonar.all-data",), 208, 60),
        Dataset("spambase", ("uci_binary/spambase.data", "uci_binary/spambase.names"), 4601, 57),
        Dataset("banknote", ("uci_binary/data_banknote_authentication.txt",), 1372, 4),
        Dataset("german", ("uci_binary/german.data",), 1000, 20),
    ]
}

#: Config data-set names that stand for several prepared tables.
_EXPANSIONS = {"adult": ("adult_train", "adult_test")}


def prepared_names_for(config_names) -> list[str]:
    """Map config data-set names to prepared names (adult -> adult_train, adult_test).

    Order-preserving and de-duplicated; an unknown name raises :class:`DataError`.
    """
    out: list[str] = []
    for name in config_names:
        expanded = _EXPANSIONS.get(name, (name,))
        for n in expanded:
            if n not in DATASETS:
                known = sorted(set(DATASETS) - {"adult_train", "adult_test"} | set(_EXPANSIONS))
                raise DataError(f"unknown data set {name!r}; expected one of {', '.join(known)}.")
            if n not in out:
                out.append(n)
    return out


def raw_files_for(name: str) -> list[RawFile]:
    """The raw files the recipe of prepared data set ``name`` reads."""
    if name not in DATASETS:
        raise DataError(
            f"unknown prepared data set {name!r}; expected one of {', '.join(DATASETS)}."
        )
    return [RAW_FILES[k] for k in DATASETS[name].raw]


def raw_file(group: str, filename: str) -> RawFile:
    key = f"{group}/{filename}"
    if key not in RAW_FILES:
        raise DataError(f"no registered raw file {key!r}; expected one of {', '.join(RAW_FILES)}.")
    return RAW_FILES[key]
