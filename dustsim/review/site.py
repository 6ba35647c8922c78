"""The review as a static site: sections of tables and charts, a page per card.

A :class:`Section` is a title, a short introduction, tables and charts; :func:`write_site`
renders any list of them with the jinja2 templates shipped in ``dustsim/review/templates``, so a
new section (or a new column) renders without template changes. Tables become interactive
(sort, filter per column, search) with DataTables, taken from the ``itables`` package's
bundled build and copied into the site's ``assets/``: the site works offline from disk and
can be hosted as is. Table data travel inline as JSON (no fetch, so ``file://`` works);
numbers stay numbers for sorting and are formatted for display in the browser.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

# column code -> (label, unit); anything else gets a label from its code (``humanise``)
COLUMN_LABELS: dict[str, tuple[str, str]] = {
    "unit": ("Unit", ""), "bloc": ("Bloc", ""), "faction": ("Faction", ""),
    "kind": ("Kind", ""), "edition": ("Edition", ""), "ap": ("Cost", "AP"),
    "offence": ("Offence", "AP destroyed/action"),
    "offence_per_ap": ("Offence per AP", "AP destroyed/action/AP"),
    "offence_sustained": ("Offence, Sustained Attack", "AP destroyed/action"),
    "durability": ("Durability", "actions to destroy"),
    "durability_per_ap": ("Durability per AP", "actions/AP"),
    "composite": ("Composite per AP", "offence/AP × durability/AP"),
    "partial": ("Partial figures", ""),
    "rank_offence_per_ap": ("Rank: offence per AP", ""),
    "rank_durability_per_ap": ("Rank: durability per AP", ""),
    "rank_composite": ("Rank: composite", ""), "rank_in_bloc": ("Rank in bloc", ""),
    "rank_in_faction": ("Rank in faction", ""), "rank_in_kind": ("Rank in kind", ""),
    "fair_ap": ("Suggested cost", "AP"), "fair_low": ("Suggested cost, 5 %", "AP"),
    "fair_high": ("Suggested cost, 95 %", "AP"), "residual": ("Residual", "log AP"),
    "verdict": ("Verdict", ""), "column": ("Armour column", ""), "action": ("Action", ""),
    "cover": ("In cover", ""), "mean_damage": ("Mean damage", "per action"),
    "p_destroy": ("P(destroy)", "per action"), "mc_mean_damage": ("Monte Carlo mean damage", ""),
    "z": ("z-score", "SE"), "size": ("Size", "models or track"),
    "n_cards": ("Cards with this armour", ""), "weight": ("Column weight", "share of AP"),
    "platoon": ("Platoon", ""), "command": ("Command", ""), "required": ("Required", ""),
    "support": ("Support", ""), "ap_paid": ("Cost paid", "AP"), "units": ("Units", ""),
    "budget": ("Budget", "AP"), "ap_total": ("Printed cost", "AP"),
    "advantage_gain": ("Advantage gain", "composite"), "advantage": ("Advantage", ""),
    "lines": ("Rulebook lines", ""), "modelled": ("Modelled", ""),
    "buildable": ("Buildable", ""), "legal_builds": ("Legal builds", ""),
    "printed": ("Printed name", ""), "card": ("Card", ""), "matched_by": ("Matched by", ""),
    "unit_a": ("Side A", ""), "unit_b": ("Side B", ""), "ap_a": ("Cost A", "AP"),
    "ap_b": ("Cost B", "AP"), "p_a_wins": ("P(A wins)", ""), "p_b_wins": ("P(B wins)", ""),
    "p_draw": ("P(no result)", ""), "playable": ("Playable", ""),
    "expected_turns_a_wins": ("Turns to A's win", "mean"),
    "expected_turns_b_wins": ("Turns to B's win", "mean"),
    "ap_lost_a": ("AP lost by A", "mean"), "ap_lost_b": ("AP lost by B", "mean"),
    "attacker": ("Attacker", ""), "defender": ("Defender", ""), "target": ("Target", ""),
    "attacker_ap": ("Attacker cost", "AP"), "target_ap": ("Target cost", "AP"),
    "target_column": ("Target armour", ""), "ap_destroyed": ("AP destroyed", "per action"),
    "expected_actions": ("Actions to destroy", "mean"),
    "ap_destroyed_per_ap": ("AP destroyed per AP", "per action"),
    "capital": ("Capital", ""), "production_centre": ("Production centre", ""),
    "p_attacker_wins": ("P(attacker wins)", ""), "p_defender_wins": ("P(defender wins)", ""),
    "p_ceasefire": ("P(cease-fire)", ""), "pp_lost_attacker": ("PP lost, attacker", "mean"),
    "pp_lost_defender": ("PP lost, defender", "mean"), "mix": ("Army mix", ""),
    "cost": ("Cost", "PP"), "p_win": ("P(win)", ""), "pp_lost": ("PP lost", "mean"),
    "pp_destroyed": ("PP destroyed", "mean"), "efficiency": ("PP destroyed per PP lost", ""),
    "pp_efficiency_attacker": ("Attacker PP destroyed per PP lost", ""),
    "expected_rolls": ("Rolls", "mean"), "states": ("Markov states", ""),
    "survivors_attacker": ("Attacker survivors", "mean"),
    "survivors_defender": ("Defender survivors", "mean"),
    "casualties": ("Casualty policy", ""), "retreat": ("Retreat policy", ""),
    "notes": ("Notes", ""), "why": ("Why", ""), "ref_kind": ("Reference kind", ""),
    "ref_size": ("Reference size", ""), "ref_ap": ("Reference cost", "AP"),
    "mean_hits": ("Mean hits", ""), "mean_unsaved": ("Mean unsaved hits", ""),
    "mean_models_killed": ("Mean models killed", ""),
}
ABBREVIATIONS = {"ap": "AP", "pp": "PP", "se": "SE", "mc": "Monte Carlo", "p": "P",
                 "pmf": "PMF"}
MISSING = "?"


def humanise(code: str) -> str:
    """A readable header for a column code: 'offence_per_ap' -> 'Offence per AP'."""
    words = [ABBREVIATIONS.get(w, w) for w in str(code).split("_") if w]
    if not words:
        return str(code)
    if words[0] == "P" and len(words) > 1:  # p_win -> P(win)
        return "P(" + " ".join(words[1:]) + ")"
    first = words[0]
    return " ".join([first[:1].upper() + first[1:], *words[1:]])


def column_label(code: str) -> tuple[str, str]:
    return COLUMN_LABELS.get(code, (humanise(code), ""))


def _se_partner(col: str, cols: Iterable[str]) -> str | None:
    """The Monte Carlo standard-error column of ``col`` (``X_se``, ``se_X``, ``mc_se_X``)."""
    cols = set(cols)
    base = col[3:] if col.startswith("mc_") else col
    for cand in (f"{col}_se", f"se_{col}", f"mc_se_{base}" if col.startswith("mc_") else None,
                 f"se_{base}"):
        if cand and cand in cols and cand != col:
            return cand
    return None


def _is_se(col: str) -> bool:
    return col.endswith("_se") or col.startswith("se_") or col.startswith("mc_se_")


def _cell(v):
    """JSON value of one cell: numbers stay numbers, unknown is null (shown '?'), booleans
    and everything else become readable text."""
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if not math.isfinite(float(v)) else float(v)
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k} {x}" for k, x in v.items())
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return str(v)


def _values(col: pd.Series) -> list:
    """A column's JSON values (as :func:`_cell`), vectorised for the common dtypes."""
    kind = col.dtype.kind
    if kind == "b":
        return ["yes" if v else "no" for v in col.tolist()]
    if kind in "iu":
        return col.tolist()
    if kind == "f":
        a = col.to_numpy(float)
        ok = np.isfinite(a).tolist()
        return [v if f else None for v, f in zip(a.tolist(), ok, strict=True)]
    # text columns: a str is its own cell, a missing value is null (as _cell says)
    na = col.isna().tolist()
    return [None if n else v if type(v) is str else _cell(v)
            for v, n in zip(col.tolist(), na, strict=True)]


@dataclass(frozen=True)
class Table:
    """One interactive table: every row of ``frame`` (columns: ``columns`` or all)."""

    key: str
    title: str
    frame: pd.DataFrame = field(repr=False)
    note: str = ""
    columns: tuple[str, ...] = ()
    links: dict[str, str] = field(default_factory=dict)  # column -> 'card' (link to pages)
    order: tuple[str, str] | None = None  # (column, 'asc'|'desc')
    page_length: int = 25

    def payload(self, card_pages: dict[str, str] | None = None) -> dict:
        df = self.frame
        cols = [c for c in (self.columns or df.columns) if c in df.columns]
        shown = [c for c in cols if not _is_se(c) or _se_partner_of(c, cols) is None]
        spec = []
        for c in shown:
            label, unit = column_label(c)
            se = _se_partner(c, df.columns)
            num = df[c].dtype.kind in "fiu" and df[c].dtype.kind != "b"
            spec.append({"key": c, "title": label, "unit": unit, "num": bool(num),
                         "se": None, "se_key": se,
                         "link": self.links.get(c)})
        keys = [s["key"] for s in spec] + [s["se_key"] for s in spec if s["se_key"]]
        keys = list(dict.fromkeys(keys))
        for s in spec:
            s["se"] = keys.index(s["se_key"]) if s["se_key"] else None
        data = [list(r) for r in zip(*(_values(df[k]) for k in keys), strict=True)] \
            if keys else []
        order = None
        if self.order and self.order[0] in shown:
            order = [shown.index(self.order[0]), self.order[1]]
        return {"id": self.key, "columns": spec, "data": data, "order": order,
                "pageLength": self.page_length, "cards": card_pages or {}}


def static_rows(payload: dict, n: int | None = None) -> list[list[tuple[str, str | None, bool]]]:
    """The first ``n`` rows (default: the table's page length) of a :meth:`Table.payload` in
    its initial order, as (text, link or None, numeric) cells: the page shows them as plain
    HTML (readable without JavaScript, in a print or a headless screenshot) until the
    interactive table replaces them. Text as the browser formats it (``site.js``)."""
    cols, data = payload["columns"], payload["data"]
    n = payload.get("pageLength", 25) if n is None else n
    rows = data
    if payload.get("order"):
        i, direction = payload["order"]
        num = cols[i]["num"]

        def key(r):
            v = r[i]
            if v is None:
                return (0, 0.0) if num else (0, "")
            return (1, v) if num else (1, str(v))

        rows = sorted(data, key=key, reverse=direction == "desc")
    out = []
    for r in rows[:n] if n >= 0 else rows:
        cells = []
        for i, c in enumerate(cols):
            v = r[i]
            text = MISSING if v is None else (_js_number(v) if isinstance(v, (int, float))
                                              and not isinstance(v, bool) else str(v))
            if c["se"] is not None and v is not None and r[c["se"]] is not None:
                text += " ± " + _js_number(float(f"{r[c['se']]:.2g}"))
            href = payload["cards"].get(v) if c.get("link") == "card" and v is not None \
                else None
            cells.append((text, href, bool(c["num"])))
        out.append(cells)
    return out


def _js_number(v) -> str:
    """A number as site.js's dustsimFormat shows it (4 significant digits, separators)."""
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) < 1e15):
        return f"{int(v):,}"
    if not math.isfinite(v):
        return MISSING
    if abs(v) >= 1e4:
        return f"{round(v):,}"
    return f"{float(f'{v:.4g}')!r}".removesuffix(".0")


def _se_partner_of(se_col: str, cols: Iterable[str]) -> str | None:
    """The value column a standard-error column belongs to (shown as 'value ± se')."""
    for c in cols:
        if c != se_col and _se_partner(c, cols) == se_col:
            return c
    return None


@dataclass(frozen=True)
class Section:
    """A part of the review: a page with a title, an introduction, tables and charts."""

    slug: str
    title: str
    intro: str = ""
    tables: tuple[Table, ...] = ()
    charts: tuple[tuple[str, str], ...] = ()  # (chart file stem, caption)
    downloads: tuple[str, ...] = ()  # table names under tables/ (CSV + Parquet)
    html: str = ""  # ready-made HTML (trusted: produced by dustsim, escaped there)


def slugify(name: str) -> str:
    """File-safe ASCII slug: 'Guaï-lo (Mk II)' -> 'guai-lo-mk-ii'."""
    s = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    s = re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()
    return s or "card"


def card_slugs(names: Iterable[str]) -> dict[str, str]:
    """Unique slug per name (a numeric suffix where two names fold to one slug)."""
    out, seen = {}, {}
    for n in names:
        base = slugify(n)
        k = seen.get(base, 0)
        seen[base] = k + 1
        out[n] = base if k == 0 else f"{base}-{k + 1}"
    return out


def _env():
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("dustsim.review", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson_script"] = _json_script
    env.filters["num"] = format_number
    env.filters["static_rows"] = static_rows
    return env


def _json_script(obj) -> str:
    """JSON safe inside <script type="application/json"> (no '</' sequences)."""
    import markupsafe

    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return markupsafe.Markup(text.replace("</", "<\\/"))


def format_number(v, digits: int = 4) -> str:
    """Readable number: '?' for unknown, yes/no for booleans, thousands separators."""
    if v is None:
        return MISSING
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(float(v)):
            return MISSING
        if float(v).is_integer() and abs(v) < 1e6:
            return f"{int(v):,}"
        return f"{float(v):,.{digits}g}" if abs(v) < 1e4 else f"{float(v):,.0f}"
    return str(v)


def datatables_assets() -> tuple[Path, Path, Path]:
    """DataTables' bundled JS and CSS (and licence) from the installed ``itables`` package."""
    import importlib.util

    spec = importlib.util.find_spec("itables")
    if spec is None or not spec.origin:
        from dustsim.errors import DustsimError

        raise DustsimError("the report needs the 'itables' package (DataTables assets): "
                           "pip install itables", field="itables")
    root = Path(spec.origin).parent
    lic = next(root.parent.glob("itables-*.dist-info/licenses/LICENSE"),
               next(root.parent.glob("itables-*.dist-info/LICENSE*"), None))
    return root / "html" / "dt_bundle.js", root / "html" / "dt_bundle.css", lic


def write_assets(out: Path) -> None:
    """assets/: DataTables (as a classic script holding the ES module's source, imported
    from a blob URL: module scripts cannot be loaded from file://), its CSS, the site's."""
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    js, css, lic = datatables_assets()
    src = js.read_text(encoding="utf-8")
    (assets / "datatables.js").write_text(
        "/* DataTables bundle from the itables package (MIT; see LICENSE-itables.txt and "
        "https://datatables.net/license/mit) */\nwindow.DUSTSIM_DATATABLES_SRC = "
        + json.dumps(src) + ";\n", encoding="utf-8")
    shutil.copyfile(css, assets / "datatables.css")
    if lic is not None:
        shutil.copyfile(lic, assets / "LICENSE-itables.txt")
    static = Path(__file__).parent / "templates" / "static"
    for f in static.iterdir():
        if f.is_file():
            shutil.copyfile(f, assets / f.name)


def write_site(out: Path, *, meta: dict, sections: list[Section], cards: list[dict],
               headline: list[Table], card_table: Table | None) -> list[Path]:
    """Render index.html, one page per section and one per card; return the pages."""
    env = _env()
    write_assets(out)
    slugs = {c["name"]: c["slug"] for c in cards}
    pages = []
    ctx = {"meta": meta, "sections": sections, "cards_index": card_table is not None}

    def render(template, path: Path, root: str, **kw):
        path.parent.mkdir(parents=True, exist_ok=True)
        html = env.get_template(template).render(root=root, **ctx, **kw)
        path.write_text(html, encoding="utf-8")
        pages.append(path)

    def tables(ts, root):
        pages_map = {n: f"{root}cards/{s}.html" for n, s in slugs.items()}
        return [t.payload(pages_map) for t in ts]

    render("index.html.j2", out / "index.html", "", headline=tables(headline, ""),
           headline_meta=headline)
    for s in sections:
        render("section.html.j2", out / "sections" / f"{s.slug}.html", "../", section=s,
               payloads=tables(s.tables, "../"))
    if card_table is not None:
        render("cards.html.j2", out / "cards" / "index.html", "../",
               payloads=tables([card_table], "../"), table=card_table)
    tpl = env.get_template("card.html.j2")
    cdir = out / "cards"
    cdir.mkdir(parents=True, exist_ok=True)
    pages_map = {n: f"{s}.html" for n, s in slugs.items()}
    for c in cards:
        payloads = [t.payload(pages_map) for t in c["tables"]]
        p = cdir / f"{c['slug']}.html"
        p.write_text(tpl.render(root="../", card=c, payloads=payloads, **ctx),
                     encoding="utf-8")
        pages.append(p)
    return pages
