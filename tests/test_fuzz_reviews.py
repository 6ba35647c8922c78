"""Every card edition's review runs, whole and with --units (issue 27: the 2013 review and
the 2009 review of one card failed with KeyError 'edition' because no card of theirs has a
cost to rank); Dust Epic, which has figures and no cards, is refused in one line."""

from __future__ import annotations

import pytest

from dustsim.cli.shell import main

FAST = ["--format", "png", "--confirm", "5", "--trials", "500", "--value-trials", "4",
        "--duel-trials", "100", "--quiet"]


@pytest.mark.parametrize("edition,units", [
    ("tactics-2013", None),                 # no card has a cost: nothing swept, still a review
    ("tactics-2009", "Combat Rangers"),
    ("ffg-era", "Action Jackson"),
])
def test_every_edition_review_runs(edition, units, tmp_path, capsys):
    out = tmp_path / "rep"
    argv = ["report", "--edition", edition, "--out", str(out), *FAST]
    if units:
        argv += ["--units", units]
    rc = main(argv)
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert f"report for {edition}:" in cap.out
    assert (out / "index.html").is_file() and (out / "tables" / "scores.csv").is_file()
    html = (out / "index.html").read_text(encoding="utf-8")
    assert edition in html


def test_epic_has_no_card_review(tmp_path, capsys):
    assert main(["report", "--edition", "epic", "--out", str(tmp_path / "r"), *FAST]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "epic" in err
    assert not (tmp_path / "r").exists()
