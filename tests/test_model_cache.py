"""model_cache.py: a mechanism file loaded once per contents, path and generator; identical
files in two folders share one build (generate.py, paths.file_key)."""

import pytest

import mcsgen.model as model_pkg
from mcsgen import generate as generate_module
from mcsgen import model_cache, paths
from mcsgen.errors import ModelError
from mcsgen.paths import ROOT

SOURCE = ROOT / "models" / "slider_crank.yaml"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(model_cache, "CACHE", tmp_path / "loaded")
    return tmp_path / "loaded"


def _copy(folder):
    """The slider-crank under a name of the user's (a shipped model's name is refused)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "my_crank.yaml"
    path.write_text(SOURCE.read_text().replace("name: slider_crank", "name: my_crank"))
    return path


def _no_loading(monkeypatch):
    def refuse(path):
        raise AssertionError(f"{path} was loaded again")

    monkeypatch.setattr(model_pkg, "load_model", refuse)


def test_a_file_loaded_once_comes_from_the_cache(tmp_path, cache, monkeypatch):
    path = _copy(tmp_path)
    first = model_cache.load_completed(path)
    assert len(list(cache.glob("*.pickle"))) == 1
    _no_loading(monkeypatch)
    again = model_cache.load_completed(path)
    assert again is not first and again.name == first.name and again.path == path
    assert list(again.v0) == list(first.v0) and again.file_hash == first.file_hash


def test_a_changed_file_is_loaded_anew(tmp_path, cache, monkeypatch):
    path = _copy(tmp_path)
    model_cache.load_completed(path)
    path.write_text(path.read_text() + "\n# changed\n")
    loads = []
    real = model_pkg.load_model
    monkeypatch.setattr(model_pkg, "load_model", lambda p: loads.append(p) or real(p))
    model_cache.load_completed(path)
    assert loads == [path] and len(list(cache.glob("*.pickle"))) == 2


def test_a_torn_entry_is_loaded_anew_and_replaced(tmp_path, cache):
    path = _copy(tmp_path)
    model_cache.load_completed(path)
    (entry,) = cache.glob("*.pickle")
    entry.write_bytes(entry.read_bytes()[:100])
    assert model_cache.load_completed(path).name == "my_crank"
    assert entry.stat().st_size > 100


def test_a_bad_file_is_never_kept(tmp_path, cache):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nbodies: 3\n")
    for _ in range(2):
        with pytest.raises(ModelError):
            model_cache.load_completed(path)
    assert not cache.exists() or not list(cache.glob("*.pickle"))


def test_identical_files_in_two_folders_share_one_build(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(paths, "USER_GENERATED", tmp_path / "generated")
    a, b = _copy(tmp_path / "a"), _copy(tmp_path / "b")
    _, dir_a, written_a = generate_module.generate(a)
    _, dir_b, written_b = generate_module.generate(b)
    assert written_a and not written_b and dir_a == dir_b
    b.write_text(b.read_text() + "\n# another file now\n")
    _, dir_c, written_c = generate_module.generate(b)
    assert written_c and dir_c != dir_a
