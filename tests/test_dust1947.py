"""Dust 1947 merge of BattleScribe and DUST ENLIST: reproducibility, matching, conflicts,
errata, tokens, factions, sourced squad sizes.

The source data lives in ../shared (CI has it): these tests FAIL, not skip, without it.
"""

from __future__ import annotations

import pytest
from conftest import SHARED, UNIT_DATA

from dustsim.data.cards import UNKNOWN
from dustsim.data.importers import dust1947 as D
from dustsim.data.importers.enlist import convert_cell
from dustsim.errors import DustsimError

BS = SHARED / "data" / "bsdata-dust1947"
EN = SHARED / "data" / "dust-enlist"


@pytest.fixture(scope="module")
def merged():
    assert (BS / "Dust_1947.gst").is_file() and (EN / "units.jsonl").is_file(), \
        "../shared/data (BattleScribe and DUST ENLIST sources) is required"
    return D.merge_dust1947(BS, EN)


def test_reimport_reproduces_the_committed_unit_data_byte_for_byte(merged):
    committed = {p.name: p.read_text(encoding="utf-8")
                 for p in (UNIT_DATA / "dust-1947").glob("*.toml")}
    assert set(merged.texts) == set(committed)
    for name, text in merged.texts.items():
        assert text == committed[name], name
    platoons = (UNIT_DATA / "platoons" / "dust-1947-enlist.toml").read_text(encoding="utf-8")
    assert D.enlist_platoons_text(merged) == platoons


def test_cli_writes_the_same_files(merged, tmp_path):
    from dustsim.cli.shell import main

    out, pl = tmp_path / "d47", tmp_path / "pl.toml"
    assert main(["import", "dust-1947", "--battlescribe", str(BS), "--enlist", str(EN),
                 "-o", str(out), "--platoons", str(pl)]) == 0
    for name, text in merged.texts.items():
        assert (out / name).read_text(encoding="utf-8") == text
    # an existing output is refused without --force, nothing touched
    before = (out / "ijn.toml").read_text(encoding="utf-8")
    assert main(["import", "dust-1947", "--battlescribe", str(BS), "--enlist", str(EN),
                 "-o", str(out)]) == 2
    assert (out / "ijn.toml").read_text(encoding="utf-8") == before


def test_every_printed_card_once_six_blocs_each_with_its_sources(merged):
    r = merged.report
    cards = merged.cards
    assert len(cards) >= 530 and len({c.name for c in cards}) == len(cards)
    assert {c.bloc for c in cards} == set(D.BLOC_FILES)
    assert sum(c.bloc == "IJN" for c in cards) == 36  # 37 IJN entries less the VK Stash token
    assert all(c.sources for c in cards)
    both = [c for c in cards if len(c.sources) >= 2]
    assert all(any(s.startswith("github:BSData") for s in c.sources) for c in both)
    assert r.matched + r.copies + len(r.enlist_only) == 536  # 542 ENLIST lines less 6 tokens
    assert len(r.tokens) == 6 and all("not a unit" in t for t in r.tokens)
    assert not any("VK Stash" in c.name for c in cards)


def test_unmatched_are_listed_not_guessed(merged):
    lines = D.unmatched(merged)
    assert any("Recon Mickey (USMC)" in x for x in lines if x.startswith("BattleScribe only"))
    assert any("ijn--basan" in x for x in lines if x.startswith("ENLIST only"))
    # a name in two blocs is not matched across blocs (Yukiko of the IJN)
    assert any("ijn--yukiko" in x for x in lines)


def test_factions_from_the_enlist_data(merged):
    factions = {c.faction for c in merged.cards if c.faction}
    assert {"USMC", "Desert Scorpions", "Blutkreuz Korps", "Luftwaffe",
            "Neue Deutsches Afrika Korps", "Spetsnaz", "Red Guard",
            "People's Liberation Army"} <= factions
    by = {c.name: c for c in merged.cards}
    assert by["Controller (PLA)"].faction == "People's Liberation Army"
    assert by["Controller"].faction == ""  # a bloc card


def test_conflicts_keep_both_values_and_the_rule_picks_enlist(merged):
    by = {c.name: c for c in merged.cards}
    ctrl = by["Controller"]
    (cf,) = [x for x in ctrl.conflicts if x.field == "ap"]
    assert (cf.used, cf.other) == ("12", "8") and ctrl.ap == 12
    assert "units.jsonl" in cf.used_source and "SSU.cat" in cf.other_source
    gorilla = by["Gorilla Squad"]
    assert gorilla.weapons[0].cell("V1").text == "2/3"
    assert len(merged.report.conflicts) >= 50


def test_prefer_battlescribe_takes_the_other_value():
    m = D.merge_dust1947(BS, EN, prefer="battlescribe")
    by = {c.name: c for c in m.cards}
    ctrl = by["Controller"]
    (cf,) = [x for x in ctrl.conflicts if x.field == "ap"]
    assert ctrl.ap == 8 and (cf.used, cf.other) == ("8", "12")
    assert by["Gorilla Squad"].weapons[0].cell("V1").text == "2/2"
    with pytest.raises(DustsimError, match="--prefer"):
        D.merge_dust1947(BS, EN, prefer="newest")


def test_errata_are_applied_recorded_and_checked(merged, tmp_path):
    by = {c.name: c for c in merged.cards}
    dev = by["Devastator"]
    assert dev.damage_track == 10 and any("damage_track 1 -> 10" in e for e in dev.errata)
    assert not [x for x in dev.conflicts if x.field == "damage_track"]
    mob = by["Möbelwagen Ausf. B"]
    assert mob.armour == "V3" and (mob.move, mob.march_move) == (2, 4)
    assert len(merged.report.errata) == len(D.load_errata())
    stale = tmp_path / "errata.toml"
    stale.write_text('schema = 1\n[[erratum]]\nunit = "Devastator"\nside = "battlescribe"\n'
                     'field = "damage_track"\nwas = "3"\nvalue = "10"\nsource = "x"\n',
                     encoding="utf-8")
    with pytest.raises(DustsimError, match="erratum expects '3'") as e:
        D.merge_dust1947(BS, EN, errata=stale)
    assert "errata.toml" in str(e.value) and "\n" not in str(e.value)


def test_odd_source_cells_stay_unknown_with_a_flag():
    cell, flag = convert_cell("1/3K")
    assert cell is UNKNOWN and "1/3K" in flag
    assert convert_cell("B/AK")[0].text == "*/#"
    assert convert_cell("DB/2")[0].text == "**/2"
    assert convert_cell("3/1") == (convert_cell("3/1")[0], None)


def test_no_track_zero_or_impossible_armour_is_written(merged):
    for c in merged.cards:
        assert c.damage_track is None or c.damage_track >= 1, c.name
        if c.armour:
            letter, v = c.armour[0], int(c.armour[1:])
            assert 1 <= v <= {"I": 4, "V": 7, "A": 3}[letter], c.name


def test_captured_copies_become_capturable_originals_and_differences_are_flagged(merged):
    by = {c.name: c for c in merged.cards}
    red_fury = by["Red Fury"]
    assert red_fury.capturable
    assert any("captured copy" in f and "differs" in f for f in red_fury.flags)
    assert any("Captured_Vehicles.cat" in s for s in red_fury.sources)


def test_sourced_squad_size_overrides(tmp_path):
    f = tmp_path / "models.toml"
    f.write_text('schema = 1\n[[squad]]\nunit = "Ranger Combat Squad"\nmodels = 6\n'
                 'models_source = "card"\nsource = "test card"\n', encoding="utf-8")
    m = D.merge_dust1947(BS, EN, models=f)
    c = next(c for c in m.cards if c.name == "Ranger Combat Squad")
    assert (c.models, c.models_source) == (6, "card")
    f.write_text('schema = 1\n[[squad]]\nunit = "Pounder"\nmodels = 6\n'
                 'models_source = "card"\nsource = "x"\n', encoding="utf-8")
    with pytest.raises(DustsimError, match="not a squad"):
        D.merge_dust1947(BS, EN, models=f)


def test_enlist_side_alone(tmp_path, capsys):
    from dustsim.cli.shell import main
    from dustsim.data.cards import validate

    out = tmp_path / "en"
    assert main(["import", "enlist", str(EN), "-o", str(out)]) == 0
    assert "536 cards" in capsys.readouterr().out
    cards, problems = validate([out])
    assert not problems and len(cards) == 536
    assert main(["import", "enlist", str(tmp_path / "nowhere"), "-o", str(tmp_path / "x")]) == 2
    assert not (tmp_path / "x").exists()
