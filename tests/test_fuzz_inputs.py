"""Fuzz corpus of the importers' inputs (tests/fuzz/enlist, tests/fuzz/facts): every bad
file is refused in one line naming the file (exit 2, never 1), nothing is written, and no
name from the data becomes a path outside the output folder (issue 27)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dustsim.cli.shell import main

CORPUS = Path(__file__).parent / "fuzz"
ENLIST = sorted((CORPUS / "enlist").glob("*.jsonl"))
FACTS = sorted((CORPUS / "facts").glob("*.csv"))
ABSOLUTE = Path("/tmp/dustsim-fuzz-absolute.toml")


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def _refused(argv: list[str], root: Path, capsys) -> str:
    before = _files(root)
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert err.count("\n") == 1 and err.startswith("dustsim: error:")
    assert _files(root) == before, "something was written"
    assert not ABSOLUTE.exists()
    return err


def _extract(case: Path, folder: Path) -> Path:
    shutil.copytree(CORPUS / "enlist" / "_base", folder)
    kind = case.stem.split("_", 1)[0]
    shutil.copy(case, folder / f"{kind}.jsonl")
    return folder


def test_corpora_are_there():
    assert len(ENLIST) >= 20 and len(FACTS) >= 14


@pytest.mark.parametrize("case", ENLIST, ids=lambda p: p.stem)
def test_bad_enlist_extract_is_refused_in_one_line(case, tmp_path, capsys):
    src = _extract(case, tmp_path / "extract")
    out = tmp_path / "a" / "b" / "out"
    out.parent.mkdir(parents=True)
    err = _refused(["import", "enlist", str(src), "-o", str(out)], tmp_path, capsys)
    assert f"{case.stem.split('_', 1)[0]}.jsonl" in err


def test_good_enlist_extract_writes_inside_the_output_folder(tmp_path, capsys):
    src = shutil.copytree(CORPUS / "enlist" / "_base", tmp_path / "extract")
    out = tmp_path / "out"
    assert main(["import", "enlist", str(src), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [".dustsim-output", "allies.toml"]


@pytest.mark.parametrize("case", FACTS, ids=lambda p: p.stem)
def test_bad_facts_csv_is_refused_in_one_line(case, tmp_path, capsys):
    csv = shutil.copy(case, tmp_path / "facts.csv")
    out = tmp_path / "a" / "b" / "out"
    out.parent.mkdir(parents=True)
    err = _refused(["import", "facts", str(csv), "-o", str(out)], tmp_path, capsys)
    assert "facts.csv" in err


def test_facts_empty_bloc_stays_inside_the_output_folder(tmp_path, capsys):
    text = (CORPUS / "facts" / "bloc_escapes.csv").read_text(encoding="utf-8")
    csv = tmp_path / "facts.csv"
    csv.write_text(text.replace("../../ESCAPED", ""), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["import", "facts", str(csv), "-o", str(out)]) == 0, capsys.readouterr().err
    written = {p.relative_to(out).as_posix() for p in out.rglob("*.toml")}
    assert written == {"tactics-2013/other.toml", "epic/figures.toml"}


@pytest.mark.parametrize("bloc", ["../../ESCAPED", "/etc/passwd", "", ".hidden", "a/b",
                                  "x" * 300, "Allies\x1b[2J"])
def test_bloc_file_names_never_leave_the_folder(bloc):
    from dustsim.data.importers.paths import bloc_file
    from dustsim.errors import DustsimError

    with pytest.raises(DustsimError, match="bloc"):
        bloc_file(bloc)


def test_known_and_plain_blocs_get_their_file():
    from dustsim.data.importers.paths import bloc_file

    assert bloc_file("IJN") == "ijn.toml" and bloc_file("allies") == "allies.toml"
    assert bloc_file("Captured Vehicles") == "captured-vehicles.toml"
    assert bloc_file("", empty="other.toml") == "other.toml"


@pytest.mark.parametrize("rel", ["../x.toml", "/abs.toml", "", ".toml", "a/../../x.toml"])
def test_write_tree_refuses_paths_leaving_the_folder(rel, tmp_path):
    from dustsim.data.importers.paths import inside
    from dustsim.errors import DustsimError

    with pytest.raises(DustsimError, match="output"):
        inside(tmp_path, rel)


def test_merge_refuses_an_unknown_bloc_in_one_line():
    """``import dust1947`` filed cards by ``BLOC_FILES[card.bloc]``: KeyError '!!!'."""
    from dustsim.data.cards import Card
    from dustsim.data.importers.dust1947 import _bloc_file
    from dustsim.errors import DustsimError

    with pytest.raises(DustsimError, match="not one of Allies"):
        _bloc_file(Card(name="X", edition="dust-1947", kind=None, armour=None, bloc="!!!"))
    assert _bloc_file(Card(name="X", edition="dust-1947", kind=None, armour=None,
                           bloc="IJN")) == "ijn.toml"
