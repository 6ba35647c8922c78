"""Property tests per input format (issue 27): unknown keys, wrong types, huge numbers and
bad encodings give one :class:`DustsimError` line (exit 2 at the command line), never another
exception (exit 1, "a bug"). Few examples each (derandomised in CI by tests/conftest.py)."""

from __future__ import annotations

import copy
import csv
import io
import json
import tempfile
from pathlib import Path

import pytest
import tomli_w
from conftest import SHARED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dustsim.errors import DustsimError

FEW = settings(max_examples=12, suppress_health_check=list(HealthCheck), deadline=None)
CORPUS = Path(__file__).parent / "fuzz"

# -- shared strategies ---------------------------------------------------------------------------
#: a key no format knows (letters, so TOML/JSON/CSV can carry it)
unknown_key = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=3, max_size=12).map(
    lambda s: "zz" + s)
huge = st.integers(min_value=10**12, max_value=10**300) | st.integers(max_value=-10**12,
                                                                      min_value=-10**300)
wrong = st.one_of(huge, st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                  st.lists(st.integers(), max_size=3), st.dictionaries(unknown_key,
                                                                       st.integers(), max_size=2))


def _one_line(exc: DustsimError, name: str) -> None:
    msg = str(exc)
    assert "\n" not in msg and name in msg, msg


def _bad_bytes(text: str, how: int) -> bytes:
    """Text made undecodable as UTF-8: a stray byte, Latin-1, UTF-16."""
    if how == 0:
        return text.encode() + b"\xff\xfe\x80"
    if how == 1:
        return (text + "é").encode("latin-1", "replace")
    return text.encode("utf-16")


# -- unit TOML -------------------------------------------------------------------------------------
UNIT = {"schema": 1, "edition": "dust-1947", "card": [{
    "name": "X", "kind": "squad", "armour": "I2", "ap": 7, "models": 3,
    "models_source": "card", "move": 1, "march_move": 2, "skills": ["Brave"], "source": "f",
    "weapon": [{"name": "Gun", "range": "6", "count": 1,
                "line": ["3/1"] + ["-"] * 13}]}]}
UNIT_INTS = ("ap", "models", "move", "march_move")


def _unit_problems(doc_or_bytes) -> list:
    from dustsim.data.cards import parse_unit_file

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "u.toml"
        data = doc_or_bytes if isinstance(doc_or_bytes, bytes) else \
            tomli_w.dumps(doc_or_bytes).encode()
        f.write_bytes(data)
        problems: list = []
        parse_unit_file(f, problems)
    for p in problems:
        assert "\n" not in str(p) and "u.toml" in str(p)
    return problems


def test_unit_base_is_valid():
    assert not _unit_problems(UNIT)


@FEW
@given(key=unknown_key, level=st.sampled_from(["file", "card", "weapon"]))
def test_unit_unknown_key(key, level):
    doc = copy.deepcopy(UNIT)
    table = {"file": doc, "card": doc["card"][0], "weapon": doc["card"][0]["weapon"][0]}[level]
    table[key] = 1
    assert any(p.field.endswith(key) for p in _unit_problems(doc))


@FEW
@given(field=st.sampled_from(UNIT_INTS), value=huge)
def test_unit_huge_number(field, value):
    doc = copy.deepcopy(UNIT)
    doc["card"][0][field] = value
    assert _unit_problems(doc)


@FEW
@given(field=st.sampled_from(["name", "kind", "armour", "skills", "weapon", "size", "ap"]),
       value=wrong)
def test_unit_wrong_type(field, value):
    if field == "ap" and isinstance(value, float) and 0 <= value <= 10_000:
        return  # a real cost
    if field in ("skills", "weapon") and value == []:
        return  # no skills, no weapons: a real card
    doc = copy.deepcopy(UNIT)
    doc["card"][0][field] = value
    assert _unit_problems(doc)


@FEW
@given(how=st.integers(0, 2))
def test_unit_bad_encoding(how):
    assert _unit_problems(_bad_bytes(tomli_w.dumps(UNIT), how))


# -- TOML lists and patch files (need the cards) --------------------------------------------
@pytest.fixture(scope="module")
def d47():
    from dustsim.data.cards import load_cards

    return [c for c in load_cards() if c.edition == "dust-1947"]


LIST = {"name": "l", "points": 75, "unit": [{"card": "Pounder", "count": 1}]}


def _list_refused(d47, data: bytes) -> None:
    from dustsim.army.lists import load_list

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "l.toml"
        f.write_bytes(data)
        with pytest.raises(DustsimError) as ei:
            load_list(f, d47)
    _one_line(ei.value, "l.toml")


@FEW
@given(key=unknown_key, level=st.sampled_from(["top", "unit"]), value=wrong, how=st.integers(0, 4))
def test_list_properties(d47, key, level, value, how):
    doc = copy.deepcopy(LIST)
    if how == 0:
        (doc if level == "top" else doc["unit"][0])[key] = 1
    elif how == 1:
        valid = isinstance(value, int | float) and not isinstance(value, bool) and (
            0 < value <= 10_000 if level == "top" else isinstance(value, int) and 1 <= value <= 20)
        (doc if level == "top" else doc["unit"][0])["points" if level == "top" else "count"] \
            = 10**20 if valid else value
    elif how == 2:
        doc["points"] = value if not isinstance(value, float) or value != value or \
            abs(value) > 10_000 or value <= 0 else 10**6
    else:
        _list_refused(d47, _bad_bytes(tomli_w.dumps(doc), how - 2))
        return
    _list_refused(d47, tomli_w.dumps(doc).encode())


def _patch_refused(d47, data: bytes) -> None:
    from dustsim.data.patches import load_patch

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "p.toml"
        f.write_bytes(data)
        with pytest.raises(DustsimError) as ei:
            load_patch(f, d47)
    _one_line(ei.value, "p.toml")


@FEW
@given(key=unknown_key, field=st.sampled_from(["ap", "move", "march_move", "damage_track",
                                               "armour", "skills", "add_skills",
                                               "remove_skills", "cells", "weapon"]),
       value=wrong, how=st.integers(0, 3))
def test_patch_properties(d47, key, field, value, how):
    ch = {"unit": "Pounder"}
    if how == 0:
        ch[key] = 1
    elif how == 1:
        ch[field] = value
    elif how == 2:
        ch["ap" if field != "move" else "move"] = 10**40
    else:
        ch["ap"] = 12
        _patch_refused(d47, _bad_bytes(tomli_w.dumps({"change": [ch]}), 0))
        return
    if how == 1 and field == "ap" and isinstance(value, float) and 0 < value <= 10_000:
        return  # a real cost
    _patch_refused(d47, tomli_w.dumps({"change": [ch]}).encode())


# -- ENLIST JSON --------------------------------------------------------------------------------
ENLIST_UNIT = json.loads((CORPUS / "enlist" / "_base" / "units.jsonl").read_text())


def _enlist_refused(units: bytes) -> None:
    from dustsim.data.importers.enlist import enlist_cards, read_enlist

    with tempfile.TemporaryDirectory() as d:
        base = CORPUS / "enlist" / "_base"
        for n in ("platoons.jsonl", "blocs.jsonl"):
            (Path(d) / n).write_bytes((base / n).read_bytes())
        (Path(d) / "units.jsonl").write_bytes(units)
        with pytest.raises(DustsimError) as ei:
            enlist_cards(read_enlist(d))
    _one_line(ei.value, "units.jsonl")


@FEW
@given(key=unknown_key, field=st.sampled_from(["cost", "move", "armor", "skills", "weapons",
                                               "faction", "capturable", "health"]),
       wfield=st.sampled_from(["count", "range", "specials", "vsInfantry", "ammo"]),
       value=wrong, how=st.integers(0, 4))
def test_enlist_properties(key, field, wfield, value, how):
    if (value == [] and how in (2, 3)) or (how == 2 and field == "capturable"
                                          and isinstance(value, bool)):
        return  # an empty list, a true/false capturable: real values
    u = copy.deepcopy(ENLIST_UNIT)
    if how == 0:
        u[key] = 1
    elif how == 1:
        u["weapons"][0][key] = 1
    elif how == 2:
        u[field] = value if not isinstance(value, int) or isinstance(value, bool) or \
            field in ("capturable", "skills", "weapons", "faction") else 10**20
        if field in ("cost", "move", "armor", "health") and value is None:
            return
    elif how == 3:
        u["weapons"][0][wfield] = value if not (isinstance(value, int) and not isinstance(
            value, bool)) or wfield in ("specials", "vsInfantry") else 10**20
    else:
        _enlist_refused(_bad_bytes(json.dumps(u), 0))
        return
    _enlist_refused((json.dumps(u) + "\n").encode())


# -- facts CSV ------------------------------------------------------------------------------------
FACTS_HEAD = ["source_kind", "source", "edition", "unit", "bloc", "faction", "field", "weapon",
              "weapon_count", "range", "column", "value", "quote_summary"]
FACTS_ROW = ["seed", "f L1", "2013", "Fuzz", "Allies", "", "armour", "", "", "", "", "V3", "q"]


def _facts_csv(head, rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(head)
    w.writerows(rows)
    return buf.getvalue()


@FEW
@given(key=unknown_key, field=st.sampled_from(["models", "damage_capacity", "move", "ap"]),
       number=st.sampled_from(["inf", "nan", "1e309", "٣", "-1", "9" * 400, "1.5", ""]),
       text=st.text(min_size=1, max_size=8), how=st.integers(0, 4))
def test_facts_properties(key, field, number, text, how):
    from dustsim.data.importers.facts import import_facts

    head, row = list(FACTS_HEAD), list(FACTS_ROW)
    if how == 0:
        head.append(key)
        row.append("1")
    elif how == 1:
        row[6], row[11] = field, number
    elif how == 2:
        row[6] = key  # an unknown field
    elif how == 3:
        row[4] = "../" + text  # a bloc that would leave the folder
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "facts.csv"
        text_csv = _facts_csv(head, [row])
        f.write_bytes(_bad_bytes(text_csv, 0) if how == 4 else text_csv.encode())
        with pytest.raises(DustsimError) as ei:
            import_facts(f)
    _one_line(ei.value, "facts.csv")


# -- BattleScribe catalogues and rosters ----------------------------------------------------------
CAT = (CORPUS / "battlescribe" / "cost_nan.cat").read_text(encoding="utf-8")


@FEW
@given(cost=st.sampled_from(["", "inf", "nan", "1e309", "٣", "-3", "9" * 400, "x"]),
       armour=st.text(max_size=4), how=st.integers(0, 2))
def test_catalogue_properties(cost, armour, how):
    from xml.sax.saxutils import quoteattr

    from dustsim.data.importers.battlescribe import import_battlescribe

    text = CAT.replace('value="nan"', f"value={quoteattr(cost)}")
    if how == 1:
        text = CAT.replace('value="nan"', 'value="5"').replace(
            'value="S2"', f"value={quoteattr(armour)}")
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "c.cat"
        f.write_bytes(_bad_bytes(text, 2) if how == 2 else text.encode())
        try:
            import_battlescribe([CORPUS / "battlescribe" / "Fuzz.gst", f])
        except DustsimError as exc:
            _one_line(exc, "c.cat")
            return
    assert how == 1 and armour.strip() in ("S1", "S2", "S3", "S4"), (cost, armour, how)


ROSTER = (CORPUS / "roster" / "number_1_9.ros").read_text(encoding="utf-8")


@pytest.mark.skipif(not (SHARED / "data" / "bsdata-dust1947").is_dir(),
                    reason="needs ../shared/data")
@FEW
@given(value=st.text(max_size=12) | huge.map(str) | st.sampled_from(["inf", "nan", "1e309"]),
       where=st.sampled_from(["number", "limit"]), how=st.integers(0, 1))
def test_roster_properties(value, where, how):
    from xml.sax.saxutils import quoteattr

    from dustsim.army.rosters import read_roster

    if where == "number":
        text = ROSTER.replace('number="1.9"', f"number={quoteattr(value)}")
    else:
        text = ROSTER.replace('number="1.9"', 'number="1"').replace(
            'value="75.0"/></costLimits>', f"value={quoteattr(value)}/></costLimits>")
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "r.ros"
        f.write_bytes(_bad_bytes(text, 2) if how else text.encode())
        try:
            r = read_roster(f)
        except DustsimError as exc:
            _one_line(exc, "r.ros")
            return
    assert not how
    if where == "number":
        assert r.selections[0].count == int(value.strip().split(".")[0] or 1)
    else:
        assert r.points is None or 0 < r.points <= 10_000
