"""Fuzz corpus of balance patches (tests/fuzz/patch): a patch that would do nothing, or
something the game cannot have, is refused in one line naming the file, change line, unit
and field (issue 27: ``weapons`` was listed but never read, ``remove_skills`` of an absent
skill or as a string did nothing, ``add_skills = 5`` was an internal error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dustsim.data.cards import load_cards
from dustsim.data.patches import load_patch
from dustsim.errors import DustsimError

CORPUS = sorted((Path(__file__).parent / "fuzz" / "patch").glob("*.toml"))


@pytest.fixture(scope="module")
def d47():
    return [c for c in load_cards() if c.edition == "dust-1947"]


def test_corpus_is_there():
    assert len(CORPUS) >= 20


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_bad_patch_is_refused_in_one_line(path, d47):
    with pytest.raises(DustsimError) as ei:
        load_patch(path, d47)
    msg = str(ei.value)
    assert path.name in msg and "\n" not in msg


def test_a_real_change_passes_and_changes_the_card(tmp_path, d47):
    f = tmp_path / "p.toml"
    f.write_text('[[change]]\nunit = "Pounder"\nap = 12\nadd_skills = ["Brave"]\n'
                 '[[change.weapon]]\nname = "Antitank Gun"\nrange = "8"\n', encoding="utf-8")
    new = load_patch(f, d47)["Pounder"]
    old = next(c for c in d47 if c.name == "Pounder")
    assert new.ap == 12 and old.ap == 13 and "Brave" in new.skills
    assert next(w for w in new.weapons if w.name == "Antitank Gun").range == "8"


def test_report_refuses_a_bad_patch_before_any_work(tmp_path, capsys):
    from dustsim.cli.shell import main

    bad = Path(__file__).parent / "fuzz" / "patch" / "remove_skills_absent.toml"
    out = tmp_path / "r"
    assert main(["report", "--units", "Pounder", "--patch", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "remove_skills" in err and not out.exists()
    assert main(["report", "--patch", "", "--out", str(out)]) == 2
    assert "--patch is empty" in capsys.readouterr().err
