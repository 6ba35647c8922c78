"""BattleScribe and documented-facts importers: reproducibility, cross-checks, edge cases."""

import csv
import re
from collections import defaultdict

import pytest
from conftest import SHARED, UNIT_DATA, needs_shared

from dustsim.data.cards import COLUMNS, parse_unit_file
from dustsim.data.importers.battlescribe import import_battlescribe, infer_models
from dustsim.data.importers.facts import import_facts
from dustsim.errors import DustsimError

BS = SHARED / "data" / "bsdata-dust1947"


@pytest.fixture(scope="module")
def bs_import(tmp_path_factory):
    """The BattleScribe side alone, written and re-read (the merged data is checked in
    test_dust1947.py)."""
    texts, report = import_battlescribe([BS])
    tmp = tmp_path_factory.mktemp("bs")
    cards = []
    for name, text in texts.items():
        (tmp / name).write_text(text, encoding="utf-8")
        problems = []
        cards += parse_unit_file(tmp / name, problems)
        assert not problems, problems[:3]
    return texts, report, cards


@needs_shared
def test_battlescribe_import_alone(bs_import):
    texts, report, cards = bs_import
    assert report.cards == sum(text.count("[[card]]") for text in texts.values()) == len(cards)
    assert len(report.unparsed) == 2  # Raketenmann '7/1/' and Falke '*/¤'
    by = {c.name: c for c in cards}
    # a weapon selection without its own profile takes the catalogue's profile by name
    punch = [w for w in by["Wilfried"].weapons if w.name == "Deadly Punch"]
    assert punch and "no profile in BattleScribe" in " ".join(punch[0].flags)
    gloves = by["Zombie Squad"].weapons
    assert [w.name for w in gloves] == ["Panzer Gloves"] and gloves[0].count == 5
    assert by["Zombie Squad"].models == 5
    # a skill keeps its parameter
    assert "Expert - Flamethrower" in by["Stefan"].skills


@needs_shared
def test_facts_import_reproduces_bundled_files():
    texts, _, _ = import_facts(SHARED / "data" / "unit-facts.csv")
    for rel, text in texts.items():
        assert (UNIT_DATA / rel).read_text(encoding="utf-8") == text, rel


@needs_shared
def test_battlescribe_cards_agree_with_documented_facts(bs_import):
    """Every AP, armour, damage track and cell of unit-facts.csv (BSData rows) matches."""
    cards = {(c.name.removesuffix(" (Captured)"), "Captured" in c.bloc): c
             for c in bs_import[2]}
    checked = defaultdict(int)
    with (SHARED / "data" / "unit-facts.csv").open(encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            if not r["source"].startswith("github:BSData") or "attachment for" in r["unit"]:
                continue
            c = cards.get((r["unit"], "Captured_Vehicles" in r["source"]))
            assert c is not None, r["unit"]
            f, v = r["field"], r["value"]
            if f == "ap":
                assert c.ap == float(v), (c.name, v)
            elif f == "armour":  # armour of another kind of unit is kept unknown, flagged
                assert c.armour == v or (c.armour is None and any(
                    fl.startswith(f"armour {v.replace('I', 'S')} impossible") for fl in c.flags)
                ), c.name
            elif f == "damage_capacity":
                assert c.damage_track == int(v), c.name
            elif f == "weapon":
                m = re.search(r"\[(.*)\]$", r["weapon"])
                wname = " ".join((m.group(1) if m else r["weapon"]).split())
                ws = [w for w in c.weapons if w.name == wname]
                assert ws, (c.name, wname)
                want = v.replace("2blast", "**").replace("blast", "*").replace("/N", "/#")
                got = {w.cell(r["column"]).text for w in ws}
                assert want in got or (want in ("7/1/", "*/¤") and "?" in got), \
                    (c.name, wname, r["column"], want, got)
            else:
                continue
            checked[f] += 1
    assert checked["weapon"] > 10000 and checked["ap"] > 350


def test_counts(all_cards):
    d47 = [c for c in all_cards if c.edition == "dust-1947"]
    assert 530 <= len(d47) <= 560
    assert {c.bloc for c in d47} == {"Allies", "Axis", "SSU", "Mercenaries", "Mythos", "IJN"}
    squads = [c for c in d47 if c.kind == "squad"]
    assert all(c.models_source == "inferred" for c in squads if c.models is not None)
    assert all(c.sources for c in d47)


# -- edge cases on small synthetic documents --------------------------------------------------
GST = """<?xml version="1.0" encoding="UTF-8"?>
<gameSystem id="gs" name="T" revision="1" xmlns="http://www.battlescribe.net/schema/gameSystemSchema">
 <profileTypes>
  <profileType id="pw" name="Weapons"/><profileType id="pi" name="Infantry"/>
  <profileType id="pv" name="Vehicle"/><profileType id="ph" name="Heroes"/>
 </profileTypes>
 <sharedRules><rule id="rl" name="Laser"><description>long text never copied</description></rule>
 <rule id="rdr" name="Damage Resilient"/></sharedRules>
</gameSystem>"""


def weapon_profile(pid, name, cells):
    chars = "".join(f'<characteristic name="{k}" value="{v}"/>' for k, v in
                    zip(["Range", "S1", "S2", "S3", "S4", "V1", "V2", "V3", "V4", "V5", "V6",
                         "V7", "A1", "A2", "A3"], cells, strict=True))
    return (f'<profile id="{pid}" name="{name}" profileTypeId="pw">'
            f"<characteristics>{chars}</characteristics></profile>")


def cat(entries, shared=""):
    return ('<?xml version="1.0" encoding="UTF-8"?><catalogue id="c" name="Testland" '
            'revision="3" gameSystemId="gs" '
            'xmlns="http://www.battlescribe.net/schema/catalogueSchema">'
            f"<selectionEntries>{entries}</selectionEntries>{shared}</catalogue>")


def weapon_entry(eid, profile_id, n, rule=None, cost=0):
    rule_link = f'<infoLink id="l{eid}r" targetId="{rule}" type="rule"/>' if rule else ""
    return (f'<selectionEntry id="{eid}" name="w" type="upgrade"><infoLinks>'
            f'<infoLink id="l{eid}" targetId="{profile_id}" type="profile"/>{rule_link}'
            f'</infoLinks><constraints>'
            f'<constraint field="selections" scope="parent" value="{n}.0" type="min"/>'
            f'<constraint field="selections" scope="parent" value="{n}.0" type="max"/>'
            f'</constraints><costs><cost name="pts" value="{cost}"/></costs></selectionEntry>')


def squad(name, weapons, armour="S2", cost=7):
    return (f'<selectionEntry id="u{name}" name="{name}" type="unit"><profiles>'
            f'<profile id="p{name}" name="{name}" profileTypeId="pi"><characteristics>'
            f'<characteristic name="Move" value="2"/><characteristic name="March Move" value="4"/>'
            f'<characteristic name="Armour" value="{armour}"/></characteristics></profile>'
            f"</profiles><selectionEntries>{weapons}</selectionEntries>"
            f'<costs><cost name="pts" value="{cost}"/></costs></selectionEntry>')


def run(tmp_path, catalogue):
    (tmp_path / "t.gst").write_text(GST, encoding="utf-8")
    (tmp_path / "t.cat").write_text(catalogue, encoding="utf-8")
    texts, report = import_battlescribe([tmp_path / "t.gst", tmp_path / "t.cat"])
    cards = []
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        cards += parse_unit_file(tmp_path / name, [])
    return cards, report


CELLS = ["6", "3/1", "3/1", "2/1", "", "1/2", "", "", "7/1/", "", "", "", "", "", ""]


def test_squad_import_blank_and_malformed_cells(tmp_path):
    shared = f"<sharedProfiles>{weapon_profile('wp', 'Laser Rifle', CELLS)}</sharedProfiles>"
    cards, report = run(tmp_path, cat(squad("Sq", weapon_entry("e1", "wp", 4, rule="rl")),
                                      shared))
    (c,) = cards
    assert c.kind == "squad" and c.armour == "I2" and c.ap == 7
    assert c.models == 4 and c.models_source == "inferred"
    w = c.weapons[0]
    assert w.count == 4 and w.keywords == ("laser",)
    assert w.cell("I4").text == "-" and w.cell("V4").text == "?"
    assert report.unparsed == [
        "t.cat: unit 'Sq': weapon 'Laser Rifle': column V4: cell '7/1/' not understood, "
        "kept as '?'"]
    assert report.blank_cells == 9
    assert "long text" not in (tmp_path / "t.toml").read_text(encoding="utf-8")


def test_malformed_xml_names_file(tmp_path):
    (tmp_path / "t.gst").write_text(GST, encoding="utf-8")
    (tmp_path / "bad.cat").write_text("<catalogue><selectionEntries>", encoding="utf-8")
    with pytest.raises(DustsimError, match=r"bad\.cat.*malformed XML"):
        import_battlescribe([tmp_path / "t.gst", tmp_path / "bad.cat"])


def test_cyclic_entry_links_are_refused(tmp_path):
    loop = ('<sharedSelectionEntries><selectionEntry id="a" name="A" type="upgrade">'
            '<entryLinks><entryLink id="x" targetId="a" type="selectionEntry"/></entryLinks>'
            "</selectionEntry></sharedSelectionEntries>")
    unit = squad("Sq", '<selectionEntry id="k" name="k" type="upgrade"/>').replace(
        "</selectionEntries>", "</selectionEntries><entryLinks><entryLink id='y' "
        "targetId='a' type='selectionEntry'/></entryLinks>", 1)
    cards, _ = run(tmp_path, cat(unit, loop))
    assert len(cards) == 1  # the loop is never followed into a weapon; no hang, no crash


def test_bad_armour_is_a_one_line_error(tmp_path):
    with pytest.raises(DustsimError, match=r"t\.cat line \d+.*unit 'Sq'.*Armour"):
        run(tmp_path, cat(squad("Sq", "", armour="Z9")))


def test_non_battlescribe_input(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("hello", encoding="utf-8")
    with pytest.raises(DustsimError, match="not a BattleScribe"):
        import_battlescribe([p])
    with pytest.raises(DustsimError, match="no BattleScribe files"):
        import_battlescribe([])


def test_infer_models_rules():
    from dustsim.data.cards import CANNOT, Weapon

    line = (CANNOT,) * len(COLUMNS)
    ws = [Weapon("Machinegun", line, 1, "6"), Weapon("BAR", line, 4, "6"),
          Weapon("Molotov Cocktail", line, 5, "2"), Weapon("Knife", line, 3, "C")]
    assert infer_models(ws) == 5
    assert infer_models([Weapon("Phaser", line, 3, "6"), Weapon("Punch", line, 3, "C")]) == 3
    assert infer_models([]) is None


def _w(name, count, rng="6", keywords=()):
    from dustsim.data.cards import CANNOT, Weapon

    return Weapon(name, (CANNOT,) * len(COLUMNS), count, rng, keywords=tuple(keywords))


#: Squads as printed (weapon name, count, range, keywords) and the size the rule must give.
#: Each row exercises one clause of the rule (issue 12, item 3).
SQUADS = [
    # a Bazooka (rule "Grenade": no cover save in 1947, seed 003 L3272-3274) is its
    # carrier's weapon: 4 rifles + 1 Bazooka = 5; under-barrel launchers ride on the rifles
    ("Ranger Combat Squad", [("Automatic Rifle", 4, "6", ()), ("Bazooka", 1, "4", ("grenade",)),
                             ("Under-Barrel Grenade Launcher", 4, "3", ("grenade",))], 5),
    # an automatic grenade launcher is its carrier's weapon too
    ("AGL squad", [("Assault Rifle", 4, "6", ()), ("Auto Grenade Launcher", 1, "6",
                                                   ("grenade",))], 5),
    # a lone officer's pistol is his weapon
    ("Command Squad", [("Pistol", 1, "2", ()), ("Submachine Gun", 3, "3", ()),
                       ("Machinegun", 1, "6", ())], 5),
    # a Panzerfaust or RPG is carried by a rifleman: not another model (2013 seed L360)
    ("Sturmgrenadier Assault Squad", [("Assault Rifle", 4, "6", ()), ("Submachine Gun", 1, "3", ()),
                                      ("Panzerfaust", 2, "2", ("grenade",))], 5),
    ("RPG squad", [("Submachine Gun", 5, "3", ()), ("RPG", 1, "4", ("grenade",))], 5),
    # thrown grenades and close-combat weapons are carried beside the main weapon
    ("Grenades", [("Rifle", 4, "6", ()), ("Hand Grenades", 4, "2", ("grenade",)),
                  ("Knife", 4, "C", ())], 4),
    # a per-soldier close-combat weapon is a lower bound
    ("Zombie Squad", [("Panzer Gloves", 5, "C", ())], 5),
]


@pytest.mark.parametrize("name,weapons,size", SQUADS, ids=[s[0] for s in SQUADS])
def test_squad_size_rule_on_a_table_of_squads(name, weapons, size):
    assert infer_models([_w(*w) for w in weapons]) == size


# -- fuzzing: mutated real catalogues and random documents ---------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

MUTATIONS = st.sampled_from(["truncate", "delete", "number", "drop-id", "retarget", "encoding",
                             "duplicate-id", "garbage", "declared-encoding", "deep", "armour"])


def _mutate(text: str, kind: str, data) -> bytes:
    if kind == "truncate":
        return text[:data.draw(st.integers(0, len(text)))].encode("utf-8")
    if kind == "delete":
        i = data.draw(st.integers(0, len(text) - 1))
        return (text[:i] + text[i + data.draw(st.integers(1, 400)):]).encode("utf-8")
    if kind == "number":  # absurd numbers in characteristics and costs
        big = data.draw(st.sampled_from(["99999999999999999999", "-7", "1e308", "nan", "",
                                         "3/1/1", "½", "0", "٣", "３"]))
        return re.sub(r'(value=")[0-9.]+(")', lambda m: m.group(1) + big + m.group(2),
                      text, count=data.draw(st.integers(1, 50))).encode("utf-8")
    if kind == "drop-id":
        return re.sub(r' id="[^"]*"', "", text, count=data.draw(st.integers(1, 200))
                      ).encode("utf-8")
    if kind == "retarget":  # links to ids that do not exist
        return re.sub(r'targetId="[^"]*"', 'targetId="nowhere"', text,
                      count=data.draw(st.integers(1, 100))).encode("utf-8")
    if kind == "duplicate-id":
        ids = re.findall(r' id="([^"]*)"', text)
        a = data.draw(st.sampled_from(ids))
        return text.replace(f' id="{ids[0]}"', f' id="{a}"').encode("utf-8")
    if kind == "declared-encoding":  # an encoding expat does not know
        enc = data.draw(st.sampled_from(["klingon", "utf-7", "x-unknown", ""]))
        return text.replace('encoding="UTF-8"', f'encoding="{enc}"', 1).encode("utf-8")
    if kind == "deep":  # nesting far beyond any catalogue
        n = data.draw(st.integers(50, 5000))
        i = text.index("<selectionEntries>")
        return (text[:i] + "<x>" * n + "</x>" * n + text[i:]).encode("utf-8")
    if kind == "armour":  # armour and tracks the game cannot have
        bad = data.draw(st.sampled_from(["S5", "S6", "S7", "A4", "V8", "S٣", "0", "٣"]))
        return re.sub(r'(name="(?:Armour|Damage Track)" value=")[^"]*(")',
                      lambda m: m.group(1) + bad + m.group(2), text,
                      count=data.draw(st.integers(1, 20))).encode("utf-8")
    if kind == "encoding":
        return text.encode(data.draw(st.sampled_from(["utf-16", "latin-1", "cp1252"])),
                           errors="replace")
    return data.draw(st.binary(max_size=2000))


@needs_shared
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(MUTATIONS, st.data())
def test_fuzz_mutated_catalogue_is_imported_or_refused_in_one_line(tmp_path_factory, kind,
                                                                    data):
    tmp = tmp_path_factory.mktemp("fuzz")
    (tmp / "Dust_1947.gst").write_bytes((BS / "Dust_1947.gst").read_bytes())
    text = (BS / "Mythos.cat").read_text(encoding="utf-8")
    (tmp / "Mythos.cat").write_bytes(_mutate(text, kind, data))
    _imported_or_refused(tmp, tmp / "Mythos.cat")


def _imported_or_refused(tmp, cat) -> None:
    """The importer refuses in one line naming the file, or writes valid unit data."""
    try:
        texts, _ = import_battlescribe([tmp / "Dust_1947.gst", cat])
    except DustsimError as exc:
        msg = str(exc)
        assert "\n" not in msg and cat.name in msg
        return
    for name, t in texts.items():
        (tmp / name).write_text(t, encoding="utf-8")
        problems = []
        parse_unit_file(tmp / name, problems)
        assert not problems, problems[0]


@needs_shared
def test_cli_import_of_a_broken_catalogue_writes_nothing(tmp_path):
    from dustsim.cli.shell import main

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "Dust_1947.gst").write_bytes((BS / "Dust_1947.gst").read_bytes())
    (tmp_path / "in" / "Mythos.cat").write_bytes((BS / "Mythos.cat").read_bytes())
    (tmp_path / "in" / "Zz.cat").write_bytes(b"<catalogue id='x'><oops")
    out = tmp_path / "out"
    assert main(["import", "battlescribe", str(tmp_path / "in"), "-o", str(out)]) == 2
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["in"]


# random well-formed documents in BattleScribe's vocabulary: dangling and cyclic links,
# duplicate ids, absurd values, units without profiles
_TAGS = ["selectionEntries", "selectionEntry", "selectionEntryGroups", "selectionEntryGroup",
         "entryLinks", "entryLink", "infoLinks", "infoLink", "profiles", "profile",
         "characteristics", "characteristic", "costs", "cost", "categoryLinks",
         "categoryLink", "rules", "rule", "sharedSelectionEntries", "sharedProfiles"]
_IDS = ["a", "b", "c", "d", "e"]
_PROFILE_TYPES = ["6c4a1962-9409-6e62-9ea7-e81c4935e4fa", "41b56042-fab9-47e0-0812-0af86fc4caba",
                  "cdc60b3a-77a5-d5f7-bfbc-40fa73d6902b", "d4bd9345-c104-05b5-dba6-bf84d1163625",
                  "51c4cbbb-feba-838a-7356-102e85a51f40", "1501a0c7-39e2-22f9-345a-06ffa5c8ac55",
                  "4c7e5a31-9ebb-047b-c784-ddb4ae29b228", "none"]  # Dust_1947.gst's
_ATTRS = st.fixed_dictionaries({}, optional={
    "profileTypeId": st.sampled_from(_PROFILE_TYPES),
    "id": st.sampled_from(_IDS), "targetId": st.sampled_from([*_IDS, "nowhere"]),
    "name": st.sampled_from(["Armour", "Damage Track", "Move", "March Move", "Faction",
                             "Mount", "Pounder", "Rifle", "", "S1", "S2", "V4", "V7", "A3",
                             "Range", "Limited Ammo", "Laser", "Sniper", "Small Vehicle",
                             "Damage Resiliant", "Flux Capacitor"]),
    "type": st.sampled_from(["unit", "model", "upgrade", "profile", "selectionEntry",
                             "rule"]),
    "typeName": st.sampled_from(["Unit", "Weapon", "Vehicle", "Soldier", "Hero"]),
    "value": st.sampled_from(["2/1", "*/1", "1/#", "-", "7/1/", "99999999999999999", "-3",
                              "1e308", "nan", "½", "", "S3", "V4", "A2", "I2", "6", "C",
                              "4-12", "3", "S5", "S7", "A4", "0", "٣", "٣/١", "41/1", "3/0"]),
})


def _xml_node(depth):
    children = st.lists(st.deferred(lambda: _xml_node(depth + 1)), max_size=4) \
        if depth < 5 else st.just([])
    return st.tuples(st.sampled_from(_TAGS), _ATTRS, children,
                     st.sampled_from(["", "2/1", "V4", "12", "&amp;", "é"]))


_VALUES = st.sampled_from(["2/1", "*/1", "1/#", "-", "", "7/1/", "99999999999", "-3", "nan",
                           "½", "S3", "V4", "A2", "1", "3", "6", "C", "4-12", "U", "0", "٣",
                           "S5", "S7", "٣/١", "41/1", "3/0"])
_COLS = ["S1", "S2", "S3", "S4", "V1", "V2", "V3", "V4", "V5", "V6", "V7", "A1", "A2", "A3"]


def _chars(names, values=_VALUES, first=()):
    return st.tuples(*(st.tuples(st.just(k), v) for k, v in first),
                     st.lists(st.tuples(st.sampled_from(names), values),
                              max_size=len(names) + 2)).map(
        lambda kv: ("characteristics", {}, [("characteristic", {"name": k, "value": v}, [], "")
                                            for k, v in [*kv[:-1], *kv[-1]]], ""))


def _profile(types, names, values=_VALUES, first=()):
    return st.tuples(st.just("profile"),
                     st.fixed_dictionaries({"profileTypeId": st.sampled_from(types),
                                            "name": st.sampled_from(["P", "Gun", ""])}),
                     _chars(names, values, first).map(lambda c: [c]), st.just(""))


_WEAPON = st.tuples(
    st.just("selectionEntry"),
    st.fixed_dictionaries({"type": st.sampled_from(["upgrade", "model"]),
                           "name": st.sampled_from(["Rifle", "Laser Gun", "Gun"])},
                          optional={"id": st.sampled_from(_IDS)}),
    st.lists(_profile([_PROFILE_TYPES[0], _PROFILE_TYPES[4]], [*_COLS, "Range", "Mount"],
                      st.sampled_from(["2/1", "*/1", "1/#", "-", "", "7/1/", "999/1",
                                       "nan", "4", "C", "U", "2-U", "٣/١", "41/1", "3/0",
                                       "２/1", "3/21"])),
             max_size=2).map(lambda ps: [("profiles", {}, ps, "")]),
    st.just(""))


def _unit():
    return st.tuples(
        st.just("selectionEntry"),
        st.fixed_dictionaries({"type": st.sampled_from(["unit", "model", "upgrade"]),
                               "name": st.sampled_from(["Pounder", "Squad", "Hero", "X"])},
                              optional={"id": st.sampled_from(_IDS)}),
        st.tuples(
            st.lists(_profile(_PROFILE_TYPES[1:4] + _PROFILE_TYPES[5:],
                              ["Damage Track", "Move", "March Move", "Faction"],
                              first=[("Armour", st.sampled_from(["S1", "S4", "V4", "V7", "A2",
                                                                 "V9", "", "S5", "S7", "A4",
                                                                 "S٣"]))]),
                     max_size=2),
            st.lists(_WEAPON, max_size=4),
            st.lists(st.sampled_from(["1", "7", "-2", "1e9", "x", ""]), max_size=2),
            st.lists(_xml_node(3), max_size=2),
        ).map(lambda t: [("profiles", {}, t[0], ""), ("selectionEntries", {}, t[1], ""),
                         ("costs", {}, [("cost", {"name": "AP", "value": v}, [], "")
                                        for v in t[2]], ""), *t[3]]),
        st.just(""))


def _render(node) -> str:
    from xml.sax.saxutils import quoteattr

    tag, attrs, children, text = node
    a = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
    return f"<{tag}{a}>{text}{''.join(_render(c) for c in children)}</{tag}>"


@needs_shared
@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(_unit(), min_size=1, max_size=4).map(
    lambda us: [("selectionEntries", {}, us, "")]) | st.lists(_xml_node(1), max_size=5))
def test_fuzz_random_documents(tmp_path_factory, body):
    """Random catalogues beside the real game system (its profile types): the importer
    builds valid cards from them or refuses them in one line naming the file."""
    tmp = tmp_path_factory.mktemp("doc")
    (tmp / "Dust_1947.gst").write_bytes((BS / "Dust_1947.gst").read_bytes())
    path = tmp / "Random.cat"
    path.write_text("<?xml version='1.0' encoding='UTF-8'?><catalogue id='r' name='Random'>"
                    + "".join(_render(n) for n in body) + "</catalogue>", encoding="utf-8")
    _imported_or_refused(tmp, path)
