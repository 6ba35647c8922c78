"""A BattleScribe roster reads from an installed package, without the catalogues (issue 26):
the entry-id index ships as package data and matches the catalogues it came from."""

import pytest
from conftest import ROOT, SHARED, needs_shared

from dustsim.army import rosters
from dustsim.errors import DustsimError

ROS = ROOT / "examples" / "lists" / "battlescribe" / "allies-rangers-battlescribe.ros"
ROSZ = ROOT / "examples" / "lists" / "battlescribe" / "ssu-red-army-battlescribe.rosz"


@needs_shared
def test_bundled_index_is_the_catalogues_index():
    from dustsim.data.importers.battlescribe import read_revision

    folder = SHARED / "data" / "bsdata-dust1947"
    index = rosters.catalogue_index(str(folder.resolve()))
    assert rosters.BUNDLED_INDEX.read_text(encoding="utf-8") == \
        rosters.index_json(index, read_revision(folder))  # regenerate with index_json


@needs_shared
@pytest.mark.parametrize("path", [ROS, ROSZ], ids=["ros", "rosz"])
def test_roster_without_catalogues_reads_as_with_them(path, monkeypatch):
    with_catalogues = rosters.read_roster(path, SHARED / "data" / "bsdata-dust1947")
    monkeypatch.delenv("DUSTSIM_BSDATA", raising=False)
    monkeypatch.setattr(rosters, "default_catalogue_dir", lambda: None)
    bundled = rosters.read_roster(path)
    assert bundled.selections == with_catalogues.selections and bundled.selections
    assert bundled.unresolved == with_catalogues.unresolved


def test_no_catalogues_and_no_index_says_where_catalogues_come_from(monkeypatch, tmp_path):
    monkeypatch.delenv("DUSTSIM_BSDATA", raising=False)
    monkeypatch.setattr(rosters, "default_catalogue_dir", lambda: None)
    monkeypatch.setattr(rosters, "BUNDLED_INDEX", tmp_path / "none.json")
    rosters.bundled_index.cache_clear()
    try:
        with pytest.raises(DustsimError) as e:
            rosters.read_roster(ROS)
    finally:
        rosters.bundled_index.cache_clear()
    msg = str(e.value)
    assert "--catalogues DIR" in msg and "github.com/BSData/dust1947" in msg
    assert "DUSTSIM_BSDATA" in msg and "allies-rangers-battlescribe.ros" in msg
