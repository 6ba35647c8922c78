"""The bundled fuzz corpus (tests/fuzz/): malformed unit files and catalogues, each refused
in one line naming the file (or, for a catalogue, imported into data the validator accepts).
Add a file to the corpus for every crash a fuzz run finds."""

from __future__ import annotations

from pathlib import Path

import pytest

from dustsim.cli.shell import main
from dustsim.data.cards import validate
from dustsim.data.importers.battlescribe import import_battlescribe
from dustsim.errors import DustsimError

CORPUS = Path(__file__).parent / "fuzz"
TOML = sorted((CORPUS / "toml").glob("*.toml"))
CATS = sorted((CORPUS / "battlescribe").glob("*.cat"))
#: catalogues that hold something the game cannot have: refused, never imported
MUST_REFUSE = {"armour_S5", "armour_S7", "armour_A4", "armour_V9", "armour_arabic",
               "track_zero", "cost_absurd", "deep_nesting", "unknown_encoding", "truncated",
               "not_xml", "empty", "wrong_root", "billion_laughs", "external_entity",
               "binary", "cost_empty", "cost_arabic", "cost_missing_value"}


def test_corpus_is_there():
    assert len(TOML) >= 30 and len(CATS) >= 15
    assert {p.stem for p in CATS} >= MUST_REFUSE


@pytest.mark.parametrize("path", TOML, ids=lambda p: p.stem)
def test_malformed_unit_file_is_refused_in_one_line(path, capsys):
    _, problems = validate([path])
    assert problems, f"{path.name} was accepted"
    for p in problems:
        assert path.name in str(p) and "\n" not in str(p)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and path.name in err


@pytest.mark.parametrize("path", CATS, ids=lambda p: p.stem)
def test_malformed_catalogue_is_refused_or_imported_valid(path, tmp_path):
    try:
        texts, _ = import_battlescribe([CORPUS / "battlescribe" / "Fuzz.gst", path])
    except DustsimError as exc:
        assert path.name in str(exc) and "\n" not in str(exc)
        return
    assert path.stem not in MUST_REFUSE, f"{path.name} was imported"
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    _, problems = validate([tmp_path])
    assert not problems, str(problems[0])


def test_unreadable_move_is_flagged_not_dropped():
    """A Move the importer cannot read stays unknown with a flag naming the value (it was
    dropped without a word)."""
    texts, _ = import_battlescribe([CORPUS / "battlescribe" / "Fuzz.gst",
                                    CORPUS / "battlescribe" / "move_bad.cat"])
    (text,) = texts.values()
    assert "Move '٢' not understood; kept unknown" in text
    assert "March Move 'x' not understood; kept unknown" in text
    assert "\nmove = " not in text
