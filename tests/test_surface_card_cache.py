"""The parsed-card cache (issue 26, first run): the same cards as a fresh parse, a changed
file is parsed again, a file with a problem is never cached."""

import shutil

import pytest
from conftest import ROOT

from dustsim.data import card_cache
from dustsim.data.cards import load_cards, validate
from dustsim.errors import DustsimError

SMALL = ROOT / "unit_data" / "dust-1947" / "mythos.toml"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("DUSTSIM_CACHE_DIR", str(d))
    monkeypatch.setenv("DUSTSIM_CARD_CACHE", "1")
    return d


def test_cached_cards_equal_a_fresh_parse_and_follow_edits(cache, tmp_path):
    f = tmp_path / "units.toml"
    shutil.copy(SMALL, f)
    fresh, problems = validate([f])
    assert not problems and fresh
    assert load_cards([f]) == fresh  # parsed, then stored
    assert len(list(cache.glob("cards-*.pickle"))) == 1
    assert load_cards([f]) == fresh  # read back
    text = f.read_text(encoding="utf-8")
    name = fresh[0].name
    f.write_text(text.replace(f'name = "{name}"', f'name = "{name} II"', 1), encoding="utf-8")
    again = load_cards([f])
    assert again[0].name == f"{name} II"  # a changed file is a new key
    assert len(list(cache.glob("cards-*.pickle"))) == 2


def test_a_problem_is_raised_every_time_and_never_cached(cache, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('[[card]]\nname = "X"\nkind = "squad"\narmour = "I9"\nmodels = 3\n',
                 encoding="utf-8")
    for _ in range(2):
        with pytest.raises(DustsimError):
            load_cards([f])
    assert not list(cache.glob("cards-*.pickle")) if cache.exists() else True


def test_the_cache_can_be_turned_off(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("DUSTSIM_CARD_CACHE", "0")
    f = tmp_path / "units.toml"
    shutil.copy(SMALL, f)
    assert load_cards([f])
    assert not cache.exists()
    assert card_cache.key([f]) != card_cache.key([SMALL])  # the path is part of the key


def test_bench_first_run_measures_cold_then_warm_in_one_empty_cache(monkeypatch):
    """The bench's first-run rows: each command twice, with the same fresh, empty Numba and
    card caches (the commands themselves are stubbed: compiling takes tens of seconds)."""
    import os

    from dustsim import bench

    calls = []

    def child(args, module=True, env_extra=None):
        d = env_extra["NUMBA_CACHE_DIR"]
        calls.append((args[0], d, os.path.isdir(d) and os.listdir(d)))
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "compiled"), "w").close()  # what a cold run leaves
        return 10.0 if len(calls) % 2 else 2.0

    monkeypatch.setattr(bench, "_child_cpu", child)
    rows = {r.name: r for r in bench._first_run(quick=False)}
    assert [c[0] for c in calls] == ["list", "list", "report", "report"]
    assert not calls[0][2] and calls[1][2] == ["compiled"]  # cold: empty; warm: same cache
    assert calls[0][1] == calls[1][1] != calls[2][1]
    assert rows["first run, cold caches: list vs (two example lists)"].status == "PASS"
    assert rows["  cold / warm: report --units (4 cards)"].value == 5.0
    assert bench._first_run(quick=True)[0].value == 0.0  # not in --quick
