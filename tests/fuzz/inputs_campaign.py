"""A fuzz campaign over the input formats (not part of the test suite; a few minutes).

    python tests/fuzz/inputs_campaign.py --runs 300 --jobs 2 --seed 7

Each run writes one mutated input (unit TOML, ENLIST extract, facts CSV, BattleScribe
catalogue, TOML list, roster .ros/.rosz, patch) into a fresh sandbox and runs the command that
reads it as a subprocess. Mutations: an unknown key (at any table level), a wrong type, a huge
number, a bad encoding, a value that would become a path (``../../ESCAPED``, absolute),
random bytes. Counted: internal errors (exit 1 or a traceback), runs with no answer in
--timeout seconds, errors of more than one line, silent wrong results (exit 0 on a mutation
every format must refuse: unknown key, wrong type, huge number, bad encoding, path-like bloc),
and files written outside the output folder.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent
ABS = "/tmp/dustsim-campaign-absolute"
MUST_REFUSE = {"unknown_key", "wrong_type", "huge", "encoding", "path"}
HUGE = [10**20, 10**300, -10**15]
WRONG = [True, [1], {"a": 1}, "x", 1.5, float("nan")]
PATHS = ["../../ESCAPED", ABS, "", "a/b", "..", "."]

UNIT = {"schema": 1, "edition": "dust-1947", "card": [{
    "name": "X", "kind": "squad", "armour": "I2", "ap": 7, "models": 3,
    "models_source": "card", "move": 1, "march_move": 2, "skills": ["Brave"], "source": "f",
    "weapon": [{"name": "Gun", "range": "6", "count": 1, "line": ["3/1"] + ["-"] * 13}]}]}
LIST = {"name": "l", "points": 75, "unit": [{"card": "Pounder", "count": 1}]}
PATCH = {"change": [{"unit": "Pounder", "ap": 12}]}
ENLIST = json.loads((CORPUS / "enlist" / "_base" / "units.jsonl").read_text())
FACTS_HEAD = ["source_kind", "source", "edition", "unit", "bloc", "faction", "field", "weapon",
              "weapon_count", "range", "column", "value", "quote_summary"]
FACTS_ROW = ["seed", "f L1", "2013", "Fuzz", "Allies", "", "armour", "", "", "", "", "V3", "q"]
CAT = (CORPUS / "battlescribe" / "cost_nan.cat").read_text(encoding="utf-8").replace(
    'value="nan"', 'value="5"')
ROSTER = (CORPUS / "roster" / "number_1_9.ros").read_text(encoding="utf-8").replace(
    'number="1.9"', 'number="1"')


def _tables(doc):
    """Every dict inside ``doc`` (every table level)."""
    out = [doc]
    for v in doc.values():
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, dict):
                out += _tables(x)
    return out


def mutate_doc(rng, doc, ints, kind):
    import copy

    doc = copy.deepcopy(doc)
    tables = _tables(doc)
    if kind == "unknown_key":
        rng.choice(tables)["zz" + rng.choice(["skils", "armor", "damage_trak", "keyword",
                                               "weapons", "cuont"])] = 1
    elif kind == "wrong_type":
        t = rng.choice([t for t in tables if t])
        k = rng.choice(list(t))
        t[k] = rng.choice([w for w in WRONG if type(w) is not type(t[k])])
    elif kind == "huge":
        t = rng.choice([t for t in tables if any(k in t for k in ints)])
        t[rng.choice([k for k in ints if k in t])] = rng.choice(HUGE)
    return doc


def toml_text(doc) -> str:
    import tomli_w

    return tomli_w.dumps(doc)


def encode(rng, text: str, kind: str) -> bytes:
    if kind == "encoding":
        return rng.choice([text.encode() + b"\xff\xfe", text.encode("utf-16"),
                           (text + "é").encode("latin-1", "replace")])
    if kind == "bytes":
        b = bytearray(text.encode())
        for _ in range(rng.randint(1, 5)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    return text.encode()


def make_case(rng, box: Path) -> tuple[str, str, list[str], Path]:
    fmt = rng.choice(["unit", "list", "patch", "enlist", "facts", "catalogue", "roster"])
    kinds = {"unit": ["unknown_key", "wrong_type", "huge", "encoding", "bytes"],
             "list": ["unknown_key", "wrong_type", "huge", "encoding", "bytes"],
             "patch": ["unknown_key", "huge", "encoding", "bytes"],
             "enlist": ["unknown_key", "wrong_type", "huge", "encoding", "bytes", "path"],
             "facts": ["unknown_key", "huge", "encoding", "bytes", "path"],
             "catalogue": ["value", "encoding", "bytes"],
             "roster": ["value", "encoding", "bytes", "zip"]}[fmt]
    kind = rng.choice(kinds)
    out = box / "a" / "b" / "out"
    out.parent.mkdir(parents=True)
    if fmt in ("unit", "list", "patch"):
        base, ints = {"unit": (UNIT, ("ap", "models", "move", "march_move", "count")),
                      "list": (LIST, ("points", "count")),
                      "patch": (PATCH, ("ap",))}[fmt]
        f = box / "in.toml"
        f.write_bytes(encode(rng, toml_text(mutate_doc(rng, base, ints, kind)), kind))
        argv = {"unit": ["validate", str(f)], "list": ["list", "check", str(f)],
                "patch": ["report", "--units", "Pounder", "--patch", str(f), "--out", str(out),
                          "--format", "png", "--confirm", "0", "--trials", "200",
                          "--value-trials", "2", "--duel-trials", "50", "--quiet"]}[fmt]
    elif fmt == "enlist":
        d = box / "extract"
        d.mkdir()
        for n in ("platoons.jsonl", "blocs.jsonl"):
            (d / n).write_bytes((CORPUS / "enlist" / "_base" / n).read_bytes())
        u = ENLIST
        if kind == "path":
            u = dict(ENLIST, bloc=rng.choice(PATHS))
        elif kind in ("unknown_key", "wrong_type", "huge"):
            u = mutate_doc(rng, ENLIST, ("cost", "move", "march", "armor", "health", "count"),
                           kind)
        (d / "units.jsonl").write_bytes(encode(rng, json.dumps(u) + "\n", kind))
        argv = ["import", "enlist", str(d), "-o", str(out)]
    elif fmt == "facts":
        import csv
        import io

        head, row = list(FACTS_HEAD), list(FACTS_ROW)
        if kind == "unknown_key":
            head.append("zz" + rng.choice(["valeu", "blok"]))
            row.append("1")
        elif kind == "huge":
            row[6], row[11] = rng.choice(["models", "move", "ap", "damage_capacity"]), \
                rng.choice(["9" * 30, "inf", "1e309", "٣", "nan"])
        elif kind == "path":
            row[4] = rng.choice([*PATHS[:2], "x/y", "../up"])
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(head)
        w.writerow(row)
        f = box / "facts.csv"
        f.write_bytes(encode(rng, buf.getvalue(), kind))
        argv = ["import", "facts", str(f), "-o", str(out)]
    elif fmt == "catalogue":
        text = CAT
        if kind == "value":
            what = rng.choice(['value="5"', 'value="S2"'])
            v = rng.choice(["", "٣", "inf", "-1", "x", "S9", "V2", "9" * 40])
            text = CAT.replace(what, f'value="{v}"')
        f = box / "c.cat"
        f.write_bytes(encode(rng, text, kind))
        argv = ["import", "battlescribe", str(CORPUS / "battlescribe" / "Fuzz.gst"), str(f),
                "-o", str(out)]
    else:
        text = ROSTER
        if kind == "value":
            v = rng.choice(["inf", "nan", "1.9", "1e309", "٣", "-1", "0", "10001", "", "9" * 30])
            text = ROSTER.replace('number="1"', f'number="{v}"') if rng.random() < .5 else \
                ROSTER.replace('value="75.0"/></costLimits>', f'value="{v}"/></costLimits>')
        if kind == "zip":
            f = box / "r.rosz"
            with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as zf:
                zf.writestr("r.ros", text)
            b = bytearray(f.read_bytes())
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            f.write_bytes(bytes(b))
        else:
            f = box / "r.ros"
            f.write_bytes(encode(rng, text, kind))
        argv = ["list", "check", str(f)]
    return fmt, kind, argv, out


def run_one(seed: int, timeout: float) -> dict:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="dustsim-campaign-") as d:
        box = Path(d)
        fmt, kind, argv, out = make_case(rng, box)
        before = {p for p in box.rglob("*")}
        try:
            p = subprocess.run([sys.executable, "-m", "dustsim", *argv], capture_output=True,
                               text=True, timeout=timeout, cwd=box)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            return {"seed": seed, "fmt": fmt, "kind": kind, "hang": True}
        after = {p for p in box.rglob("*")}
        outside = [str(q) for q in after - before
                   if out not in q.parents and q != out and not q.name.startswith(".")]
        outside += [ABS] if Path(ABS + ".toml").exists() or Path(ABS).exists() else []
        lines = [ln for ln in err.splitlines() if ln.startswith("dustsim: ")]
        return {"seed": seed, "fmt": fmt, "kind": kind, "rc": rc,
                "internal": rc == 1 or "Traceback" in err,
                "multiline": rc == 2 and len(lines) != 1 and argv[0] != "validate",
                "silent": rc == 0 and kind in MUST_REFUSE, "outside": outside,
                "err": err.strip()[-300:]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(lambda s: run_one(s, a.timeout),
                          range(a.seed * 100_000, a.seed * 100_000 + a.runs)))
    counts = {k: sum(bool(r.get(k)) for r in res)
              for k in ("internal", "hang", "multiline", "silent", "outside")}
    by = {}
    for r in res:
        by.setdefault(f"{r['fmt']}/{r['kind']}", []).append(r.get("rc", "hang"))
    print(json.dumps({"runs": len(res), **counts}, indent=1))
    for k, v in sorted(by.items()):
        print(f"  {k}: {len(v)} runs, exit codes {sorted(set(map(str, v)))}")
    for r in res:
        if any(r.get(k) for k in counts):
            print("FINDING", json.dumps(r)[:600])
    return 0


if __name__ == "__main__":
    sys.exit(main())
