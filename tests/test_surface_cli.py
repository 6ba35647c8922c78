"""What a newcomer trips over on the command line (issue 26): bare `dustsim`, help texts,
--chart and --csv outputs, card search order, readable sentences."""

import csv
import json

import pytest

from dustsim.cli.shell import main


def test_bare_dustsim_prints_the_commands(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for command in ("report", "attack", "duel", "whatif", "cards", "list"):
        assert f"    {command} " in out, command


def test_report_help_documents_edition_seed_engine_with_defaults(capsys):
    with pytest.raises(SystemExit) as e:
        main(["report", "--help"])
    assert e.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--edition EDITION the cards reviewed" in out and "(default: dust-1947)" in out
    assert "--engine {exact,mc} exact:" in out and "(default: exact)" in out
    assert "--seed SEED seed of every" in out and "(default: 0)" in out
    assert "default: 20,000)" in out  # --trials


def test_attack_chart_is_written(tmp_path, capsys):
    out = tmp_path / "pounder.png"
    assert main(["attack", "--unit", "Pounder", "--vs", "Ludwig", "--chart", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Pounder -> Ludwig" in capsys.readouterr().out
    # an existing file needs --force; a wrong suffix is one clear line
    assert main(["attack", "--unit", "Pounder", "--vs", "Ludwig", "--chart", str(out)]) == 2
    assert main(["attack", "--weapon", "3/1", "--target", "I2", "--models", "5",
                 "--chart", str(tmp_path / "x.gif")]) == 2
    assert "name the file .png, .svg or .pdf" in capsys.readouterr().err


def test_a_mistyped_long_option_is_never_offered_dash_h(capsys):
    with pytest.raises(SystemExit) as e:
        main(["attack", "--unit", "Pounder", "--vs", "Ludwig", "--chrt", "x.png"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "did you mean --chart?" in err and "-h?" not in err


def test_duel_csv(tmp_path, capsys):
    out = tmp_path / "duel.csv"
    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder", "--scenario", "line",
                 "--trials", "2000", "--csv", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert rows and {"side", "unit"} <= set(rows[0])
    assert {r["unit"] for r in rows} >= {"Ludwig", "Pounder"}
    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder", "--trials", "2000",
                 "--force"]) == 2  # --force with no --csv does nothing: refused
    assert "--csv" in capsys.readouterr().err


def test_cards_lists_the_exact_name_first_and_partial_copies_last(capsys):
    assert main(["cards", "Pounder"]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert heads[0] == "Pounder  [dust-1947, Allies]"
    assert heads[1].startswith("Pounder (Light)")
    # the older editions' partial cards are named, not printed as tables of '?'
    assert [h.split("[")[1].split(",")[0] for h in heads if h.startswith("also:")] == \
        ["tactics-2009", "tactics-2013"]
    assert main(["cards", "Pounder", "--json"]) == 0
    names = [c["name"] for c in json.loads(capsys.readouterr().out)]
    assert names[0] == "Pounder"


@pytest.mark.parametrize("bloc, expected", [("Allies", "an"), ("Axis", "an"), ("SSU", "an"),
                                            ("IJN", "an"), ("Mythos", "a"),
                                            ("Mercenaries", "a")])
def test_bloc_article(bloc, expected):
    from dustsim.army.lists import article

    assert article(bloc) == expected
