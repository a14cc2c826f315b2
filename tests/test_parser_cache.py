"""The built Lark parser is kept in the user's cache directory, keyed by grammar, options and
versions, and sealed under the user's secret (vbr.private_cache); a file whose seal does not hold
is never trusted, and no usable directory means no cache."""
import os

import pytest

from vbr.grammar import parser as P

SOURCE = 'game "g"\n# a comment\nvar x: int = 1\nstart p\nphase p {\n  end draw\n}\n'


@pytest.fixture
def fresh_parser():
    P._lark.cache_clear()
    yield
    P._lark.cache_clear()


def test_the_parser_is_cached_and_loads_from_the_cache(tmp_path, monkeypatch, fresh_parser):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    built = P.parse(SOURCE)
    files = sorted(os.listdir(tmp_path / "vbr"))
    assert len(files) == 2 and files[0].startswith("parser-") and files[0].endswith(".lark") and files[1] == "secret"
    P._lark.cache_clear()
    loaded = P.parse(SOURCE)  # from the file, with the comment hook still attached
    assert loaded == built and len(loaded.comments) == 1


def test_a_cache_file_with_another_key_is_not_trusted(tmp_path, monkeypatch, fresh_parser):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    P.parse(SOURCE)
    (path,) = (tmp_path / "vbr").glob("parser-*")
    path.write_bytes(b"not-the-seal" * 4 + b"\x80garbage")
    P._lark.cache_clear()
    assert len(P.parse(SOURCE).comments) == 1  # built again; the file is rewritten, sealed
    assert not path.read_bytes().startswith(b"not-the-seal")


def test_no_usable_cache_directory_means_no_cache(tmp_path, monkeypatch, fresh_parser):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # `vbr` cannot be made inside a file
    assert P.cache_path("grammar") is None
    assert len(P.parse(SOURCE).comments) == 1


def test_the_key_follows_the_grammar(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert P.cache_path("a") != P.cache_path("b")
    assert P.cache_path("a") == P.cache_path("a")
