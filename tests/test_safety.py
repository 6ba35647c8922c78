"""Safety: outputs never destroyed by mistake, caps on every knob, one error boundary, real
signals, and refusals of what the game cannot have."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SHARED, needs_shared

from dustsim import io
from dustsim.cli.shell import main
from dustsim.errors import DustsimError


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("dustsim: error:") and "\n" not in err, err
    assert "Traceback" not in err
    return err


# -- outputs: marker, --force, atomic swap, stale temporary folders ---------------------------
def _write(tmp_path: Path, name: str, force: bool, content: str = "new") -> Path:
    out = tmp_path / name
    with io.atomic_dir(out, force=force) as tmp:
        (tmp / "data.txt").write_text(content, encoding="utf-8")
    return out


def test_output_folder_gets_the_marker_and_force_replaces_only_ours(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = _write(tmp_path, "rep", force=False, content="one")
    assert (out / io.MARKER).is_file() and not (out / io.PID_FILE).exists()
    with pytest.raises(DustsimError, match="exists; pass --force"):
        _write(tmp_path, "rep", force=False)
    _write(tmp_path, "rep", force=True, content="two")
    assert (out / "data.txt").read_text(encoding="utf-8") == "two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]  # no debris
    # an empty folder may be replaced; a folder of the user's never, even with --force
    (tmp_path / "empty").mkdir()
    _write(tmp_path, "empty", force=True)
    mine = tmp_path / "important"
    mine.mkdir()
    (mine / "thesis.txt").write_text("x", encoding="utf-8")
    with pytest.raises(DustsimError,
                       match=r"important' is a non-empty folder dustsim did not write"):
        _write(tmp_path, "important", force=True)
    assert (mine / "thesis.txt").read_text(encoding="utf-8") == "x"


@pytest.mark.parametrize("what", ["file", "symlink", "dangling", "dot", "cwd", "parent",
                                  "missing-parent", "long"])
def test_refusals_name_the_path_and_touch_nothing(tmp_path, monkeypatch, what):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f").write_text("keep", encoding="utf-8")
    target = {"file": "f", "symlink": "ln", "dangling": "dl", "dot": ".",
              "cwd": str(tmp_path), "parent": "..", "missing-parent": "no/such/out",
              "long": "x" * 300}[what]
    (tmp_path / "ln").symlink_to(tmp_path / "f")
    (tmp_path / "dl").symlink_to(tmp_path / "nowhere")
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(DustsimError) as exc, io.atomic_dir(target, force=True):
        pass
    msg = str(exc.value)
    assert "\n" not in msg and (target[:40] in msg or what == "long")
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "f").read_text(encoding="utf-8") == "keep"


def test_home_folder_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / io.MARKER).write_text("", encoding="utf-8")  # even one that looks like ours
    with pytest.raises(DustsimError, match="home folder"):
        io.check_output_dir(tmp_path, True)


def test_output_files_refuse_folders_links_and_overwrite_without_force(tmp_path):
    f = tmp_path / "a.csv"
    io.atomic_write_text(f, "1", force=False)
    with pytest.raises(DustsimError, match="exists; pass --force"):
        io.atomic_write_text(f, "2", force=False)
    io.atomic_write_text(f, "2", force=True)
    assert f.read_text(encoding="utf-8") == "2"
    (tmp_path / "d").mkdir()
    (tmp_path / "l.csv").symlink_to(f)
    for bad, word in [("d", "is a folder"), ("l.csv", "symbolic link"),
                      ("nope/a.csv", "does not exist")]:
        with pytest.raises(DustsimError, match=word):
            io.atomic_write_text(tmp_path / bad, "3", force=True)
    assert f.read_text(encoding="utf-8") == "2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "d", "l.csv"]


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temporary_folders_of_dead_runs_are_removed(tmp_path):
    dead = tmp_path / ".rep.abcd1234"
    dead.mkdir()
    (dead / io.PID_FILE).write_text(f"{_dead_pid()}\n", encoding="ascii")
    (dead / "half.csv").write_text("x", encoding="utf-8")
    orphan = tmp_path / ".rep.zzzz9999"  # an old output a killed run was deleting
    orphan.mkdir()
    (orphan / io.MARKER).write_text("", encoding="utf-8")
    live = tmp_path / ".rep.live0000"
    live.mkdir()
    (live / io.PID_FILE).write_text(f"{os.getpid()}\n", encoding="ascii")
    user = tmp_path / ".rep.notours1"  # same shape, not ours: no PID file, no marker
    user.mkdir()
    stale_file = tmp_path / f".rep.csv.{_dead_pid()}-abcdefgh"
    stale_file.write_text("x", encoding="utf-8")
    empty = tmp_path / f".rep.{_dead_pid()}-emptydir"  # killed right after its mkdir
    empty.mkdir()
    running = tmp_path / f".rep.{os.getpid()}-runnings"
    running.mkdir()
    _write(tmp_path, "rep", force=False)
    io.clean_stale(tmp_path / "rep.csv")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [running.name, ".rep.live0000", ".rep.notours1", "rep"]


_KILL_AT_WRITE = """
import os, signal, sys
from pathlib import Path
from dustsim import io
n, real = [0], Path.write_text
def write_text(self, *a, **k):
    n[0] += 1
    if n[0] == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)
    return real(self, *a, **k)
Path.write_text = write_text
with io.atomic_dir(Path(sys.argv[1]), force=True) as tmp:
    (tmp / "data.txt").write_text("new")
"""


@pytest.mark.slow
@pytest.mark.parametrize("step", [1, 2, 3])  # before the PID file, the marker, the data
def test_a_run_killed_between_any_two_steps_is_cleaned_by_the_next(tmp_path, step):
    _write(tmp_path, "rep", force=False, content="old")
    p = subprocess.run([sys.executable, "-c", _KILL_AT_WRITE, str(tmp_path / "rep"),
                        str(step)], capture_output=True, text=True, timeout=300)
    assert p.returncode == -signal.SIGKILL, p.stderr
    left = sorted(p.name for p in tmp_path.iterdir())
    assert len(left) == 2 and left[1] == "rep"  # the dead run's hidden folder, the old output
    _write(tmp_path, "rep", force=True)  # the next run
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]
    assert (tmp_path / "rep" / "data.txt").read_text(encoding="utf-8") == "new"


def test_swap_keeps_the_old_output_until_the_new_one_is_complete(tmp_path):
    out = _write(tmp_path, "rep", force=False, content="old")
    with pytest.raises(RuntimeError), io.atomic_dir(out, force=True) as tmp:
        (tmp / "data.txt").write_text("half", encoding="utf-8")
        assert (out / "data.txt").read_text(encoding="utf-8") == "old"
        raise RuntimeError("killed mid-way")
    assert (out / "data.txt").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_swap_without_renameat2_uses_a_visible_old_name(tmp_path, monkeypatch):
    monkeypatch.setattr(io, "_renameat2_exchange", lambda a, b: False)
    _write(tmp_path, "rep", force=False, content="old")
    _write(tmp_path, "rep", force=True, content="new")
    assert (tmp_path / "rep" / "data.txt").read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


# -- the error boundary ------------------------------------------------------------------------
def test_a_bug_is_exit_1_with_the_traceback_only_under_debug(monkeypatch, capsys):
    import dustsim.cli.shell as cli

    def boom(args):
        raise ZeroDivisionError("bug here")

    monkeypatch.setattr(cli, "cmd_validate", boom)
    assert main(["validate"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "ZeroDivisionError" in err and "--debug" in err
    assert main(["validate", "--debug"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "bug here" in err


@pytest.mark.parametrize("argv", [
    ["attack", "--weapon", "3/1", "--count", "1000000000", "--target", "I2", "--models", "5"],
    ["attack", "--weapon", "20/1", "--count", "100", "--target", "I2", "--models", "5"],
    ["attack", "--weapon", "40/1", "--count", "30", "--target", "I2", "--models", "5"],
    ["attack", "--weapon", "41/1", "--target", "I2", "--models", "5"],
    ["attack", "--weapon", "٣/١", "--target", "I2", "--models", "5"],
    ["attack", "--weapon", "3/0", "--target", "I2", "--models", "5"],
    ["attack", "--weapon", "3/1", "--target", "I2", "--models", "51"],
    ["attack", "--weapon", "3/1", "--target", "V2", "--track", "0"],
    ["attack", "--weapon", "3/1", "--target", "V2", "--track", "3", "--damage-taken", "3"],
    ["attack", "--weapon", "3/1", "--target", "I2", "--models", "3", "--damage-taken", "1"],
    ["attack", "--weapon", "3/1", "--target", "I2", "--models", "3", "--hero-track", "999"],
    ["attack", "--weapon", "3/1", "--target", "I2", "--models", "3", "--seed", "-1"],
    ["attack", "--weapon", "3/1", "--target", "I2", "--models", "3", "--threads", "-1"],
    ["attack", "--weapon", "3/1", "--target", "I2", "--models", "3", "--engine", "mc",
     "--trials", "1e18"],
    ["attack", "--weapon", "3/1", "--target", "I2", "--models", "3", "--engine", "mc",
     "--trials", "9223372036854775808"],
    ["epic", "battle", "4 tank, 1 mech", "vs", "3 tank", "--engine", "mc", "--trials",
     "9223372036854775808"],
    ["epic", "battle", "41 tank", "vs", "3 tank", "--engine", "exact"],
    ["epic", "optimize", "--budget", "1000", "--vs", "3 tank"],
    ["epic", "optimize", "--budget", "12", "--vs", "3 tank", "--top", "0"],
    ["epic", "optimize", "--budget", "12", "--vs", "3 tank", "--top", "-1"],
    ["epic", "optimize", "--budget", "12", "--vs", "3 tank", "--chart", "x.gif"],
    ["whatif", "--unit", "Pounder", "--ap", "nan"],
    ["whatif", "--unit", "Pounder", "--ap", "inf"],
    ["whatif", "--unit", "Pounder", "--ap", "-3"],
    ["report", "--units", ""],
    ["report", "--units", "Pounder", "--platoon-budget", "nan"],
    ["report", "--units", "Pounder", "--scheduler", ""],
    ["report", "--units", "Pounder", "--scheduler", "tcp://host:99999"],
    ["report", "--units", "Pounder", "--scheduler", "not an address"],
    ["report", "--units", "Pounder", "--workers", "100000"],
    ["report", "--units", "Pounder", "--out", "."],
    ["report", "--units", "Pounder", "--out", "x" * 5000],
    ["platoons", "--support", "3"],
    ["platoons", "--support", "2"],
    ["platoons", "--budget", "inf"],
    ["platoons", "--csv", "."],
    ["duel", "--side-a", "Pounder", "--side-b", "Pounder", "--trials", "0"],
    ["duel", "--side-a", "Pounder", "--side-b", "Pounder", "--turns", "100000"],
])
def test_over_the_cap_or_impossible_is_one_line_exit_2(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    t0 = time.process_time()
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: not an integer
        code = exc.code
    assert code == 2
    one_line_error(capsys)
    assert time.process_time() - t0 < 30  # refused before the work, not after
    assert list(tmp_path.iterdir()) == []


def test_argparse_errors_stay_exit_2_in_one_line(capsys):
    for argv in (["attack", "--count", "many"], ["nosuchcommand"], ["epic", "battle", "x"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        one_line_error(capsys)


# -- valid or refused: the validator ---------------------------------------------------------
CARD = """[[card]]
name = "X"
edition = "dust-1947"
kind = "{kind}"
armour = "{armour}"
{size}
skills = {skills}
source = "test"
[[card.weapon]]
name = "Gun"
range = "6"
line = ["{cell}", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"]
"""


def _validate(tmp_path, **kw):
    from dustsim.data.cards import validate

    d = {"kind": "squad", "armour": "I2", "size": 'models = 3\nmodels_source = "card"',
         "skills": "[]", "cell": "3/1", **kw}
    p = tmp_path / "u.toml"
    p.write_text(CARD.format(**d), encoding="utf-8")
    return validate([p])


@pytest.mark.parametrize("kw, field, word", [
    ({"armour": "I5"}, "armour", "I1-I4"), ({"armour": "A4"}, "armour", "I1-I4"),
    ({"armour": "V8"}, "armour", "V1-V7"), ({"armour": "S5"}, "armour", "I1-I4"),
    ({"armour": "I٣"}, "armour", "I1-I4"),
    ({"kind": "vehicle", "armour": "V2", "size": "damage_track = 0"}, "damage_track", "1 to"),
    ({"kind": "vehicle", "armour": "V2", "size": "damage_track = 51"}, "damage_track", "1 to"),
    ({"size": "models = 51\nmodels_source = \"card\""}, "models", "1 to 50"),
    ({"cell": "٣/١"}, "line.I1", "is not N/D"), ({"cell": "３/1"}, "line.I1", "is not N/D"),
    ({"cell": "41/1"}, "line.I1", "cap"), ({"cell": "9999999999999999999/1"}, "line.I1", "not"),
    ({"cell": "3/0"}, "line.I1", "no damage"), ({"cell": "3/21"}, "line.I1", "cap"),
    ({"skills": '["Damage Resiliant"]'}, "skills", "did you mean 'damage resilient'"),
    ({"skills": '["Flux Capacitor"]'}, "skills", "unknown skill"),
    ({"skills": '[""]'}, "skills", "empty"),
])
def test_validator_refuses_what_the_game_cannot_have(tmp_path, kw, field, word):
    cards, problems = _validate(tmp_path, **kw)
    assert not cards and problems
    assert any(p.field == field and word in str(p) and "u.toml" in str(p)
               and "unit 'X'" in str(p) for p in problems), [str(p) for p in problems]


def test_known_unmodelled_skill_is_a_warning_naming_the_card(tmp_path, capsys):
    from dustsim.rules.skills import (
        KNOWN_UNMODELLED,
        MODELLED,
        classify,
        skill_base,
        skill_warnings,
    )

    cards, problems = _validate(tmp_path, skills='["Scout", "Sealifter", '
                                                 '"Expert - Flamethrower", "Lucky"]')
    assert not problems and len(cards) == 1
    assert skill_base("Expert - Flamethrower") == "expert" and classify("Lucky") == "modelled"
    assert all(classify(s) == "modelled" for s in MODELLED)  # modelled wins over the table
    assert all(classify(s) != "unknown" for s in KNOWN_UNMODELLED)
    (w,) = skill_warnings(cards)
    # the one table (dustsim.rules.skills, issue 23): battles play Scout and Lucky now, not
    # Sealifter (L3643-3645: no scenario has a sea)
    assert "unit 'X'" in w and "Sealifter [not played]" in w
    assert "Scout" not in w and "Lucky" not in w
    assert main(["validate", str(tmp_path / "u.toml"), "--warnings"]) == 0
    assert "Sealifter" in capsys.readouterr().err


def test_deep_toml_nesting_is_a_problem_not_a_crash(tmp_path):
    from dustsim.data.cards import validate

    p = tmp_path / "deep.toml"
    p.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    _, problems = validate([p])
    assert problems and "deep.toml" in str(problems[0])


# -- valid or refused: the BattleScribe importer -----------------------------------------------
def _bs(tmp_path, catalogue: str, name: str = "t.cat", extra: dict | None = None):
    from test_importers import GST

    from dustsim.data.importers.battlescribe import import_battlescribe

    (tmp_path / "t.gst").write_text(GST, encoding="utf-8")
    files = [tmp_path / "t.gst"]
    for n, text in {name: catalogue, **(extra or {})}.items():
        (tmp_path / n).write_text(text, encoding="utf-8")
        files.append(tmp_path / n)
    return import_battlescribe(files)


def _hero(armour="V2", track="3"):
    return ('<selectionEntry id="h" name="H" type="unit"><profiles>'
            '<profile id="ph1" name="H" profileTypeId="pv"><characteristics>'
            f'<characteristic name="Armour" value="{armour}"/>'
            f'<characteristic name="Damage Track" value="{track}"/>'
            "</characteristics></profile></profiles>"
            '<costs><cost name="pts" value="9"/></costs></selectionEntry>')


@pytest.mark.parametrize("entry, word", [
    ("S5", "S1-S4"), ("S7", "S1-S4"), ("A4", "A1-A3"), ("V8", "V1-V7"), ("S٣", "S1-S4"),
])
def test_importer_refuses_impossible_armour(tmp_path, entry, word):
    from test_importers import cat, squad

    with pytest.raises(DustsimError, match=word):
        _bs(tmp_path, cat(squad("Sq", "", armour=entry)))


def test_importer_refuses_a_damage_track_of_0_and_reads_only_ascii_digits(tmp_path):
    from test_importers import cat

    with pytest.raises(DustsimError, match="damage track 0"):
        _bs(tmp_path, cat(_hero(track="0")))
    texts, _ = _bs(tmp_path, cat(_hero(track="٣")))  # not a number: unknown, flagged
    (text,) = texts.values()
    assert "damage_track" not in text and "damage track missing" in text


def test_importer_refuses_file_name_collisions_and_hidden_names(tmp_path):
    from test_importers import cat, squad

    c = cat(squad("Sq", ""))
    with pytest.raises(DustsimError, match=r"would both be written as 'mythos\.toml'"):
        _bs(tmp_path, c, "Mythos.cat", {"MYTHOS!.cat": c.replace('id="c"', 'id="c2"')})
    with pytest.raises(DustsimError, match="no letter or digit"):
        _bs(tmp_path, c, "!!!.cat")


@pytest.mark.parametrize("doc, word", [
    ('<?xml version="1.0" encoding="klingon"?><catalogue/>', "unreadable XML"),
    ("<catalogue>" + "<a>" * 5000 + "</a>" * 5000 + "</catalogue>", "nested"),
])
def test_importer_refuses_unknown_encodings_and_deep_nesting(tmp_path, doc, word):
    with pytest.raises(DustsimError, match=word) as exc:
        _bs(tmp_path, doc)
    assert "t.cat" in str(exc.value) and "\n" not in str(exc.value)


# -- real signals to running commands -----------------------------------------------------------
def _spawn(args, cwd) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "dustsim", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _signal_each_once_writing(runs: dict, name: str, may_finish: bool = False,
                              timeout=600.0) -> None:
    """Send each run its signal once it is in a known state: its own temporary folder exists
    (so its signal handlers are installed, whatever the load). All runs are watched at once;
    a run that ends first is an error unless ``may_finish``. ``timeout`` only bounds a hang."""
    pat = re.compile(rf"\.{re.escape(name)}\.(\d+-)?[a-z0-9_]{{8}}")
    pending = dict(runs)
    t0 = time.monotonic()
    while pending:
        assert time.monotonic() - t0 < timeout, f"never started writing: {list(pending)}"
        for sig, (d, proc) in list(pending.items()):
            if any(pat.fullmatch(p.name) for p in d.iterdir()):
                proc.send_signal(sig)
                del pending[sig]
            elif proc.poll() is not None:
                assert may_finish, proc.communicate()
                del pending[sig]
        time.sleep(0.01)


@pytest.mark.slow
def test_real_signals_to_a_running_report(tmp_path):
    """SIGINT/SIGTERM: exit 130/143, nothing kept, the old output intact. SIGKILL: the old
    output intact, and the next run removes the dead run's temporary folder."""
    args = ["report", "--units", "Pounder", "--quiet", "--confirm", "0", "--duel-units", "0",
            "--format", "png", "--trials", "1000", "--out", "rep", "--force"]
    runs = {}
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        d = tmp_path / sig.name
        d.mkdir()
        _write(d, "rep", force=False, content="old")  # an earlier output
        runs[sig] = (d, _spawn(args, d))
    _signal_each_once_writing(runs, "rep")
    for sig, (d, proc) in runs.items():
        _, err = proc.communicate(timeout=60)
        assert (d / "rep" / "data.txt").read_text(encoding="utf-8") == "old"
        if sig == signal.SIGKILL:
            assert proc.returncode == -9
            assert len(list(d.iterdir())) == 2  # the dead run's temporary folder
            io.clean_stale(d / "rep")  # what the next run does first
        else:
            assert proc.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[sig], err
            assert "no partial output was kept" in err and "Traceback" not in err
        assert sorted(p.name for p in d.iterdir()) == ["rep"], sig


def _children(pid: int) -> set[int]:
    kids: set[int] = set()
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                kids |= {int(k) for k in (task / "children").read_text().split()}
    return kids


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _fork_servers(pid: int) -> set[int]:
    """The multiprocessing fork servers a run started (its Dask workers' parent)."""
    return {k for k in _children(pid) if b"forkserver" in _cmdline(k)}


def _worker_processes(pid: int) -> set[int]:
    """The run's Dask worker processes: forked by its fork server (or spawned by the run
    itself); not multiprocessing's resource tracker, which ends once its parent has gone."""
    workers = {k for k in _children(pid) if b"spawn_main" in _cmdline(k)}
    for server in _fork_servers(pid):
        workers |= _children(server)
    return workers


def _gone(pids: set[int], timeout: float = 120.0) -> set[int]:
    """Those of ``pids`` still alive (not zombies) once they all ended or ``timeout`` passed
    (it only bounds a hang: processes told to stop end in well under a second)."""
    def alive(p):
        try:
            return "Z" not in Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
    t0 = time.monotonic()
    while (left := {p for p in pids if alive(p)}) and time.monotonic() - t0 < timeout:
        time.sleep(0.05)
    return left


def _answers_sigint(pid: int) -> bool:
    """The process catches SIGINT (``SigCgt`` in /proc; not ignored, as it is for the
    milliseconds in which a Dask run launches the fork server of its workers)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M).group(1), 16)
    return bool(caught >> (signal.SIGINT - 1) & 1)


@pytest.mark.slow
def test_signals_to_runs_on_local_dask_workers_stop_them_in_one_line(tmp_path):
    """Ctrl-C / SIGTERM with ``--workers 2``: exit 130/143, one line on stderr (no Dask
    tracebacks from workers outliving the scheduler), and no worker process left. Each
    signal is sent once the run's two worker processes exist and it answers SIGINT."""
    if not Path(f"/proc/{os.getpid()}/task").is_dir():
        pytest.skip("needs /proc to see the run's worker processes")
    lists = Path(__file__).parents[1] / "examples" / "lists"
    runs = {signal.SIGINT: _spawn(["list", "meta", str(lists), "--workers", "2",
                                   "--trials", "100000", "--quiet"], tmp_path),
            signal.SIGTERM: _spawn(["report", "--units", "Pounder", "--quiet", "--confirm",
                                    "0", "--duel-units", "0", "--format", "png", "--trials",
                                    "1000000", "--out", "rep", "--workers", "2"], tmp_path)}
    workers: dict[signal.Signals, set[int]] = {}
    t0 = time.monotonic()
    while len(workers) < len(runs):  # the timeout only bounds a hang
        assert time.monotonic() - t0 < 300, f"never started: {set(runs) - set(workers)}"
        for sig, proc in runs.items():
            if sig in workers:  # signalled already: it may have ended, as it should
                continue
            assert proc.poll() is None, proc.communicate()
            kids = _worker_processes(proc.pid)
            if len(kids) >= 2 and _answers_sigint(proc.pid):
                proc.send_signal(sig)
                workers[sig] = kids
        time.sleep(0.01)
    for sig, proc in runs.items():
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[sig], err
        assert err.count("\n") == 1 and err.startswith("dustsim: "), err
        assert "no partial output was kept" in err
        assert not _gone(workers[sig]), sig  # reaped by the run, or gone: none left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.slow
def test_ctrl_c_while_the_local_cluster_starts_is_answered(tmp_path):
    """Ctrl-C sent once the run has launched its fork server, while its Dask cluster is
    still starting (no worker yet, or not all): answered, not lost — exit 130, one line, and
    no worker process or fork server left behind, wherever in the start-up it lands."""
    if not Path(f"/proc/{os.getpid()}/task").is_dir():
        pytest.skip("needs /proc to see the run's worker processes")
    lists = Path(__file__).parents[1] / "examples" / "lists"
    proc = _spawn(["list", "meta", str(lists), "--workers", "2", "--trials", "100000",
                   "--quiet"], tmp_path)
    t0 = time.monotonic()
    # the state: the fork server is launched and the run answers SIGINT again (it ignores it
    # for the milliseconds of that launch, README)
    while not (_fork_servers(proc.pid) and _answers_sigint(proc.pid)):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < 300, "the fork server never started"  # a hang
        time.sleep(0.005)
    seen = _fork_servers(proc.pid) | _worker_processes(proc.pid)
    started = len(_worker_processes(proc.pid))
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    while proc.poll() is None:  # every process the start-up makes, until the run ends
        seen |= _fork_servers(proc.pid) | _worker_processes(proc.pid)
        if time.monotonic() - t0 > 300:  # only bounds a hang: the run would take an hour
            proc.kill()
            pytest.fail(f"SIGINT not answered ({started} workers up when it was sent)")
        time.sleep(0.005)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (started, err)
    assert err.count("\n") == 1 and "no partial output was kept" in err, err
    assert not _gone(seen), seen
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.slow
@needs_shared
def test_real_signals_to_a_running_import(tmp_path):
    """Whenever the signal lands, the output is the old one or the complete new one."""
    src = SHARED / "data" / "bsdata-dust1947"
    runs = {}
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        d = tmp_path / sig.name
        d.mkdir()
        _write(d, "out", force=False, content="old")
        runs[sig] = (d, _spawn(["import", "battlescribe", str(src), "-o", "out", "--force"],
                               d))
    _signal_each_once_writing(runs, "out", may_finish=True)
    for sig, (d, proc) in runs.items():
        _, err = proc.communicate(timeout=60)
        if proc.returncode == 0:  # finished before the signal: the complete new output
            assert len(list((d / "out").glob("*.toml"))) == 6
        else:
            assert proc.returncode in (130, 143, -9), err
            assert (d / "out" / "data.txt").read_text(encoding="utf-8") == "old"
            assert "Traceback" not in err
        io.clean_stale(d / "out")
        assert sorted(p.name for p in d.iterdir()) == ["out"], sig


@pytest.mark.slow
def test_ctrl_c_stops_a_long_epic_monte_carlo_run(tmp_path):
    """Ctrl-C inside the chunk loop of a run of 1e9 battles (hours): exit 130, promptly
    (the run stops within a chunk or two; ``timeout`` only bounds a hang, far below the
    run's length). The state waited on: the chunk loop's worker thread exists."""
    tasks = Path(f"/proc/{os.getpid()}/task")
    if not tasks.is_dir():
        pytest.skip("needs /proc to see the run's threads")
    env = {**os.environ, **{k: "1" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                               "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}}
    proc = subprocess.Popen([sys.executable, "-m", "dustsim", "epic", "battle", "60 tank",
                             "vs", "60 tank", "--engine", "mc", "--trials", "1000000000"],
                            cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    t0 = time.monotonic()
    while len(list(Path(f"/proc/{proc.pid}/task").iterdir())) < 2:  # the pool's worker
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < 600, "the chunk loop never started"
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err


# -- properties --------------------------------------------------------------------------------
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_DIGITS = "0123456789٠١٢٣٤٥٦٧٨٩０１２３４５６７８９"


@given(st.text(alphabet=_DIGITS + "/*#N?-☠ ", max_size=12))
def test_a_cell_is_refused_or_within_the_game(text):
    """Any cell the parser accepts is ASCII, rolls 1-40 dice (or blast), does 1-20 damage
    per hit (or kills outright, or is '-' / '?')."""
    from dustsim.data.cards import parse_cell

    try:
        c = parse_cell(text)
    except ValueError:
        return
    assert c.text.isascii() or "☠" in text
    assert c.text in ("-", "?") or c.blast or 1 <= c.dice <= 40
    assert c.text in ("-", "?") or c.auto_kill or c.damage is None or 1 <= c.damage <= 20


@pytest.mark.parametrize("skill, kind", [
    ("Lucky", "modelled"), ("Expert - Flamethrower", "modelled"), ("Super Human", "modelled"),
    ("damage-resilient", "modelled"), ("Scout", "unmodelled"), ("Passengers (12)", "unmodelled"),
    ("Pilot: Sigrid", "unmodelled"), ("Damage Resiliant", "unknown"),
    ("Flux Capacitor", "unknown"), ("", "unknown"),
])
def test_a_skill_is_classified(skill, kind):
    from dustsim.rules.skills import classify

    assert classify(skill) == kind


@given(st.text(max_size=30))
def test_the_card_validator_refuses_exactly_the_unknown_skills(skill):
    # the data layer's vocabulary and the rules' classification agree on every text
    from dustsim.data.skill_names import is_skill
    from dustsim.rules.skills import classify

    assert is_skill(skill) == (classify(skill) != "unknown")


# -- Dask faults -------------------------------------------------------------------------------
def _slow_task(task, cards, engine, trials, seed):
    time.sleep(0.5)
    return task.kind


@pytest.mark.slow
def test_dask_scheduler_without_workers_and_all_workers_lost(all_cards, monkeypatch):
    pytest.importorskip("distributed")
    import threading

    from distributed import LocalCluster

    from dustsim.review import sweep as sw

    d47 = [c for c in all_cards if c.edition == "dust-1947"]
    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", dashboard_address=":0",
                      silence_logs=50) as empty, \
            pytest.raises(DustsimError, match="has no workers"), \
            sw.dask_client(scheduler=empty.scheduler_address, timeout="2s"):
        pass
    monkeypatch.setattr(sw, "LOST_WORKERS_WAIT", 2.0)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=":0", silence_logs=50) as cluster, \
            sw.dask_client(scheduler=cluster.scheduler_address) as client:
        threading.Timer(1.0, lambda: cluster.scale(0)).start()  # every worker gone
        t0 = time.monotonic()
        with pytest.raises(DustsimError, match=r"every Dask worker was lost|dropped the run"):
            sw.sweep(d47, d47[:40], client=client, task_fn=_slow_task, batch=1)
        assert time.monotonic() - t0 < 60


def test_a_signal_after_an_output_was_published_names_it(tmp_path, capsys):
    """Issue 27 (low): a Ctrl-C that lands after an output was swapped into place must not say
    only "no partial output was kept": the complete output is named."""
    from dustsim import io
    from dustsim.cli import shell

    out = tmp_path / "done.csv"
    io.atomic_write_text(out, "x\n", force=False)
    said = shell._kept()
    assert said.startswith("no partial output was kept") and str(out) in said
    assert main(["validate", str(tmp_path / "absent.toml")]) == 2  # a new run forgets it
    capsys.readouterr()
    assert shell._kept() == "no partial output was kept"


def test_signals_after_the_answer_keep_the_exit_code(monkeypatch):
    """Issue 27 (low): a signal landing while Python shuts down gave exit -2 / -15; once the
    command has answered, ``entry`` ignores SIGINT and SIGTERM and exits with main's code."""
    import signal

    from dustsim.cli import shell

    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(shell, "main", lambda: 0)
    try:
        with pytest.raises(SystemExit) as exc:
            shell.entry()
        assert exc.value.code == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, saved[0])
        signal.signal(signal.SIGTERM, saved[1])
