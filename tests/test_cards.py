"""Cell notation, the TOML format, and the validator (with property-based fuzzing)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dustsim.data.cards import (
    COLUMNS,
    card_to_dict,
    dumps_unit_file,
    parse_cell,
    parse_unit_file,
    validate,
)

LINE = '["3/1", "3/1", "2/1", "1/1", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"]'


def test_cells():
    c = parse_cell("3/1")
    assert (c.dice, c.damage, c.blast, c.auto_kill) == (3, 1, 0, False)
    assert parse_cell("*/1").blast == 1 and parse_cell("*/1").dice is None
    assert parse_cell("**/2").blast == 2
    for t in ("2/#", "2/N", "2/☠"):
        c = parse_cell(t)
        assert c.auto_kill and c.text == "2/#"
    assert parse_cell("-").can_damage is False
    assert parse_cell("?").known is False
    assert parse_cell("3/?").damage is None and not parse_cell("3/?").usable
    assert parse_cell("blast/1").text == "*/1" and parse_cell("2blast/1").text == "**/1"
    for bad in ("7/1/", "*/¤", "3", "/1", "a/b", "0/1", "3/-1", ""):
        with pytest.raises(ValueError):
            parse_cell(bad)


def write(tmp_path, body, name="u.toml"):
    p = tmp_path / name
    p.write_text('schema = 1\nedition = "dust-1947"\nbloc = "Allies"\n' + body, encoding="utf-8")
    return p


def card(name="Test Squad", extra="", weapon=None):
    w = weapon if weapon is not None else (
        f'[[card.weapon]]\nname = "Rifle"\ncount = 3\nrange = "6"\nline = {LINE}\n')
    return (f'[[card]]\nname = "{name}"\nkind = "squad"\narmour = "I2"\nmodels = 3\n'
            f'models_source = "card"\nap = 10\nsource = "test"\n{extra}\n{w}')


def problems_of(tmp_path, body):
    _, problems = validate([write(tmp_path, body)])
    return problems


def test_valid_file_round_trips(tmp_path):
    cards, problems = validate([write(tmp_path, card())])
    assert problems == []
    (c,) = cards
    assert c.weapons[0].count == 3 and c.complete
    text = dumps_unit_file(cards, {"edition": "dust-1947", "bloc": "Allies"})
    again = parse_unit_file(write(tmp_path, text.split("\n", 3)[3], "b.toml"), [])
    assert card_to_dict(again[0]) == card_to_dict(c)


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        (card(weapon=f'[[card.weapon]]\nname = "R"\nkeywords = ["lazer"]\nline = {LINE}\n'),
         "keywords", "unknown weapon keyword"),
        (card(weapon='[[card.weapon]]\nname = "R"\nline = ["7/1/", "-", "-", "-", "-", "-",'
                     ' "-", "-", "-", "-", "-", "-", "-", "-"]\n'), "line.I1", "7/1/"),
        (card(extra='armour = "V9"').replace('armour = "I2"\n', ""), "armour", "V9"),
        (card() + card(), "name", "duplicate"),
        (card().replace("models = 3", "models = 0"), "models", "from 1 to 50"),
        (card(weapon='[[card.weapon]]\nname = "R"\nline = ["3/1"]\n'), "line", "14 cells"),
        ("[[card]]\nkind = 'squad'\n", "name", "missing"),
        (card().replace('kind = "squad"', 'kind = "robot"'), "kind", "robot"),
        (card(weapon=f'[[card.weapon]]\nname = "R"\nrange = "far"\nline = {LINE}\n'),
         "range", "far"),
    ],
)
def test_validator_names_file_unit_and_field(tmp_path, body, field, words):
    problems = problems_of(tmp_path, body)
    assert problems, "expected a problem"
    msg = str(problems[0])
    assert problems[0].field == field
    assert words in msg and "u.toml" in msg
    assert "\n" not in msg


def test_malformed_toml_and_encoding(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("[[card]\nname=", encoding="utf-8")
    _, problems = validate([p])
    assert problems[0].field == "toml" and "bad.toml" in str(problems[0])
    q = tmp_path / "latin.toml"
    q.write_bytes('name = "Müller"'.encode("latin-1"))
    _, problems = validate([q])
    assert problems[0].field == "encoding"


def test_bundled_data_is_valid(all_cards):
    _, problems = validate([__import__("conftest").UNIT_DATA])
    assert problems == []
    eds = {c.edition for c in all_cards}
    assert {"dust-1947", "tactics-2009", "tactics-2013", "ffg-era"} <= eds
    for c in all_cards:
        assert c.source, c.name
        for w in c.weapons:
            assert len(w.line) == len(COLUMNS)


cell_text = st.one_of(
    st.sampled_from(["3/1", "*/1", "**/2", "2/#", "-", "?", "1/N", "7/1/", "x", "", "0/0",
                     "٣/١", "３/1", "41/1", "3/0", "3/21", "99999999999999999999/1"]),
    st.text(max_size=6),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(cell_text, min_size=0, max_size=16), st.text(max_size=12),
       st.one_of(st.integers(-3, 30), st.integers(-2**70, 2**70), st.text(max_size=3)))
def test_fuzz_weapon_lines_never_crash(tmp_path_factory, cells, name, models):
    import json

    tmp = tmp_path_factory.mktemp("fz")
    body = (f"[[card]]\nname = {json.dumps(name)}\nkind = \"squad\"\narmour = \"I2\"\n"
            f"models = {json.dumps(models)}\nsource = \"x\"\n[[card.weapon]]\nname = \"W\"\n"
            f"line = {json.dumps(cells, ensure_ascii=False)}\n")
    cards, problems = validate([write(tmp, body)])
    assert len(cards) + len({p.unit for p in problems}) >= 1
    for p in problems:
        assert "\n" not in str(p)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("fb")
    p = tmp / "r.toml"
    p.write_bytes(data)
    _cards, problems = validate([p])
    for pr in problems:
        assert "r.toml" in str(pr)


def test_mutated_real_file(tmp_path):
    """Mutate a real unit file line by line: each mutation is either refused in one line
    naming the file, or (a comment, a header) leaves exactly the original cards."""
    from conftest import UNIT_DATA

    from dustsim.data.cards import card_to_dict

    def dicts(cards):
        return [card_to_dict(c) for c in cards]

    src = UNIT_DATA / "dust-1947" / "mythos.toml"
    original, problems = validate([src])
    assert original and not problems
    text = src.read_text(encoding="utf-8")
    lines = text.splitlines()
    refused = 0
    for i in range(0, len(lines), 7):
        mutated = lines.copy()
        mutated[i] = mutated[i].replace('"', "").replace("=", "= 9e999 #", 1)
        p = tmp_path / f"m{i}.toml"
        p.write_text("\n".join(mutated), encoding="utf-8")
        cards, problems = validate([p])
        if mutated[i] == lines[i] or lines[i].lstrip().startswith("#"):
            assert not problems and dicts(cards) == dicts(original), i
        elif problems:
            refused += 1
            assert all(f"m{i}.toml" in str(pr) and "\n" not in str(pr) for pr in problems)
        else:  # the mutation left valid TOML: it must not have changed a card silently
            assert dicts(cards) == dicts(original), (i, lines[i])
    assert refused > len(lines) // 14
