"""Fuzz corpus of army lists and BattleScribe rosters (tests/fuzz/list, tests/fuzz/roster):
each bad file is one line naming the file, exit 2, never an internal error (issue 27): zip
members opened defensively (bad CRC, corrupt deflate, encrypted, unknown method), selection
numbers and points limits read exactly (no ``inf``, ``1.9`` read as 1, or the spent total
taken for a missing limit), unknown keys with the closest valid one, bounded sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import needs_shared

from dustsim.cli.shell import main

CORPUS = Path(__file__).parent / "fuzz"
LISTS = sorted((CORPUS / "list").glob("*.toml"))
ROSTERS = sorted((CORPUS / "roster").glob("*.ros*"))
GOOD = (CORPUS / "roster" / "number_1_9.ros").read_text(encoding="utf-8").replace(
    'number="1.9"', 'number="1"')


def _one_line_refusal(argv, capsys, name):
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and err.startswith("dustsim: error:"), err
    assert "internal error" not in err and name in err
    return err


def test_corpora_are_there():
    assert len(LISTS) >= 14 and len(ROSTERS) >= 16


@pytest.mark.parametrize("path", LISTS, ids=lambda p: p.stem)
def test_bad_list_is_refused_in_one_line(path, capsys):
    _one_line_refusal(["list", "check", str(path)], capsys, path.name)


@needs_shared
@pytest.mark.parametrize("path", ROSTERS, ids=lambda p: p.name)
def test_bad_roster_is_refused_in_one_line(path, capsys):
    _one_line_refusal(["list", "check", str(path)], capsys, path.name)


@needs_shared
def test_the_corpus_base_roster_is_legal(tmp_path, capsys):
    f = tmp_path / "good.ros"
    f.write_text(GOOD, encoding="utf-8")
    assert main(["list", "check", str(f)]) == 0, capsys.readouterr().err
    assert "13/75 AP" in capsys.readouterr().out


@needs_shared
def test_missing_limit_is_not_the_spent_total(tmp_path, capsys):
    """The roster's <costs> (13 AP spent) is never read as its limit; --points gives one."""
    f = CORPUS / "roster" / "limit_missing.ros"
    err = _one_line_refusal(["list", "check", str(f)], capsys, f.name)
    assert "pass --points" in err
    assert main(["list", "check", str(f), "--points", "50"]) == 0
    assert "13/50 AP" in capsys.readouterr().out


@needs_shared
def test_list_vs_refuses_unresolved_selections_as_check_does(tmp_path, capsys):
    part = tmp_path / "partial.ros"
    ghost = ('<selection id="g" name="Ghost" entryId="no-such-entry" number="1" '
             'type="unit"></selection>')
    part.write_text(GOOD.replace("</selections></force>", ghost + "</selections></force>"),
                    encoding="utf-8")
    good = tmp_path / "good.ros"
    good.write_text(GOOD, encoding="utf-8")
    assert main(["list", "check", str(part)]) == 2
    assert "ILLEGAL" in capsys.readouterr().out
    err = _one_line_refusal(["list", "vs", str(good), str(part), "--trials", "10"], capsys,
                            "partial.ros")
    assert "Ghost" in err and "good.ros" not in err


def test_meta_folder_is_bounded(tmp_path, capsys):
    for i in range(25):
        (tmp_path / f"l{i:02}.toml").write_text('points = 75\n[[unit]]\ncard = "Pounder"\n')
    err = _one_line_refusal(["list", "meta", str(tmp_path), "--trials", "10"], capsys,
                            str(tmp_path))
    assert "more than 24 list files" in err


def test_list_vs_errors_name_the_list_file_not_a_duel_flag(monkeypatch):
    """compile_duel names its sides --side-a/--side-b; `list vs` has no such flags: the error
    names the file of the list it is about."""
    import dustsim.play.list_battles as LB
    from dustsim.army.lists import ArmyList
    from dustsim.errors import DustsimError

    def boom(*a, **k):
        raise DustsimError("a side has one to 64 units, got 0", field="--side-b")

    monkeypatch.setattr(LB, "compile_duel", boom)
    a = ArmyList("A", 75.0, (), (), "Allies", "a.toml")
    b = ArmyList("B", 75.0, (), (), "Axis", "b.toml")
    with pytest.raises(DustsimError) as ei:
        LB.compile_lists(a, b)
    msg = str(ei.value)
    assert msg.startswith("b.toml:") and "--side-b" not in msg
