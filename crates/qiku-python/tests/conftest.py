"""Shared fixtures: paths of the repository's shipped data, and a small tablebase directory."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
GAMES = ROOT / "books" / "games"
FIXTURES = ROOT / "tests" / "fixtures"
XQF = ROOT / "tests" / "data" / "xqf"


@pytest.fixture(scope="session")
def games_dir():
    return GAMES


@pytest.fixture(scope="session")
def tables_dir(tmp_path_factory):
    """Rook, cannon and horse against a bare king, generated once for the session."""
    import qiku

    import time

    d = tmp_path_factory.mktemp("tables")
    t = time.perf_counter()
    qiku.generate_tablebases(["KRvK", "KCvK", "KNvK"], d)
    print(f"\ntables KRvK, KCvK, KNvK generated: {time.perf_counter() - t:.2f} s")
    return d


def pytest_report_header(config):
    import qiku

    return f"qiku {qiku.__version__} from {os.path.dirname(qiku.__file__)}"
