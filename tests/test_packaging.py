"""A non-editable install (the wheel) carries unit_data, the templates and works."""

import os
import shutil
import subprocess
import sys

from conftest import ROOT


def _run(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600, **kw)
    assert p.returncode == 0, (args, p.stdout[-2000:], p.stderr[-2000:])
    return p.stdout


def test_wheel_installs_and_runs(tmp_path):
    # build from a copy, so that the checkout gets no build/ or egg-info folders
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("dustsim", "unit_data"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    # offline: the build backend of this environment (setuptools >= 77, in the test extra)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "--no-index", "-q", "-w", str(tmp_path / "dist"), str(src)])
    (wheel,) = (tmp_path / "dist").glob("dustsim-*.whl")
    site = tmp_path / "site"
    _run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
          "--target", str(site), str(wheel)])
    assert (site / "dustsim" / "unit_data" / "dust-1947").is_dir()
    assert (site / "dustsim" / "review" / "templates" / "card.html.j2").is_file()
    assert (site / "dustsim" / "play" / "scenario_data" / "101-firefight.toml").is_file()
    # the installed copy, not the checkout (the dependencies come from this environment)
    env = {**os.environ, "PYTHONPATH": str(site)}
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = _run([sys.executable, "-c", "import dustsim; print(dustsim.__file__)"], env=env,
                 cwd=work)
    assert where.strip().startswith(str(site))
    out = _run([sys.executable, "-m", "dustsim", "cards", "Pounder", "--edition", "dust-1947"],
               env=env, cwd=work)
    assert "Antitank Gun" in out
    # a BattleScribe roster, with no catalogues beside the installed package (issue 26)
    ros = ROOT / "examples" / "lists" / "battlescribe" / "allies-rangers-battlescribe.ros"
    shutil.copy(ros, work / ros.name)
    env_ros = {k: v for k, v in env.items() if k != "DUSTSIM_BSDATA"}
    out = _run([sys.executable, "-m", "dustsim", "list", "check", ros.name], env=env_ros,
               cwd=work)
    assert ": legal" in out
    _run([sys.executable, "-m", "dustsim", "report", "--units", "Pounder,Ludwig", "--out",
          "rep", "--confirm", "0", "--duel-units", "0", "--format", "png"],
         env=env, cwd=work)  # the value model's default settings: read back from the disk
    # cache where an earlier report of the same code computed it (dustsim.review.value_cache)
    rep = work / "rep"
    assert (rep / "index.html").is_file() and (rep / "cards" / "pounder.html").is_file()
    assert (rep / "assets" / "datatables.js").is_file() and (rep / "review.pdf").is_file()
