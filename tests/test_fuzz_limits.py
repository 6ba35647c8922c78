"""Bounded work and the low-severity fuzz findings of issue 27: folder scans capped, only
regular files read, local workers capped by the cores, flags that would do nothing refused,
a symbolic-link marker never trusted, long output names refused before work, names printed
through one escaping function."""

from __future__ import annotations

import os

import pytest

from dustsim.cli.shell import main
from dustsim.errors import DustsimError, printable


def _refused(argv, capsys, needle):
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and needle in err and "internal error" not in err
    return err


def test_deep_folder_scan_is_refused(tmp_path, capsys):
    deep = tmp_path.joinpath(*["d"] * 10)
    deep.mkdir(parents=True)
    _refused(["validate", str(tmp_path)], capsys, "nested deeper than 8 levels")


def test_wide_folder_scan_is_refused(tmp_path, capsys, monkeypatch):
    import dustsim.limits as L

    monkeypatch.setattr(L, "SCAN_DIRS", 5)
    for i in range(6):
        (tmp_path / f"d{i}").mkdir()
    _refused(["validate", str(tmp_path)], capsys, "more than 5 folders")
    _refused(["cards", "--data", str(tmp_path)], capsys, "more than 5 folders")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_device_file_is_not_read(capsys):
    assert main(["validate", "/dev/zero"]) == 2
    assert "not a regular file" in capsys.readouterr().err
    _refused(["cards", "--data", "/dev/zero"], capsys, "not a regular file")


def test_oversized_unit_file_is_not_read(tmp_path, capsys, monkeypatch):
    import dustsim.limits as L

    monkeypatch.setattr(L, "FILE_BYTES", 100)
    f = tmp_path / "big.toml"
    f.write_text("# " + "x" * 200 + "\n")
    assert main(["validate", str(f)]) == 2
    assert "over the cap of 100" in capsys.readouterr().err


def test_local_workers_capped_by_the_cores(capsys):
    from dustsim.limits import cores

    if cores() + 1 > 64:
        pytest.skip("more cores than the workers cap")
    _refused(["report", "--units", "Pounder", "--workers", str(cores() + 1), "--out", "x"],
             capsys, f"more than the {cores()} cores")


def test_tls_scheduler_without_security_is_one_line(tmp_path, capsys):
    pytest.importorskip("distributed")
    _refused(["report", "--units", "Pounder", "--scheduler", "tls://127.0.0.1:9",
              "--out", str(tmp_path / "r")], capsys, "--scheduler")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("extra,needle", [
    (["--distance", "100"], "--distance needs --unit/--vs"),
    (["--volley", "2"], "add --keyword volley"),
    (["--hero-damage-taken", "2"], "needs a joined hero"),
])
def test_attack_flags_that_do_nothing_are_refused(extra, needle, capsys):
    _refused(["attack", "--weapon", "3/1", "--target", "I2", "--models", "3", *extra], capsys,
             needle)


def test_volley_on_a_card_without_volley_weapons(capsys):
    _refused(["attack", "--unit", "Pounder", "--vs", "Pounder", "--volley", "2"], capsys,
             "has none")


def test_force_does_not_follow_a_symlinked_marker(tmp_path):
    from dustsim.io import MARKER, check_output_dir

    elsewhere = tmp_path / "real"
    elsewhere.mkdir()
    (elsewhere / MARKER).write_text("x")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "data.txt").write_text("precious")
    (victim / MARKER).symlink_to(elsewhere / MARKER)
    with pytest.raises(DustsimError, match="did not write"):
        check_output_dir(victim, True)
    assert check_output_dir(elsewhere, True) == elsewhere  # a real marker still counts


def test_long_output_name_refused_before_work(tmp_path, capsys):
    out = tmp_path / ("x" * 240)
    _refused(["report", "--units", "Pounder", "--out", str(out)], capsys, "shorter name")
    assert not out.exists()


def test_printable_escapes_control_characters():
    assert printable("Pounder") == "Pounder"
    forged = "x\x1b[2K\rfake: legal\u202e"
    out = printable(forged)
    assert out.isprintable() and "\\x1b" in out and "\\r" in out and "\\u202e" in out
    assert str(DustsimError("bad", file="a\x1b[31mb")).isprintable()


def test_list_names_cannot_forge_lines(tmp_path, capsys):
    f = tmp_path / "l.toml"
    f.write_text('name = "x\\u001b[2K\\rfake: legal"\npoints = 75\n[[unit]]\n'
                 'card = "Pounder"\n', encoding="utf-8")
    assert main(["list", "check", str(f)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\\x1b" in out


def test_card_names_with_control_characters_are_refused(tmp_path, capsys):
    f = tmp_path / "u.toml"
    f.write_text('schema = 1\nedition = "dust-1947"\n[[card]]\nname = "A\\rB"\n'
                 'source = "x"\n', encoding="utf-8")
    assert main(["validate", str(f)]) == 2
    assert "control character" in capsys.readouterr().err


def test_a_failure_while_a_signal_unwinds_is_the_signal(monkeypatch, capsys):
    """SIGTERM during chart rendering: matplotlib's cleanup raised AttributeError on half-built
    state, reported as an internal error (exit 1); it is the signal (exit 143)."""
    import dustsim.cli.shell as S

    def render(args):
        try:
            raise S.Terminated
        finally:
            raise AttributeError("'NoneType' object has no attribute 'apply_aspect'")

    monkeypatch.setattr(S, "cmd_validate", render)
    assert main(["validate"]) == S.EXIT_TERMINATED
    err = capsys.readouterr().err
    assert "terminated" in err and "internal error" not in err


@pytest.mark.parametrize("argv", [
    ["whatif", "--unit", "Ludwig", "--ap", "٣"],
    ["attack", "--weapon", "3/1", "--target", "I2", "--models", "３"],
    ["attack", "--weapon", "3/1", "--target", "I2", "--models", "3", "--trials=٣٠"],
])
def test_numbers_in_non_ascii_digits_are_refused(argv, capsys):
    """float('٣') is 3.0: `whatif --ap ٣` silently priced the card at 3 AP."""
    _refused(argv, capsys, "non-ASCII digits")


def test_long_monte_carlo_runs_say_how_long(monkeypatch, caplog):
    """Without a progress bar, a run estimated to need more than a minute says so once; the
    rate is measured after the first chunk, which pays the kernels' compile."""
    import time

    from dustsim.engines.kernel import _LongRunNote

    clock = iter([0.0, 1.0, 3.0])
    monkeypatch.setattr(time, "perf_counter", lambda: next(clock))
    note = _LongRunNote(10**9, "duels")
    with caplog.at_level("WARNING", logger="dustsim"):
        note.update(10**5)  # first chunk (compile included): the clock starts here
        note.update(10**5)  # 1 s: too early to judge
        note.update(10**5)  # 3 s for 2e5: about 4 hours left
        note.update(10**5)  # said once only
    msgs = [r.getMessage() for r in caplog.records]
    assert len(msgs) == 1 and "1,000,000,000 duels" in msgs[0] and "min left" in msgs[0]
    # a first chunk that compiled for minutes, then 2e5 games in 3 s: 8e5 left take 12 s
    slow_start = _LongRunNote(10**6, "games")
    clock2 = iter([300.0, 303.0])
    monkeypatch.setattr(time, "perf_counter", lambda: next(clock2))
    with caplog.at_level("WARNING", logger="dustsim"):
        slow_start.update(10**4)
        slow_start.update(2 * 10**5)
    assert len(caplog.records) == 1
    quick = _LongRunNote(10**6, "duels")  # 1e6 trials nearly done: nothing to say
    monkeypatch.setattr(time, "perf_counter", lambda: 5.0)
    with caplog.at_level("WARNING", logger="dustsim"):
        quick.update(10**4)
        quick.update(9 * 10**5)
    assert len(caplog.records) == 1


def test_a_report_without_a_terminal_says_what_it_is_doing(caplog):
    """Issue 27: a whole-edition review run from a script printed nothing for minutes; without
    progress bars it now names each stage as it starts, unless --quiet."""
    from dustsim.review.report import ReportSettings, _stage

    with caplog.at_level("WARNING", logger="dustsim"):
        _stage(ReportSettings(progress=False, notes=True), "value model")
        _stage(ReportSettings(progress=False, notes=False), "quiet")  # --quiet
        _stage(ReportSettings(progress=True, notes=True), "bars")  # a terminal: the bars say it
    msgs = [r.getMessage() for r in caplog.records]
    assert msgs == ["dustsim: note: report: value model"]


def test_new_inputs_are_read_only_as_regular_files(capsys):
    """A user map (`scenarios --map`) and a replay log (`replay`) from /dev/zero were read until
    memory ran out: refused in one line like every other input file."""
    _refused(["scenarios", "--map", "/dev/zero"], capsys, "not a regular file")
    _refused(["replay", "/dev/zero"], capsys, "not a regular file")


def test_duel_flags_that_a_scenario_overrides_are_refused(capsys):
    """`duel --scenario 101 --distance 5` ignored --distance (the sides enter from their
    edges): a flag that would do nothing is refused."""
    _refused(["duel", "--side-a", "Ludwig", "--side-b", "Pounder", "--scenario", "101",
              "--distance", "5"], capsys, "--distance applies to duels on a line only")
