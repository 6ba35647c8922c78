"""The command line as a user runs it: exit codes, one-line errors, JSON, atomic output."""

import json
import subprocess
import sys

import pytest
from conftest import SHARED, needs_shared

from dustsim.cli.shell import main


def run(*args):
    p = subprocess.run([sys.executable, "-m", "dustsim", *args], capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def test_validate_bundled_and_bad(tmp_path, capsys):
    assert main(["validate"]) == 0
    assert "cards valid" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text('[[card]]\nname = "X"\nkind = "squad"\narmour = "I2"\nmodels = 3\n'
                   '[[card.weapon]]\nname = "Gun"\nkeywords = ["plasma"]\nline = ["7/1/", "-",'
                   ' "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"]\n',
                   encoding="utf-8")
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert any("bad.toml" in e and "unit 'X'" in e and "weapon 'Gun'" in e and "line.I1" in e
               for e in err)
    assert any("unknown weapon keyword 'plasma'" in e for e in err)


def test_cards_json_lists_dust_1947(capsys):
    assert main(["cards", "--edition", "dust-1947", "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)
    assert 530 <= len(cards) <= 560  # BattleScribe and DUST ENLIST merged (issue 12)
    assert all(c["source"] and c["revision"] and c["sources"] for c in cards)
    assert {c["bloc"] for c in cards} == {"Allies", "Axis", "SSU", "Mercenaries", "Mythos",
                                          "IJN"}
    assert main(["cards", "Pounder", "--edition", "dust-1947"]) == 0
    assert "Antitank Gun" in capsys.readouterr().out


def test_attack_json(capsys):
    assert main(["attack", "--weapon", "3/1", "--count", "2", "--target", "I2", "--models", "5",
                 "--cover", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for k in ("mean_hits", "mean_unsaved_hits", "mean_damage", "mean_models_killed",
              "p_destroyed", "pmf_damage"):
        assert k in d
    assert d["mean_hits"] == pytest.approx(2.0)
    assert main(["attack", "--weapon", "3/1", "--target", "V2", "--track", "4", "--engine", "mc",
                 "--trials", "20000", "--seed", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["trials"] == 20000 and d["seed"] == 3 and d["se_damage"] > 0
    assert abs(d["mean_damage"] - 1.0) < 5 * d["se_damage"]
    assert main(["attack", "--unit", "Pounder", "--vs", "Heavy Laser Grenadier Squad",
                 "--cover", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mean_hits"] > 0


@pytest.mark.parametrize("args", [
    ["--weapon", "3/1", "--target", "V9", "--track", "3"],
    ["--weapon", "*/1", "--target", "I2"],
    ["--weapon", "3/1", "--target", "I2", "--models", "3", "--engine", "mc", "--trials", "0"],
    ["--weapon", "3/1", "--keyword", "lazer", "--target", "I2", "--models", "3"],
    ["--weapon", "7/1/", "--target", "I2", "--models", "3"],
    ["--unit", "Nobody", "--vs", "Pounder"],
])
def test_attack_bad_input_exits_2(args, capsys):
    assert main(["attack", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dustsim: error:") and "\n" not in err


def test_report_small_bundle(small_report):
    out = small_report
    index = (out / "index.html").read_text(encoding="utf-8")
    pages = {p.stem: p.read_text(encoding="utf-8") for p in (out / "sections").glob("*.html")}
    site = index + "".join(pages.values())
    charts = sorted(p.stem for p in (out / "charts").glob("*.png"))
    assert charts and all(f"charts/{c}.png" in site for c in charts)
    assert all((out / "charts" / f"{c}.svg").exists() for c in charts)
    for t in ("unit_column", "unit_unit", "scores", "fair_points", "reference_targets",
              "platoons", "platoon_advantages", "platoon_matches", "epic_battles", "epic_mixes",
              "duels"):
        assert (out / "tables" / f"{t}.csv").exists() and (out / "tables" / f"{t}.parquet").exists()
        assert f"tables/{t}.csv" in site
    for section in ("rankings", "value", "platoons", "duels", "epic", "method"):
        assert f"sections/{section}.html" in index
    assert "516c407" in index  # the data's source revision
    assert "epic_mixes" in charts and "platoons" in charts and "duels" in charts
    import pandas as pd

    duels = pd.read_csv(out / "tables" / "duels.csv")
    assert len(duels) == 9 and duels["playable"].all()  # 3 cards, each against each
    assert (duels[["p_a_wins", "p_b_wins", "p_draw"]].sum(axis=1) - 1).abs().max() < 1e-9
    # printed platoon names and the cards they resolve to (issue 12: none unmatched)
    matches = pd.read_csv(out / "tables" / "platoon_matches.csv")
    assert (matches["matched_by"] != "unmatched").all()
    flak = matches[matches["printed"] == "Heavy Grenadier Flak Squad"]
    assert set(flak["card"]) == {"Heavy Grenadier Anti-Aircraft Squad"}
    # an existing report is not overwritten without --force
    code, _, stderr = run("report", "--units", "Pounder", "--out", str(out), "--quiet")
    assert code == 2 and "--force" in stderr


def test_report_of_a_card_that_cannot_hurt_a_reference_column(tmp_path):
    """Emma's only weapon cannot damage V4: with --units of her alone the V4 damage chart has
    nothing to draw and the review is still written (it stopped with exit 2 naming 'V4')."""
    out = tmp_path / "rep"
    assert main(["report", "--units", "Emma", "--out", str(out), "--quiet", "--confirm", "0",
                 "--duel-units", "0", "--format", "png", "--trials", "500"]) == 0
    assert (out / "charts" / "damage_I2.png").exists()
    assert not (out / "charts" / "damage_V4.png").exists()


def test_interrupted_report_leaves_nothing(tmp_path, monkeypatch):
    import dustsim.review.report as rep

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(rep, "_charts", boom)
    out = tmp_path / "rep"
    assert main(["report", "--units", "Pounder", "--out", str(out), "--quiet",
                 "--confirm", "0"]) == 130
    assert not out.exists()
    assert not any(tmp_path.iterdir())


@needs_shared
def test_import_refuses_overwrite(tmp_path, capsys):
    target = tmp_path / "d"
    target.mkdir()
    csv = SHARED / "data" / "unit-facts.csv"
    assert main(["import", "facts", str(csv), "-o", str(target)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["import", "facts", str(csv), "-o", str(target), "--force"]) == 0
    assert (target / "epic" / "figures.toml").exists()
    assert main(["import", "facts", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "x")]) == 2


def test_platoons_command(tmp_path):
    code, out, err = run("platoons", "--unmatched", "--json")
    assert code == 0 and json.loads(out) == []  # every unit named resolves to a card
    code, out, err = run("platoons", "--differences", "--json")
    assert code == 0 and any(r["platoon"] == "Allied Medium Combat Walker Platoon"
                             for r in json.loads(out))
    code, out, err = run("platoons", "--advantages", "--json")
    rows = json.loads(out)
    assert len(rows) == 54 and sum(r["modelled"] for r in rows) == 4
    code, _, err = run("platoons", "--budget", "0")
    assert code == 2 and "--budget" in err and "\n" not in err.strip()
    code, _, err = run("platoons", "--platoon", "no such platoon")
    assert code == 2 and "--platoon" in err


@pytest.mark.parametrize("args, found", [
    (["cards", "Poundr"], "did you mean 'Pounder'"),
    (["cards", "--bloc", "Alies"], "did you mean 'Allies'"),
    (["attack", "--unit", "Konigsluthr", "--vs", "Pounder"], "'Königsluther'"),
    (["report", "--units", "Guai-lp", "--out", "never-written"], "'Guaï-lo'"),
    (["report", "--units", "Rhnio", "-o", "never-written"], "'Rhino'"),  # -o as elsewhere
    (["platoons", "--platoon", "Rangr"], "'Allied Ranger Platoon'"),
])
def test_unknown_names_get_the_closest(args, found, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert found.lower() in err.lower() and "\n" not in err
    assert not (tmp_path / "never-written").exists()


@pytest.mark.parametrize("args, found, help_of", [
    (["reprot"], "did you mean 'report'?", "dustsim --help"),
    (["list", "chek", "x.toml"], "did you mean 'check'?", "dustsim list --help"),
    (["attack", "--wepon", "2/1"], "did you mean --weapon?", "dustsim attack --help"),
    (["attack", "--weapon", "2/1", "--modles", "3", "--cuont", "2"],
     "--modles: did you mean --models?; --cuont: did you mean --count?", "dustsim attack"),
    (["epic", "battle", "4 tank", "vs", "3 tank", "--capitl"], "did you mean --capital?",
     "dustsim epic battle --help"),
])
def test_typos_get_the_closest_command_or_option(args, found, help_of, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert found in err and help_of in err and "\n" not in err, err


def test_names_without_accents_resolve(capsys):
    assert main(["cards", "Guai-lo", "--edition", "dust-1947"]) == 0
    assert "guaï-lo" in capsys.readouterr().out.lower()
    assert main(["cards", "Konigsluther", "--edition", "dust-1947"]) == 0
    assert "Königsluther" in capsys.readouterr().out


@pytest.mark.parametrize("args, option", [
    (["epic", "battle", "4 tank", "vs", "3 tank", "--engine", "exact", "--trials", "5"],
     "--trials"),
    (["platoons", "--unmatched", "--top", "3"], "--top"),
    (["platoons", "--force"], "--force"),
    (["epic", "optimize", "--budget", "10", "--vs", "3 tank", "--force"], "--force"),
    (["report", "--duel-units", "0", "--duel-trials", "9", "--out", "x"], "--duel-trials"),
])
def test_an_option_that_does_nothing_is_refused(args, option, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert option in err and "does nothing" in err and "\n" not in err


def test_every_command_takes_quiet_and_progress_needs_a_terminal(monkeypatch):
    import argparse

    from dustsim.cli import shell as cli

    def leaves(sub):
        for p in sub.choices.values():
            nested = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
            if nested:
                yield from (x for a in nested for x in leaves(a))
            else:
                yield p

    import dustsim.cli.commands  # noqa: F401

    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    commands = list(leaves(sub))
    assert len(commands) >= 10
    assert all("--quiet" in p._option_string_actions for p in commands)
    ns = argparse.Namespace(quiet=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert not cli.progress_wanted(ns)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert cli.progress_wanted(ns)
    assert not cli.progress_wanted(argparse.Namespace(quiet=True))


def test_one_default_trial_count():
    import inspect

    from dustsim import BATTLE_TRIALS, DEFAULT_TRIALS, api
    from dustsim.cli.shell import build_parser
    from dustsim.play import duel, epic

    assert inspect.signature(api.attack).parameters["trials"].default == DEFAULT_TRIALS
    assert inspect.signature(epic.battle).parameters["trials"].default == DEFAULT_TRIALS
    # a duel's default follows where it is fought: a line duel as one attack, a duel on a
    # scenario's board as a list battle there (the CLI and Python resolve it the same way)
    assert inspect.signature(duel.duel).parameters["trials"].default is None
    assert duel.default_trials("line") == DEFAULT_TRIALS
    assert duel.default_trials("101") == BATTLE_TRIALS
    p = build_parser()
    for argv in (["attack", "--weapon", "3/1", "--target", "I2"],
                 ["epic", "battle", "1 tank", "vs", "1 tank"]):
        assert p.parse_args(argv).trials == DEFAULT_TRIALS
    assert p.parse_args(["duel", "--side-a", "A", "--side-b", "B"]).trials is None
