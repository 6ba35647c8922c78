"""``dustsim report``: the balance-review bundle (tables, charts, index.html) for one edition.

Everything is written into a temporary folder that replaces ``--out`` only at the end: an
interrupted run leaves no half report, and an existing report is replaced only with
``--force``. The default engine is the exact one; a random sample of its figures is
confirmed by Monte Carlo, and the agreement (z-scores) is part of the report.
"""

from __future__ import annotations

import html
import json
import platform
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .analytics import (
    column_weights,
    reference_targets,
    scores,
)
from .cards import Card, load_cards
from .charts import (
    damage_distributions,
    efficiency_heatmap,
    fair_points_scatter,
    platoon_comparison,
    ranking_bars,
    reliability_scatter,
    save,
)
from .errors import DustsimError
from .io import atomic_dir, check_output_dir
from .sweep import dask_client, sweep

PLATOON_ROWS = 250


@dataclass(frozen=True)
class ReportSettings:
    edition: str = "dust-1947"
    units: tuple[str, ...] = ()
    engine: str = "exact"
    trials: int = 20_000
    seed: int = 0
    formats: tuple[str, ...] = ("png", "svg", "pdf")
    confirm: int = 200
    progress: bool = True
    platoon_budget: float = 75
    platoon_support: int = 1
    workers: int = 0
    scheduler: str | None = None
    epic: bool = True
    duel_units: int = 8  # below 2: no duel section
    duel_trials: int = 4_000
    duel_distance: int = 8
    duel_turns: int = 5
    value_trials: int = 32  # value model: engagements per pairing and distance
    patch: str | None = None  # balance proposal (TOML): before/after section


def _select(cards: list[Card], s: ReportSettings) -> tuple[list[Card], list[Card]]:
    ed = [c for c in cards if c.edition == s.edition]
    if not ed:
        eds = sorted({c.edition for c in cards})
        raise DustsimError(f"no cards of edition {s.edition!r} (have: {', '.join(eds)})",
                           field="--edition")
    if not s.units:
        return ed, ed
    names = {c.name.lower(): c for c in ed}
    missing = [u for u in s.units if u.lower() not in names]
    if missing:
        raise DustsimError(f"no {s.edition} card named {', '.join(map(repr, missing))}",
                           field="--units")
    return ed, [names[u.lower()] for u in s.units]


def _confirm(uc: pd.DataFrame, edition_cards: list[Card], s: ReportSettings) -> pd.DataFrame:
    """Monte Carlo check of a random sample of exact unit x column figures."""
    from .analytics import static_spec
    from .kernel import simulate_batch

    rows = uc.dropna(subset=["mean_damage"])
    rows = rows[rows["mean_damage"] > 0]
    if rows.empty or s.confirm <= 0:
        return pd.DataFrame()
    sample = rows.sample(n=min(s.confirm, len(rows)), random_state=s.seed)
    by_name = {c.name: c for c in edition_cards}
    refs = reference_targets(edition_cards)
    specs = [static_spec(by_name[r.unit], refs[r.column].target(r.cover), r.action)
             for r in sample.itertuples()]
    mc = simulate_batch(specs, s.trials, s.seed, progress=s.progress)
    out = sample[["unit", "column", "action", "cover", "mean_damage", "p_destroy"]].copy()
    out["mc_mean_damage"] = [r.damage.mean() for r in mc]
    out["mc_se_damage"] = [r.damage.mean_se for r in mc]
    se = out["mc_se_damage"].replace(0, np.nan)
    out["z"] = (out["mc_mean_damage"] - out["mean_damage"]) / se
    return out


def build_report(out: Path, settings: ReportSettings, *, force: bool = False,
                 data: list[Path] | None = None) -> dict:
    """Compute every table and chart and write the bundle atomically; return a summary."""
    t0 = time.perf_counter()
    out = Path(out)
    check_output_dir(out, force)
    cards = load_cards(data)
    edition_cards, chosen = _select(cards, settings)
    from .value import ValueSettings, load_patch

    value_settings = ValueSettings(trials=settings.value_trials, seed=settings.seed)
    changes = load_patch(settings.patch, edition_cards) if settings.patch else None
    with atomic_dir(out, force=force) as tmp:
        tables, charts = tmp / "tables", tmp / "charts"
        tables.mkdir()
        with dask_client(settings.workers, settings.scheduler) as client:
            uc, uu = sweep(edition_cards, chosen, engine=settings.engine,
                           trials=settings.trials, seed=settings.seed, client=client,
                           progress=settings.progress)
        sc = scores(uc, uu, edition_cards)
        value_frames, fp, value_html = _value(edition_cards, chosen, value_settings, changes,
                                              charts, settings)
        if not sc.empty:  # the roles no figure values, named in every table
            sc["not_modelled"] = sc["unit"].map(fp.set_index("unit")["not_modelled"])
        refs = reference_targets(edition_cards)
        ref_df = pd.DataFrame([r.__dict__ for r in refs.values()])
        ref_df["weight"] = ref_df["column"].map(column_weights(edition_cards))
        confirm = _confirm(uc, edition_cards, settings) if settings.engine == "exact" else \
            pd.DataFrame()
        frames = {"unit_column": uc, "unit_unit": uu, "scores": sc, "fair_points": fp,
                  "reference_targets": ref_df, **value_frames}
        if not confirm.empty:
            frames["mc_confirmation"] = confirm
        frames.update(_platoons(edition_cards, sc, settings))
        platoons_all = frames.pop("_platoons_all", None)
        if settings.duel_units > 1:
            frames.update(_duels(chosen, sc, settings))
        epic_rows = None
        if settings.epic:
            epic_frames, epic_rows = _epic()
            frames.update(epic_frames)
        for name, df in frames.items():
            df.to_csv(tables / f"{name}.csv", index=False)
            df.to_parquet(tables / f"{name}.parquet", index=False)
        chart_files = _charts(charts, uc, sc, fp, edition_cards, chosen, settings,
                              platoons_all)
        if "patch" in frames:
            chart_files.append("patch")
        if "duels" in frames and frames["duels"]["playable"].sum() > 1:
            from .charts import duel_matrix_chart

            save(duel_matrix_chart(frames["duels"], _duel_title(settings)), charts,
                 "duels", settings.formats)
            chart_files.append("duels")
        if epic_rows:
            from .charts import epic_mixes

            save(epic_mixes(epic_rows, EPIC_BUDGET, EPIC_OPPONENT), charts, "epic_mixes",
                 settings.formats)
            chart_files.append("epic_mixes")
        summary = {
            "edition": settings.edition, "cards": len(chosen),
            "complete_cards": sum(c.complete for c in chosen),
            "engine": settings.engine, "trials": settings.trials, "seed": settings.seed,
            "workers": settings.workers, "scheduler": settings.scheduler,
            "rows_unit_column": len(uc), "rows_unit_unit": len(uu),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        if not confirm.empty:
            z = confirm["z"].abs()
            summary["mc_confirmation"] = {"rows": len(confirm), "max_abs_z": float(z.max()),
                                          "within_3_sigma": float((z <= 3).mean())}
        settings_doc = {**summary, "units": list(settings.units),
                        "formats": list(settings.formats), "dustsim": __version__,
                        "python": platform.python_version(),
                        "sources": sorted({f"{src.split(' L')[0]} @ {c.revision or '-'}"
                                           if src == c.source else src.split(" L")[0]
                                           for c in chosen
                                           for src in (c.sources or (c.source,))})}
        (tmp / "settings.json").write_text(json.dumps(settings_doc, indent=1), encoding="utf-8")
        (tmp / "index.html").write_text(
            _html(settings_doc, frames, chart_files, refs, value_html), encoding="utf-8")
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    return summary


EPIC_BATTLES = (
    ("4 tank", "3 tank", {}), ("4 tank", "3 tank", {"production_centre": True}),
    ("4 tank", "3 tank", {"capital": True}), ("4 tank", "3 tank", {"kind": "amphibious"}),
    ("2 tank, 1 mech, 1 fighter", "3 tank", {}), ("4 tank, 1 mech", "3 tank, 1 fighter", {}),
    ("5 submarine", "4 submarine", {"kind": "sea"}),
)
EPIC_BUDGET, EPIC_OPPONENT = 20, "3 tank, 2 fighter"


def _epic() -> tuple[dict, list]:
    """Dust Epic section: example battles (exact Markov chain) and the optimiser."""
    from .epic import battle, optimize

    rows = [battle(a, d, engine="exact", **kw).to_dict() for a, d, kw in EPIC_BATTLES]
    for r in rows:
        for side in ("attacker", "defender"):
            surv = r.pop(f"expected_survivors_{side}")
            r[f"survivors_{side}"] = ", ".join(f"{v:.2f} {t}" for t, v in surv.items())
    mixes = optimize(EPIC_BUDGET, EPIC_OPPONENT)
    return {"epic_battles": pd.DataFrame(rows), "epic_mixes": pd.DataFrame(mixes)}, mixes


def _duel_title(s: ReportSettings) -> str:
    return (f"{s.edition}: one-on-one duels, P(side A wins) ({s.duel_distance} squares, "
            f"up to {s.duel_turns} turns, {s.duel_trials:,} duels each)")


def _duels(chosen: list[Card], sc: pd.DataFrame, s: ReportSettings) -> dict:
    """Duel section: the best ``duel_units`` cards by composite per AP, each against each."""
    from .duel import DUEL_RULESETS, DuelUnit, compile_duel, duel_matrix
    from .rules import DEFAULT_RULESET_FOR_EDITION

    ruleset = DEFAULT_RULESET_FOR_EDITION.get(s.edition)
    if ruleset not in DUEL_RULESETS or sc.empty:
        return {}
    by_name = {c.name: c for c in chosen}
    picked = []
    for name in sc.sort_values("composite", ascending=False)["unit"]:
        card = by_name.get(name)
        if card is None:
            continue
        try:
            compile_duel([DuelUnit(card)], [DuelUnit(card)], ruleset=ruleset)
        except DustsimError:
            continue
        picked.append(card)
        if len(picked) == s.duel_units:
            break
    if len(picked) < 2:
        return {}
    m = duel_matrix(picked, ruleset=ruleset, distance=s.duel_distance, turns=s.duel_turns,
                    trials=s.duel_trials, seed=s.seed, progress=s.progress)
    return {"duels": m}


def _value(edition_cards: list[Card], chosen: list[Card], vs, changes,
           charts: Path, s: ReportSettings) -> tuple[dict, pd.DataFrame, str]:
    """The value model (:mod:`dustsim.value`) on the whole edition: tables for the chosen
    cards, the section's HTML, and the before/after of a patch."""
    from .value import (
        html_section,
        patch_chart,
        patch_section,
        roles_table,
        run_patch,
        value_model,
    )

    vm = value_model(edition_cards, vs, progress=s.progress)
    names = {c.name for c in chosen}
    fp = vm.table[vm.table["unit"].isin(names)].reset_index(drop=True)
    frames = {"value_engagements": vm.engagements,
              "value_field": pd.DataFrame([o.__dict__ for o in vm.field],
                                          columns=["name", "column", "weight", "n_class",
                                                   "class_ap"]),
              "value_roles": roles_table(edition_cards)}
    parts = [html_section(vm, _table_html, names)]
    if changes:
        _after, diff = run_patch(edition_cards, changes, vm, progress=s.progress)
        frames["patch"] = diff
        charts.mkdir(exist_ok=True)
        save(patch_chart(diff, f"{s.edition}: balance patch {Path(s.patch).name}"), charts,
             "patch", s.formats)
        parts.append(patch_section(diff, _table_html, "patch"))
    return frames, fp, "\n".join(parts)


def _platoons(edition_cards: list[Card], sc: pd.DataFrame, s: ReportSettings) -> dict:
    """Platoon tables for editions with platoon charts (Dust 1947)."""
    from .platoons import advantages, load_platoons, matches, platoon_table

    pls = [p for p in load_platoons() if p.edition == s.edition]
    if not pls:
        return {}
    table = platoon_table(pls, edition_cards, sc, budget=s.platoon_budget,
                          max_support=s.platoon_support, progress=s.progress)
    adv = advantages(pls)
    adv["legal_builds"] = adv["platoon"].map(table.groupby("platoon").size() if len(table)
                                             else {}).fillna(0).astype(int)
    # every build is scored (the chart shows the spread); the table keeps each platoon's
    # best PLATOON_ROWS (all of them: ``dustsim platoons --csv``)
    top = table[table["rank_in_platoon"] <= PLATOON_ROWS] if len(table) else table
    return {"platoons": top, "platoon_advantages": adv,
            "platoon_matches": matches(pls, edition_cards), "_platoons_all": table}


def _charts(folder: Path, uc, sc, fp, edition_cards, chosen, s: ReportSettings,
            platoons: pd.DataFrame | None = None) -> list[str]:
    from .analytics import static_spec
    from .exact import evaluate

    names = []

    def put(fig, name):
        save(fig, folder, name, s.formats)
        names.append(name)

    put(efficiency_heatmap(uc, title=f"{s.edition}: AP destroyed per action per AP "
                                     "(Attack; open/cover mean)"), "efficiency_heatmap")
    if not sc.empty:
        mc = " (bars: 1 Monte Carlo SE of the offence)" if "composite_se" in sc else ""
        put(ranking_bars(sc, "composite", n=min(15, max(1, len(sc) // 2)),
                         title=f"{s.edition}: composite per AP (offence x durability){mc}",
                         err="composite_se" if mc else None), "ranking_composite")
        put(ranking_bars(sc, "offence_per_ap", n=min(15, max(1, len(sc) // 2)),
                         title=f"{s.edition}: offence per AP{mc}",
                         err="offence_per_ap_se" if mc else None), "ranking_offence")
    if platoons is not None and not platoons.empty:
        put(platoon_comparison(platoons, f"{s.edition}: platoons within {s.platoon_budget:g} "
                                         f"AP (up to {s.platoon_support} support unit)"),
            "platoons")
    refs = reference_targets(edition_cards)
    for col in ("I2", "V4"):
        put(reliability_scatter(uc, col), f"reliability_{col}")
    # damage distributions: the three best offence-per-AP units against V4 and I2
    for col in ("V4", "I2"):
        d = uc[(uc["column"] == col) & (uc["action"] == "sustained") & (~uc["cover"])]
        d = d.dropna(subset=["ap_destroyed_per_ap"]).nlargest(3, "ap_destroyed_per_ap")
        by_name = {c.name: c for c in chosen}
        results = [(f"{u[:28]}", evaluate(static_spec(by_name[u], refs[col].target(False),
                                                      action="sustained")))
                   for u in d["unit"]]
        if results:
            put(damage_distributions(results, f"{s.edition}: best per AP against the {col} "
                                              f"reference target (size {refs[col].size}), "
                                              "Sustained Attack in the open"),
                f"damage_{col}")
    if fp["fair_ap"].notna().any():
        put(fair_points_scatter(fp[fp["verdict"] != "not judged"],
                                title=f"{s.edition}: printed vs suggested AP (value model)",
                                xlabel="suggested AP (value model: engagements against the "
                                       "reference field)"), "fair_points")
    return names


def _table_html(df: pd.DataFrame, cols: list[str], n: int = 10) -> str:
    d = df[cols].head(n).copy()
    for c in d.columns:
        if d[c].dtype.kind == "f":
            d[c] = d[c].map(lambda v: "" if pd.isna(v) else f"{v:.4g}")
    return d.to_html(index=False, escape=True, border=0, classes="t")


def _html(settings: dict, frames: dict, charts: list[str], refs, value_html: str = "") -> str:
    e = html.escape
    sc = frames["scores"]
    cols = ["unit", "bloc", "kind", "ap", "offence_per_ap", "durability_per_ap", "composite",
            "partial"] + (["not_modelled"] if "not_modelled" in sc else [])
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>dustsim report: {e(settings['edition'])}</title>",
        "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}"
        "img{max-width:100%;border:1px solid #ddd;margin:.5em 0}"
        "table.t{border-collapse:collapse;font-size:13px}"
        "table.t td,table.t th{padding:2px 8px;border-bottom:1px solid #eee;text-align:right}"
        "table.t td:first-child{text-align:left}code{background:#f4f4f4}</style></head><body>",
        f"<h1>Balance review: {e(settings['edition'])}</h1>",
        f"<p>{settings['cards']} cards ({settings['complete_cards']} complete). Engine: "
        f"<b>{e(settings['engine'])}</b>"
        + (f", Monte Carlo {settings['trials']:,} trials, seed {settings['seed']}"
           if settings["engine"] == "mc" else "") + f". dustsim {e(settings['dustsim'])}.</p>",
    ]
    if "mc_confirmation" in settings:
        m = settings["mc_confirmation"]
        parts.append(f"<p>Monte Carlo confirmation of {m['rows']} exact figures "
                     f"({settings['trials']:,} trials each, seed {settings['seed']}): "
                     f"{m['within_3_sigma']:.1%} within 3 standard errors, max |z| = "
                     f"{m['max_abs_z']:.2f} (<code>tables/mc_confirmation.csv</code>).</p>")
    parts.append(value_html)
    parts.append("<h2>Static rankings (one action at full strength, per army point)</h2>")
    if not sc.empty:
        parts.append("<h3>Best composite</h3>" + _table_html(sc, cols))
        parts.append("<h3>Worst composite</h3>" + _table_html(sc.iloc[::-1], cols))
    if "platoons" in frames and not frames["platoons"].empty:
        from .platoons import best_builds

        pt, adv = frames["platoons"], frames["platoon_advantages"]
        pm = frames["platoon_matches"]
        parts.append("<h2>Platoons</h2><p>Every legal build of each buildable platoon chart "
                     "(faction bonus and captured +2 AP applied), ranked by composite per AP "
                     "paid; see <code>dustsim.platoons</code>.</p>")
        parts.append(_table_html(best_builds(pt), ["platoon", "command", "required", "support",
                                                   "ap_paid", "faction", "composite",
                                                   "advantage_gain"], 40))
        parts.append("<h3>Advantages not modelled</h3>" + _table_html(
            adv[~adv["modelled"]], ["platoon", "advantage", "lines", "buildable"], 40))
        un = pm[pm["matched_by"] == "unmatched"]
        parts.append("<h3>Printed unit names matching no card (never guessed)</h3>"
                     + _table_html(un, ["platoon", "slot", "printed"], 40))
    if "duels" in frames:
        d = frames["duels"]
        d = d[d["playable"] & (d["unit_a"] != d["unit_b"])]
        parts.append("<h2>Duels</h2><p>The best cards by composite per AP, each against each, "
                     "one on one (side A = row unit; initiative rolled; approach: longest "
                     "range; see <code>dustsim.duel</code> and <code>dustsim duel</code>). "
                     "Chart <code>duels</code>; all pairings in <code>tables/duels.csv</code>."
                     "</p><h3>Most one-sided pairings</h3>")
        parts.append(_table_html(d.sort_values("p_a_wins", ascending=False),
                                 ["unit_a", "unit_b", "ap_a", "ap_b", "p_a_wins", "p_b_wins",
                                  "p_draw", "expected_turns_a_wins", "ap_lost_b"], 10))
    if "epic_battles" in frames:
        parts.append("<h2>Dust Epic battles</h2><p>Exact Markov-chain odds (casualties: "
                     "firepower first; retreat: never); see <code>dustsim.epic</code> and "
                     "<code>dustsim epic battle</code>. Best mixes of "
                     f"{EPIC_BUDGET} PP attacking {e(EPIC_OPPONENT)}: chart "
                     "<code>epic_mixes</code>.</p>")
        parts.append(_table_html(frames["epic_battles"],
                                 ["attacker", "defender", "kind", "capital",
                                  "production_centre", "p_attacker_wins", "p_defender_wins",
                                  "p_ceasefire", "pp_lost_attacker", "pp_lost_defender"], 20))
    parts.append("<h2>Charts</h2>")
    for name in charts:
        parts.append(f"<h3>{e(name.replace('_', ' '))}</h3>"
                     f"<a href='charts/{e(name)}.svg'><img src='charts/{e(name)}.png' "
                     f"alt='{e(name)}'></a>")
    parts.append("<h2>Tables</h2><ul>")
    for name, df in frames.items():
        parts.append(f"<li><a href='tables/{e(name)}.csv'>{e(name)}.csv</a> / "
                     f"<a href='tables/{e(name)}.parquet'>parquet</a> ({len(df):,} rows)</li>")
    parts.append("</ul><h2>Reference targets and column weights</h2>")
    parts.append(_table_html(frames["reference_targets"],
                             ["column", "kind", "size", "ap", "n_cards", "weight"], 14))
    parts.append("<h2>Definitions</h2><p>See <code>dustsim.analytics</code>: AP destroyed "
                 "per action against the median reference target of each column; offence "
                 "weighted by the edition's AP per column; durability = expected actions of "
                 "the edition's AP-weighted attacker mix to destroy the unit; composite = "
                 "offence/AP x durability/AP (Lanchester square law). Fair points and verdicts: "
                 "the value model, <code>dustsim.value</code>. Partial figures (unknown cells, "
                 "inferred squad sizes) are flagged in the tables.</p>")
    parts.append("<h2>Sources and settings</h2><ul>")
    for src in settings["sources"]:
        parts.append(f"<li>{e(src)}</li>")
    parts.append(f"</ul><pre>{e(json.dumps(settings, indent=1))}</pre></body></html>")
    return "\n".join(parts)
