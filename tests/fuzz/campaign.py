"""A fuzz campaign against the command line (not part of the test suite; minutes to hours).

    python tests/fuzz/campaign.py --runs 300 --jobs 2 --seed 1

Each run is a subprocess in a fresh sandbox folder that also holds a user folder, a file, a
symbolic link and an earlier dustsim output. Flags are drawn for every command from pools of
plausible and absurd values (huge, negative, NaN, Unicode digits, empty, long paths, ., ~).
Some runs get SIGINT, SIGTERM or SIGKILL at a random time. Counted: tracebacks (exit 1, or
"Traceback" on stderr), runs with no answer within --timeout seconds, error messages of more
than one line, silent wrong results (JSON probabilities outside [0, 1], distributions not
summing to 1, trials other than requested), and files lost (a sandbox file changed, an earlier
output half replaced, hidden temporary folders left by a run that was not SIGKILLed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent

INTS = ["0", "1", "2", "3", "-1", "-5", "40", "41", "100", "1000", "1000000000",
        "9223372036854775808", "99999999999999999999", "1e18", "nan", "٣", "", "x"]
FLOATS = ["0", "1", "75", "-1", "nan", "inf", "-inf", "1e308", "1000", "12.5", "", "٣"]
NAMES = ["Pounder", "Ludwig", "Heavy Laser Grenadier Squad", "Nobody", "", "pounder",
         "Pounder,Ludwig", ",", "ＰＯＵＮＤＥＲ", "x" * 300]
ARMIES = ["4 tank, 1 mech", "3 tank", "60 tank", "1 fighter", "2 submarine", "0 tank", "-1 tank",
          "61 tank", "tank", "", "4 tonk", "٣ tank", "20 tank, 20 mech, 10 fighter, 10 bomber"]
CELLS = ["3/1", "*/1", "**/2", "2/#", "20/1", "40/1", "41/1", "٣/١", "3/0", "0/1", "7/1/",
         "-", "?", "", "999999999/1"]
COLUMNS = ["I1", "I2", "I4", "V2", "V7", "A1", "A3", "I5", "S2", "V8", "", "i2"]
OUT_PATHS = ["out", "newdir/out", ".", "..", "~", "important", "afile.txt", "link",
             "dangling", "earlier", "x" * 300, "missing/sub/out", "/", ""]
FILE_PATHS = ["out.csv", "chart.png", "chart.gif", "chart", ".", "important", "afile.txt",
              "link", "dangling", "missing/x.png", "x" * 300 + ".png", ""]


def pick(rng, pool):
    return rng.choice(pool)


def gen_args(rng: random.Random) -> tuple[list[str], str | None]:
    """A random command line, and the output path it writes (if any)."""
    cmd = rng.choice(["attack", "attack-unit", "epic-battle", "epic-optimize", "validate",
                      "cards", "whatif", "platoons", "report", "duel", "import-bs",
                      "import-facts"])
    a: list[str] = []
    out = None

    def maybe(flag, pool, p=0.5):
        if rng.random() < p:
            a.extend([flag, pick(rng, pool)])

    if cmd == "attack":
        a = ["attack", "--weapon", pick(rng, CELLS), "--target", pick(rng, COLUMNS)]
        maybe("--count", INTS)
        maybe("--models", INTS)
        maybe("--track", INTS, 0.3)
        maybe("--hero-track", INTS, 0.2)
        maybe("--damage-taken", INTS, 0.2)
        maybe("--engine", ["exact", "mc", "x"])
        maybe("--trials", INTS)
        maybe("--seed", INTS)
        maybe("--threads", INTS, 0.3)
        maybe("--ruleset", ["dust-1947", "tactics-2009", "tactics-2013", "nope", ""], 0.3)
        maybe("--option", ["resilience=per-hit-capped", "x=y", "nope", "="], 0.2)
        maybe("--skill", ["lucky", "Lucky", "Damage Resiliant", ""], 0.2)
        if rng.random() < 0.5:
            a.append("--json")
    elif cmd == "attack-unit":
        a = ["attack", "--unit", pick(rng, NAMES), "--vs", pick(rng, NAMES)]
        maybe("--engine", ["exact", "mc"])
        maybe("--trials", INTS)
        maybe("--edition", ["dust-1947", "tactics-2009", "x"], 0.3)
        a.append("--json")
    elif cmd == "epic-battle":
        a = ["epic", "battle", pick(rng, ARMIES), "vs", pick(rng, ARMIES)]
        maybe("--engine", ["auto", "exact", "mc"])
        maybe("--trials", INTS)
        maybe("--seed", INTS)
        maybe("--casualties", ["firepower", "cheapest", "x"], 0.2)
        if rng.random() < 0.3:
            a.append("--sea")
        if rng.random() < 0.5:
            a.append("--json")
    elif cmd == "epic-optimize":
        a = ["epic", "optimize", "--budget", pick(rng, [*INTS, "12", "20"]), "--vs",
             pick(rng, ARMIES)]
        maybe("--top", INTS)
        maybe("--objective", ["win", "efficiency"])
        if rng.random() < 0.5:
            out = pick(rng, FILE_PATHS)
            a += ["--chart", out]
            if rng.random() < 0.5:
                a.append("--force")
        if rng.random() < 0.5:
            a.append("--json")
    elif cmd == "validate":
        a = ["validate", *rng.sample([str(p) for p in (CORPUS / "toml").glob("*.toml")], 2)]
        if rng.random() < 0.2:
            a.append("x" * 5000)
    elif cmd == "cards":
        a = ["cards"]
        if rng.random() < 0.5:
            a.append(pick(rng, NAMES))
        maybe("--edition", ["dust-1947", "epic", "x", ""], 0.3)
        if rng.random() < 0.3:
            a.append("--json")
    elif cmd == "whatif":
        a = ["whatif", "--unit", pick(rng, NAMES)]
        maybe("--ap", FLOATS, 0.7)
        maybe("--cell", ["Antitank Gun:V4=2/4", "x", "Antitank Gun:V4=٣/١", ":=", "A:B=41/1"],
              0.3)
        maybe("--add-die", ["Antitank Gun", "x"], 0.2)
        maybe("--units", NAMES, 0.3)
    elif cmd == "platoons":
        a = ["platoons", "--quiet"]
        maybe("--budget", FLOATS)
        maybe("--support", INTS)
        maybe("--top", INTS)
        if rng.random() < 0.3:
            a.append(rng.choice(["--unmatched", "--advantages"]))
        if rng.random() < 0.3:
            out = pick(rng, FILE_PATHS)
            a += ["--csv", out]
            if rng.random() < 0.5:
                a.append("--force")
    elif cmd == "report":
        out = pick(rng, OUT_PATHS)
        a = ["report", "--quiet", "--units", pick(rng, [*NAMES[:3], "", ","]), "--out", out,
             "--confirm", pick(rng, ["0", "5", "-1", "1000000"]), "--duel-units",
             pick(rng, ["0", "2", "-1", "1000"]), "--format", pick(rng, ["png", "svg",
                                                                          "gif", ""])]
        maybe("--trials", ["1000", "0", "-1", "1000000000000"], 0.5)
        maybe("--platoon-budget", FLOATS, 0.3)
        maybe("--workers", ["0", "-1", "100000"], 0.2)
        maybe("--scheduler", ["", "tcp://", "nonsense address", "tcp://127.0.0.1:1"], 0.1)
        if rng.random() < 0.6:
            a.append("--force")
    elif cmd == "duel":
        a = ["duel", "--side-a", pick(rng, NAMES), "--side-b", pick(rng, NAMES)]
        maybe("--trials", INTS)
        maybe("--turns", INTS, 0.3)
        maybe("--distance", INTS, 0.3)
        maybe("--seed", INTS, 0.3)
        maybe("--threads", INTS, 0.2)
        maybe("--scenario", ["line", "line", "101", "nowhere", "LINE"], 0.5)  # --distance: line
        if rng.random() < 0.5:
            a.append("--json")
    elif cmd == "import-bs":
        cats = [str(p) for p in (CORPUS / "battlescribe").glob("*.cat")]
        shared = ROOT.parent / "shared" / "data" / "bsdata-dust1947"
        src = [str(shared)] if rng.random() < 0.4 and shared.is_dir() else [
            str(CORPUS / "battlescribe" / "Fuzz.gst"), *rng.sample(cats, rng.randint(1, 3))]
        out = pick(rng, OUT_PATHS)
        a = ["import", "battlescribe", *src, "-o", out]
        if rng.random() < 0.6:
            a.append("--force")
    else:
        facts = ROOT.parent / "shared" / "data" / "unit-facts.csv"
        out = pick(rng, OUT_PATHS)
        a = ["import", "facts", str(facts) if rng.random() < 0.8 else "nope.csv", "-o", out]
        if rng.random() < 0.6:
            a.append("--force")
    return a, out


def sandbox() -> Path:
    d = Path(tempfile.mkdtemp(prefix="dustsim-fuzz-"))
    (d / "important").mkdir()
    (d / "important" / "thesis.txt").write_text("four years of work", encoding="utf-8")
    (d / "afile.txt").write_text("keep me", encoding="utf-8")
    (d / "link").symlink_to(d / "afile.txt")
    (d / "dangling").symlink_to(d / "nowhere")
    (d / "earlier").mkdir()
    (d / "earlier" / ".dustsim-output").write_text("", encoding="utf-8")
    (d / "earlier" / "old.txt").write_text("an earlier output", encoding="utf-8")
    (d / "home").mkdir()
    return d


def snapshot(d: Path) -> dict[str, str]:
    out = {}
    for p in sorted(d.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(d))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def check_json(stdout: str, args: list[str]) -> list[str]:
    """Silent wrong results visible in JSON output."""
    bad = []
    try:
        doc = json.loads(stdout)
    except ValueError:
        return bad

    def walk(x, key=""):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v, key)
        elif isinstance(x, float):
            if math.isnan(x):
                bad.append(f"NaN in {key}")
            if key.startswith("p_") and not -1e-9 <= x <= 1 + 1e-9:
                bad.append(f"{key}={x} outside [0, 1]")

    walk(doc)
    if isinstance(doc, dict):
        if "pmf_damage" in doc and abs(sum(doc["pmf_damage"]) - 1) > 1e-6:
            bad.append("pmf_damage does not sum to 1")
        ps = [doc.get(k) for k in ("p_attacker_wins", "p_defender_wins", "p_ceasefire")]
        if all(isinstance(p, float) for p in ps) and \
                abs(sum(ps) + doc.get("p_draw", 0) - 1) > 1e-6:
            bad.append("epic probabilities do not sum to 1")
        if "--trials" in args and doc.get("trials") not in (None, 0):
            want = args[args.index("--trials") + 1]
            if want.isascii() and want.isdigit() and doc["trials"] != int(want):
                bad.append(f"trials {doc['trials']} != requested {want}")
    return bad


def one_run(i: int, seed: int, timeout: float) -> dict:
    rng = random.Random(seed * 1_000_003 + i)
    args, out = gen_args(rng)
    sig = rng.choice([None, None, None, signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
    delay = rng.uniform(0.2, 8.0)
    d = sandbox()
    before = snapshot(d)
    env = {**os.environ, "HOME": str(d / "home"), "PYTHONPATH": str(ROOT)}
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "dustsim", *args], cwd=d, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sent = None
    try:
        if sig is not None:
            try:
                proc.communicate(timeout=delay)
            except subprocess.TimeoutExpired:
                proc.send_signal(sig)
                sent = sig
        stdout, stderr = proc.communicate(timeout=timeout)
        hung = False
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        hung = True
    wall = time.monotonic() - t0
    rc = proc.returncode
    rec = {"i": i, "args": args, "rc": rc, "signal": sent.name if sent else None,
           "wall": round(wall, 1), "problems": []}
    probs = rec["problems"]
    if hung:
        probs.append("no answer")
    if rc == 1 or "Traceback" in stderr:
        probs.append("traceback")
    if rc == 2:
        lines = [ln for ln in stderr.strip().splitlines() if not ln.startswith("warning:")]
        if args[0] == "validate":  # one line per problem, each naming its file, and a count
            ok = lines and lines[-1].endswith("problem(s) in unit data") and all(
                ".toml" in ln or "x" * 100 in ln for ln in lines[:-1])
        else:
            ok = len(lines) == 1 and lines[0].startswith("dustsim: error:")
        if not ok:
            probs.append("error not one line")
    # -2 / -15: the signal came while Python was still starting (before dustsim could
    # handle it) or after the answer; nothing is written then, which the checks below see
    if rc not in (0, 1, 2, 130, 143, -9) and not hung and not (sent and rc in (-2, -15)):
        probs.append(f"exit {rc}")
    if rc == 0:
        probs += check_json(stdout, args)
    after = snapshot(d)
    # --force that answered 0 was asked to replace an earlier output: the new one complete
    replaced = out if rc == 0 and "--force" in args and out in ("earlier", "earlier/") \
        else None
    if replaced and not (d / "earlier" / ".dustsim-output").is_file():
        probs.append("forced output incomplete: earlier/.dustsim-output missing")
    for rel, h in before.items():
        if replaced and rel.startswith("earlier/"):
            continue
        if after.get(rel) != h:
            probs.append(f"file lost or changed: {rel}")
    hidden = [p.name for p in d.iterdir() if re.fullmatch(r"\..+\.[a-z0-9_]{8}", p.name)
              or p.name.endswith(".old-dustsim")]
    if hidden and sent != signal.SIGKILL:
        probs.append(f"debris: {hidden}")
    if sent == signal.SIGKILL and out:  # the next run cleans up
        sys.path.insert(0, str(ROOT))
        from dustsim.io import clean_stale

        clean_stale(d / out) if out.strip() and len(out) < 200 else None
        left = [p.name for p in d.iterdir() if re.fullmatch(r"\..+\.[a-z0-9_]{8}", p.name)]
        if left:
            probs.append(f"stale debris not cleaned: {left}")
    if out == "earlier" and rc != 0 and (d / "earlier").exists() and \
            not (d / "earlier" / "old.txt").exists():
        probs.append("earlier output lost without a new one")
    rec["stderr"] = stderr.strip()[-300:]
    shutil.rmtree(d, ignore_errors=True)
    return rec


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--log", default="fuzz-campaign.jsonl")
    a = ap.parse_args()
    counts: dict[str, int] = {}
    with ThreadPoolExecutor(a.jobs) as ex, open(a.log, "w", encoding="utf-8") as log:
        for rec in ex.map(lambda i: one_run(i, a.seed, a.timeout), range(a.runs)):
            log.write(json.dumps(rec) + "\n")
            log.flush()
            for p in rec["problems"] or ["ok"]:
                k = p.split(":")[0]
                counts[k] = counts.get(k, 0) + 1
            if rec["problems"]:
                print(rec["i"], rec["problems"], rec["args"], rec["stderr"][-200:],
                      file=sys.stderr)
    print(json.dumps({"runs": a.runs, **counts}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
