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
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dustsim import SWEEP_TRIALS, __version__
from dustsim.data.cards import Card, load_cards
from dustsim.errors import DustsimError
from dustsim.io import atomic_dir, check_output_dir
from dustsim.review.analytics import (
    column_weights,
    reference_targets,
    scores,
)
from dustsim.review.charts import (
    damage_distributions,
    efficiency_heatmap,
    fair_points_scatter,
    platoon_comparison,
    ranking_bars,
    reliability_scatter,
    save,
)
from dustsim.review.sweep import dask_client, sweep

PLATOON_ROWS = 250


@dataclass(frozen=True)
class ReportSettings:
    edition: str = "dust-1947"
    units: tuple[str, ...] = ()
    engine: str = "exact"
    trials: int = SWEEP_TRIALS  # per figure of the sweep
    seed: int = 0
    formats: tuple[str, ...] = ("png", "svg", "pdf")
    confirm: int = 200
    progress: bool = True
    notes: bool = False  # without progress bars: one line on the ``dustsim`` logger per stage
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
    value_battle_hosts: int = 32  # value model: host armies per bloc in its battles
    patch: str | None = None  # balance proposal (TOML): before/after section


def _select(cards: list[Card], s: ReportSettings) -> tuple[list[Card], list[Card]]:
    ed = [c for c in cards if c.edition == s.edition]
    if not ed:
        eds = sorted({c.edition for c in cards})
        raise DustsimError(f"no cards of edition {s.edition!r} (have: {', '.join(eds)})",
                           field="--edition")
    if not s.units:
        return ed, ed
    from dustsim.data.names import did_you_mean, fold

    names = {c.name.lower(): c for c in ed}
    folded = {fold(c.name): c for c in ed}
    missing = [u for u in s.units if u.lower() not in names and fold(u) not in folded]
    if missing:
        hint = did_you_mean(missing[0], (c.name for c in ed))
        raise DustsimError(f"no {s.edition} card named {', '.join(map(repr, missing))}{hint}",
                           field="--units")
    return ed, [names.get(u.lower()) or folded[fold(u)] for u in s.units]


def _confirm(uc: pd.DataFrame, edition_cards: list[Card], s: ReportSettings) -> pd.DataFrame:
    """Monte Carlo check of a random sample of exact unit x column figures."""
    from dustsim.engines.kernel import simulate_batch
    from dustsim.review.analytics import static_spec

    if "mean_damage" not in uc:  # nothing swept (an edition without costs)
        return pd.DataFrame()
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


def _stage(settings: ReportSettings, what: str) -> None:
    """Without a terminal (no progress bars) a long review still answers within seconds and
    says what it is doing (issue 27: minutes with no word); ``--quiet`` turns it off."""
    if settings.notes and not settings.progress:
        import logging

        logging.getLogger("dustsim").warning("dustsim: note: report: %s", what)


def build_report(out: Path, settings: ReportSettings, *, force: bool = False,
                 data: list[Path] | None = None) -> dict:
    """Compute every table and chart and write the bundle atomically; return a summary."""
    t0 = time.perf_counter()
    out = Path(out)
    check_output_dir(out, force)
    cards = load_cards(data)
    edition_cards, chosen = _select(cards, settings)
    from dustsim.data.patches import load_patch
    from dustsim.review.value import ValueSettings

    value_settings = ValueSettings(trials=settings.value_trials, seed=settings.seed,
                                   battles=True, battle_cards="needed",  # value step 3b
                                   battle_hosts=settings.value_battle_hosts)
    changes = load_patch(settings.patch, edition_cards) if settings.patch else None
    _stage(settings, f"{len(chosen)} of {len(edition_cards)} {settings.edition} cards; the "
                     "sweeps first (minutes for a whole edition on 2 cores; progress bars on a "
                     "terminal)")
    with atomic_dir(out, force=force) as tmp:
        tables, charts = tmp / "tables", tmp / "charts"
        tables.mkdir()
        with dask_client(settings.workers, settings.scheduler) as client:
            uc, uu = sweep(edition_cards, chosen, engine=settings.engine,
                           trials=settings.trials, seed=settings.seed, client=client,
                           progress=settings.progress)
            # the value model's engagements (the heaviest sweep) on the same workers
            _stage(settings, "value model (engagements against the reference field)")
            value_frames, fp, value_html, patch_fig = _value(
                edition_cards, chosen, value_settings, changes, charts, settings, client)
        sc = scores(uc, uu, edition_cards)
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
        _stage(settings, "platoons, duels and Dust Epic")
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
        _stage(settings, "tables written; charts, card pages and the PDF")
        chart_figs = _charts(charts, uc, sc, fp, edition_cards, chosen, settings,
                             platoons_all)
        del platoons_all  # every build (hundreds of MB): only its chart needs it
        if patch_fig is not None:
            chart_figs["patch"] = ("Balance patch: fair cost before and after", patch_fig)
        if "duels" in frames and frames["duels"]["playable"].sum() > 1:
            from dustsim.review.charts import duel_matrix_chart

            fig = duel_matrix_chart(frames["duels"], _duel_title(settings))
            save(fig, charts, "duels", settings.formats)
            chart_figs["duels"] = ("One-on-one duels: P(win), P(loss) and P(no result) of "
                                   "each pairing", fig)
        if epic_rows:
            from dustsim.review.charts import epic_mixes

            fig = epic_mixes(epic_rows, EPIC_BUDGET, EPIC_OPPONENT)
            save(fig, charts, "epic_mixes", settings.formats)
            chart_figs["epic_mixes"] = (f"Dust Epic: every mix of {EPIC_BUDGET} PP attacking "
                                        f"{EPIC_OPPONENT}", fig)
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
        _write_site(tmp, settings_doc, frames, chart_figs, chosen, edition_cards, settings,
                    value_html)
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
    from dustsim.play.epic import battle, optimize

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
    from dustsim.play.duel import DUEL_RULESETS, DuelUnit, compile_duel, duel_matrix
    from dustsim.rules.rulesets import DEFAULT_RULESET_FOR_EDITION

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
           charts: Path, s: ReportSettings, client=None
           ) -> tuple[dict, pd.DataFrame, str, object]:
    """The value model (:mod:`dustsim.review.value`) on the whole edition: tables for the chosen
    cards, the section's HTML, and the before/after of a patch."""
    from dustsim.review.charts import patch_chart
    from dustsim.review.value import (
        bound_roles_of,
        html_section,
        roles_table,
        run_patch,
    )
    from dustsim.review.value_cache import cached_value_model
    from dustsim.review.whatif import with_bands

    vm, hit = cached_value_model(edition_cards, vs, progress=s.progress, client=client)
    if hit:
        _stage(s, "value model read from the cache (same cards, settings and code; "
                  "DUSTSIM_VALUE_CACHE=0 recomputes it)")
    names = {c.name for c in chosen}
    fp = vm.table[vm.table["unit"].isin(names)].reset_index(drop=True)
    frames = {"value_engagements": vm.engagements, "value_battles": vm.battles,
              "value_field": pd.DataFrame([o.__dict__ for o in vm.field],
                                          columns=["name", "column", "weight", "n_class",
                                                   "class_ap"]),
              "value_roles": roles_table(edition_cards, bound_roles_of(edition_cards))}
    parts = [html_section(vm, _table_html, names)]
    patch_fig = None
    if changes:
        after, diff = run_patch(edition_cards, changes, vm, progress=s.progress)
        diff = with_bands(diff, vm.table, after.table)
        frames["patch"] = diff
        charts.mkdir(exist_ok=True)
        patch_fig = patch_chart(diff, f"{s.edition}: balance patch {Path(s.patch).name}")
        save(patch_fig, charts, "patch", s.formats)
    return frames, fp, "\n".join(parts), patch_fig


def _platoons(edition_cards: list[Card], sc: pd.DataFrame, s: ReportSettings) -> dict:
    """Platoon tables for editions with platoon charts (Dust 1947)."""
    from dustsim.army.platoons import advantages, load_platoons, matches, platoon_table

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
            platoons: pd.DataFrame | None = None) -> dict[str, tuple[str, object]]:
    """Every chart of the review: name -> (caption, Figure); each is written in
    ``s.formats`` as it is made."""
    from dustsim.engines.exact import evaluate
    from dustsim.review.analytics import static_spec

    out: dict[str, tuple[str, object]] = {}

    def put(fig, name, caption):
        save(fig, folder, name, s.formats)
        out[name] = (caption, fig)

    top = 40
    swept = "action" in uc  # False where no card of the edition has a cost (2013, 2009)
    if swept:
        put(efficiency_heatmap(uc, top=top, title=f"{s.edition}: AP destroyed per action per AP "
                                                  "(Attack; open/cover mean)"),
            "efficiency_heatmap", f"AP destroyed per action per AP against every armour "
                                  f"column (the best {top} cards by their mean)")
    if not sc.empty:
        n = min(15, max(1, len(sc) // 2))
        mc = " (bars: 1 Monte Carlo SE of the offence)" if "composite_se" in sc else ""
        put(ranking_bars(sc, "composite", n=n,
                         title=f"{s.edition}: composite per AP (offence x durability){mc}",
                         err="composite_se" if mc else None,
                         label="composite per AP (offence/AP x durability/AP)"),
            "ranking_composite", f"The {n} best and worst cards by composite per AP")
        put(ranking_bars(sc, "offence_per_ap", n=n, title=f"{s.edition}: offence per AP{mc}",
                         err="offence_per_ap_se" if mc else None,
                         label="offence per AP (AP destroyed per action per AP)"),
            "ranking_offence", f"The {n} best and worst cards by offence per AP")
    if platoons is not None and not platoons.empty:
        put(platoon_comparison(platoons, f"{s.edition}: platoons within {s.platoon_budget:g} "
                                         f"AP (up to {s.platoon_support} support unit)"),
            "platoons", "Best legal build of each platoon, and the spread over every build")
    refs = reference_targets(edition_cards)
    for col in ("I2", "V4") if swept else ():
        put(reliability_scatter(uc, col), f"reliability_{col}",
            f"Reliability against the {col} reference target: mean against P(destroy)")
    by_name = {c.name: c for c in chosen}
    for col in ("V4", "I2") if swept else ():
        d = uc[(uc["column"] == col) & (uc["action"] == "sustained") & (~uc["cover"])]
        # a card that cannot damage the column (Emma's pistol against V4) has nothing to draw
        d = d[d["ap_destroyed_per_ap"] > 0].nlargest(3, "ap_destroyed_per_ap")
        results = [(u, evaluate(static_spec(by_name[u], refs[col].target(False),
                                            action="sustained")))
                   for u in d["unit"] if u in by_name]
        if results:
            put(damage_distributions(results, f"{s.edition}: best per AP against the {col} "
                                              f"reference target (size {refs[col].size}), "
                                              "Sustained Attack in the open"),
                f"damage_{col}", f"Damage distributions of the three best per AP against "
                                 f"{col}")
    if fp["fair_ap"].notna().any():
        put(fair_points_scatter(fp[fp["verdict"] != "not judged"],
                                title=f"{s.edition}: printed vs suggested AP (value model)",
                                xlabel="suggested AP (value model: engagements against the "
                                       "reference field)"),
            "fair_points", "Printed against suggested cost (over-costed above the line; "
                           "cards not judged left out)")
    return out


# -- the site --------------------------------------------------------------------------------
# a frame that no section below claims still renders, in the section named here (or in
# "More tables"): another engineer's new table needs one line here, or none
SECTION_OF: dict[str, str] = {}


def _sections(frames: dict, charts: dict, settings: dict, value_html: str = "") -> list:
    """The review's sections, built from the tables and charts that exist."""
    from dustsim.review.site import Section, Table

    e = settings["edition"]
    claimed: set[str] = set()
    out = []

    def have(*names):
        return all(n in frames and frames[n] is not None for n in names)

    def chart_list(*names):
        return tuple((n, charts[n][0]) for n in names if n in charts)

    def t(name, title, note="", **kw):
        claimed.add(name)
        return Table(name, title, frames[name], note=note, **kw)

    card = {"unit": "card", "attacker": "card", "target": "card", "unit_a": "card",
            "unit_b": "card", "card": "card"}
    if have("scores"):
        out.append(Section(
            "rankings", "Rankings per army point (static composite)",
            f"Every scored {e} card: offence (AP destroyed per action against the reference "
            "target of each armour column, weighted by the edition's AP per column), "
            "durability (expected actions of the AP-weighted attacker mix to destroy it) and "
            "the composite offence/AP × durability/AP (Lanchester square law). This is the "
            "static composite, a different measure from the fair cost: the fair cost and the "
            "over/under-costed verdicts are the value model's (Fair points section), and a "
            "card it does not judge is ranked here without a verdict.",
            (t("scores", "Scores of every card", links=card,
               order=("composite", "desc")),),
            chart_list("ranking_composite", "ranking_offence", "efficiency_heatmap"),
            ("scores", "unit_column", "unit_unit")))
    if have("fair_points"):
        fp = frames["fair_points"]
        first = ("unit", "bloc", "kind", "ap", "fair_ap", "fair_low", "fair_high", "verdict",
                 "strength", "value_per_ap", "rank_value_per_ap", "not_modelled")
        cols = tuple(c for c in first if c in fp)
        cols += tuple(c for c in fp.columns if c not in cols and c != "edition")
        tabs = [t("fair_points", "Printed and suggested cost of every card", columns=cols,
                  links=card, order=("residual", "desc") if "residual" in fp else None)]
        for name, title in (("value_field", "Reference field"),
                            ("value_roles", "Roles and skills the engagements do not play")):
            if have(name):
                tabs.append(t(name, title, links=card))
        claimed.add("value_engagements")  # large: a download
        claimed.add("value_battles")
        out.append(Section(
            "value", "Value from play: fair points and verdicts", "", tuple(tabs),
            chart_list("fair_points"),
            tuple(n for n in ("fair_points", "value_field", "value_roles",
                              "value_engagements", "value_battles") if have(n)),
            html=value_html))
    if have("patch"):
        out.append(Section(
            "patch", "Balance patch: before and after",
            "Changed cards first, then verdict changes, then rank moves. The field and the "
            "cost mapping are those of the unpatched edition.",
            (t("patch", "Every card before and after the patch", links=card),),
            chart_list("patch"), ("patch",)))
    rel = chart_list("reliability_I2", "reliability_V4", "damage_V4", "damage_I2")
    if rel:
        out.append(Section("reliability", "Reliability and damage distributions",
                           "The mean is not the whole story: the chance to destroy the "
                           "reference target in one action, and whole distributions.",
                           (), rel))
    if have("platoons"):
        from dustsim.army.platoons import best_builds

        frames["platoon_best"] = best_builds(frames["platoons"])
        tabs = [t("platoon_best", "Best build of each platoon", links=card,
                  order=("composite", "desc")),
                t("platoons", f"The best {PLATOON_ROWS} builds of each platoon", links=card,
                  order=("composite", "desc"))]
        for name, title in (("platoon_advantages", "Platoon advantages, modelled or not"),
                            ("platoon_matches", "Printed unit names and their cards "
                                                "(unmatched names are never guessed)")):
            if have(name):
                tabs.append(t(name, title, links=card))
        out.append(Section(
            "platoons", "Platoons",
            "Every legal build of each buildable platoon chart (faction bonus and captured "
            "+2 AP applied), ranked by composite per AP paid.", tuple(tabs),
            chart_list("platoons"), ("platoons", "platoon_advantages", "platoon_matches")))
    if have("duels"):
        out.append(Section(
            "duels", "Duels",
            "The best cards by composite per AP, each against each, one on one (side A = "
            "row unit; initiative rolled; approach: longest range). Monte Carlo: P(A wins) "
            "carries its standard error.",
            (t("duels", "Every pairing", links=card, order=("p_a_wins", "desc")),),
            chart_list("duels"), ("duels",)))
    if have("epic_battles") or have("epic_mixes"):
        tabs = []
        if have("epic_battles"):
            tabs.append(t("epic_battles", "Example battles (exact Markov chain)"))
        if have("epic_mixes"):
            tabs.append(t("epic_mixes", f"Every mix of {EPIC_BUDGET} PP attacking "
                                        f"{EPIC_OPPONENT}", order=("p_win", "desc")))
        out.append(Section(
            "epic", "Dust Epic",
            "Battle odds by exact Markov chain (casualties: firepower first; retreat: "
            "never), and the army-mix optimiser.", tuple(tabs), chart_list("epic_mixes"),
            tuple(n for n in ("epic_battles", "epic_mixes") if have(n))))
    method = []
    if have("mc_confirmation"):
        method.append(t("mc_confirmation", "Exact figures re-checked by Monte Carlo",
                        "z = (Monte Carlo - exact) / SE", links=card))
    if have("reference_targets"):
        method.append(t("reference_targets", "Reference targets and column weights"))
    # anything else (another section's new table) renders too
    extra: dict[str, list] = {}
    for name, df in frames.items():
        if name in claimed or name.startswith("_") or name in ("unit_column", "unit_unit") \
                or not isinstance(df, pd.DataFrame):
            continue
        extra.setdefault(SECTION_OF.get(name, "More tables"), []).append(
            t(name, name.replace("_", " ").capitalize(), links=card))
    for title, tabs in extra.items():
        from dustsim.review.site import slugify

        out.append(Section(slugify(title), title, "", tuple(tabs), (),
                           tuple(x.key for x in tabs)))
    if method:
        out.append(Section(
            "method", "Method and checks",
            "Definitions: dustsim/review/analytics.py. Partial figures (unknown cells, inferred "
            "squad sizes) are flagged; an unknown figure is shown as '?'.", tuple(method),
            (), tuple(x.key for x in method)))
    out.sort(key=lambda sec: sec.slug != "value")  # the value from play leads
    return out


def _distributions(card: Card, refs, action: str = "attack") -> list[dict]:
    """The card's damage distribution against each column's reference target (exact)."""
    from dustsim.data.cards import COLUMNS
    from dustsim.engines.exact import evaluate
    from dustsim.review.analytics import open_attack_result, static_spec
    from dustsim.review.site import format_number

    rows = []
    for col in COLUMNS:
        ref = refs[col]
        row = {"column": col, "ref": f"{ref.kind}, size {ref.size}, {ref.ap:g} AP",
               "mean": "-", "p_destroy": "-", "pmf": None, "why": ""}
        try:
            r = (open_attack_result(card, ref.target(False)) if action == "attack" else
                 evaluate(static_spec(card, ref.target(False), action=action)))
        except DustsimError as exc:
            row["why"] = str(exc).split(": ", 1)[-1][:120]
            rows.append(row)
            continue
        pmf = r.damage.to_list()
        top = max(pmf) or 1.0
        row.update(mean=format_number(r.damage.mean()), p_destroy=format_number(r.p_destroyed),
                   pmf=[(k, f"{p:.4f}", max(1, round(36 * p / top))) for k, p in
                        enumerate(pmf)])
        rows.append(row)
    return rows


def _not_valued(card: Card, uc_rows: pd.DataFrame, score_row: dict | None) -> list[str]:
    """What the model leaves out for this card, named (never scored as zero)."""
    from dustsim.data.skill_names import norm_skill
    from dustsim.rules.attack import ATTACKER_SKILLS, TARGET_SKILLS, attacker_skills

    out = []
    modelled = attacker_skills(card) | TARGET_SKILLS
    for sk in card.skills:
        n = norm_skill(sk)
        if n not in modelled:
            out.append(f"skill {sk}: " + ("known to the rules engine but not part of the "
                                          "per-action figures" if n in ATTACKER_SKILLS
                                          else "not modelled"))
    notes = set()
    for n in uc_rows.get("notes", pd.Series(dtype=object)).dropna():
        notes.update(x.strip() for x in str(n).split(";") if x.strip())
    out += sorted(notes)
    out += [f"card note: {f}" for f in card.flags]
    for key in ("not_valued", "unvalued", "not_modelled"):
        v = (score_row or {}).get(key)
        if isinstance(v, str) and v:
            out += [x.strip() for x in v.split(";") if x.strip()]
    return list(dict.fromkeys(out))


# -- what a designer reads first ------------------------------------------------------------
JUDGED = ("under-costed", "over-costed", "in band")
# value-model figures that exist only for some cards (a joined hero's): blank means "does
# not apply", so the model details leave them out rather than print '?'
NOT_APPLICABLE = ("host", "strength_joined", "battle_joined")
EVIDENCE_COLUMNS = ("evidence", "evidence_strength", "strength_of_evidence")
LOOK_FIRST = 6


def _ap(v) -> str:
    from dustsim.review.site import format_number

    return format_number(None if _na(v) else float(v), 3)


def _text(v) -> str:
    return "" if _na(v) or v is None else str(v).strip()


def verdict_sentence(row: dict) -> str:
    """The verdict of one ``fair_points`` row in a designer's words, with the figure that
    decides it (printed cost against the band) or why there is none."""
    v, ap = _text(row.get("verdict")), row.get("ap")
    low, high = row.get("fair_low"), row.get("fair_high")
    if v == "over-costed":
        return (f"over-costed: its printed {_ap(ap)} AP is above the band's upper end "
                f"({_ap(high)} AP)")
    if v == "under-costed":
        return (f"under-costed: its printed {_ap(ap)} AP is below the band's lower end "
                f"({_ap(low)} AP)")
    if v == "in band":
        return f"in band: its printed {_ap(ap)} AP lies inside the band"
    if v == "lower bound":
        roles = _text(row.get("mainly_unmodelled"))
        return (f"lower bound: judged on what it plays, worth at least {_ap(row.get('fair_ap'))}"
                f" AP against its printed {_ap(ap)} AP"
                + (f"; its {roles} is not played and may be worth the difference" if roles
                   else ""))
    if v == "not judged":
        roles = _text(row.get("mainly_unmodelled")) or _text(row.get("not_modelled"))
        return ("not judged: its value lies mainly in roles the engagements do not play"
                + (f" ({roles})" if roles else ""))
    if v == "partial data":
        notes = _text(row.get("notes"))
        return ("not judged (partial data): a figure the engagements need is unknown"
                + (f" ({notes})" if notes else ""))
    if v == "no value":
        why = _text(row.get("why"))
        return "no value: it cannot play the engagements" + (f" ({why})" if why else "")
    if v == "no cost":
        return "no printed cost to compare the suggested cost with"
    return v or "no verdict"


#: clauses of the value model's sentence (``reason``, :mod:`dustsim.review.value`) that the
#: card page's rows already state: the suggested cost with its verdict (the "Suggested cost"
#: and "Verdict" rows), and for a "lower bound" verdict the role not played (its sentence)
_WORTH = re.compile(r"(?:^|; )worth (?:at least )?[\d.]+ AP \([\d.-]+\) against [\d.]+ "
                    r"printed: [a-z -]+(?=;|\.$)")
_BOUND = re.compile(r"(?:^|; )judged on what it plays: its .+? is not played, so its fair "
                    r"cost is a lower bound \(under-costed or a lower bound, never "
                    r"over-costed\)(?=;|\.$)")


def _page_reason(reason: str, verdict: str) -> str:
    """The value model's sentence for a card's page, without what the verdict row says."""
    out = _WORTH.sub("", reason)
    if verdict == "lower bound":
        out = _BOUND.sub("", out)
    out = out.removeprefix("; ")
    return "" if out in ("", ".") else out[0].upper() + out[1:]


def _evidence(row: dict) -> str:
    for k in EVIDENCE_COLUMNS:
        if _text(row.get(k)):
            return _text(row.get(k))
    return ""


def _excess(fp: pd.DataFrame) -> pd.Series:
    """How far (log AP) the printed cost lies outside the band: > 0 for a verdict."""
    ap = fp["ap"].astype(float).where(lambda a: a > 0)  # a 0 AP card or band: no log
    over = np.log(ap / fp["fair_high"].astype(float).where(lambda a: a > 0))
    under = np.log(fp["fair_low"].astype(float).where(lambda a: a > 0) / ap)
    return pd.Series(np.where(fp["verdict"] == "over-costed", over,
                              np.where(fp["verdict"] == "under-costed", under, np.nan)),
                     index=fp.index)


def finding(fp: pd.DataFrame | None, slugs: dict[str, str] | None = None) -> dict | None:
    """The index's first paragraph: verdict counts, and the cards to look at first (the
    verdicts whose printed cost lies furthest outside the band; where the value model gives
    an evidence strength, the strong ones first)."""
    if fp is None or not len(fp) or "verdict" not in fp:
        return None
    counts = fp["verdict"].value_counts()
    judged = int(sum(counts.get(v, 0) for v in JUDGED))
    if not judged:
        return None
    parts = [f"{judged:,} cards are judged from play: "
             f"{counts.get('under-costed', 0):,} look under-costed, "
             f"{counts.get('over-costed', 0):,} over-costed and "
             f"{counts.get('in band', 0):,} in band (printed cost inside the 90 % band of the "
             "suggested cost)."]
    if counts.get("lower bound", 0):
        parts.append(f" {int(counts['lower bound']):,} more are judged on what they play, "
                     "their main role not played: their suggested cost is a lower bound.")
    rest = {k: int(counts.get(k, 0)) for k in ("not judged", "partial data", "no value",
                                               "no cost") if counts.get(k, 0)}
    if rest:
        words = {"not judged": "not judged (value mainly in roles the model does not play)",
                 "partial data": "with partial data", "no value": "unable to play",
                 "no cost": "without a printed cost"}
        parts.append(" Not judged: " + ", ".join(f"{n:,} {words[k]}" for k, n in rest.items())
                     + "; each card's page says why.")
    d = fp[fp["verdict"].isin(("over-costed", "under-costed"))].copy()
    d["excess"] = _excess(d)
    ev = next((k for k in EVIDENCE_COLUMNS if k in d), None)
    d["_strong"] = d[ev].astype(str).str.lower().str.startswith("strong") if ev else True
    d = d.sort_values(["_strong", "excess"], ascending=False).head(LOOK_FIRST)
    cards = []
    for r in d.to_dict("records"):
        extra = _evidence(r)
        why = "" if _text(r.get("reason")) else _text(r.get("why"))  # a reason: on its page
        cards.append({"name": r["unit"], "href": (slugs or {}).get(r["unit"]),
                      "text": f"printed {_ap(r['ap'])} AP, suggested {_ap(r['fair_ap'])} AP "
                              f"(band {_ap(r['fair_low'])}–{_ap(r['fair_high'])}): "
                              f"{r['verdict']}" + (f"; evidence {extra}" if extra else "")
                              + (f". {why}" if why else "")})
    return {"text": "".join(parts), "cards": cards}


def _record_by_opponent(eng: pd.DataFrame | None, names: set[str]) -> dict[str, pd.DataFrame]:
    """Per card: its engagements against each reference-field opponent, all distances
    summed (wins of each side per engagement)."""
    if eng is None or not len(eng) or not {"wins_unit", "wins_opp", "trials"} <= set(eng):
        return {}
    e = eng[eng["unit"].isin(names)]
    if "why" in e:
        e = e[e["why"].fillna("") == ""]
    if "host" in e:  # the card alone, not joined to a host squad
        e = e[e["host"].fillna("") == ""]
    g = e.groupby(["unit", "opponent"], sort=False)[["wins_unit", "wins_opp", "trials"]].sum()
    g["p_win"] = g["wins_unit"] / g["trials"]
    g["p_loss"] = g["wins_opp"] / g["trials"]
    return {u: df.droplevel(0) for u, df in g.groupby(level=0)}


def _value_summary(c: Card, row: dict | None, record: pd.DataFrame | None,
                   slugs: dict[str, str]) -> dict:
    """The top of a card's page: cost, suggested cost and band, verdict and why, wins and
    losses against the reference field, what is not played, why figures are partial."""
    from dustsim.data.views import partial_reasons

    out = {"cost": f"{_ap(c.ap)} AP" if c.ap is not None else "unknown (not printed)",
           "suggested": None, "verdict": None, "why": "", "evidence": "",
           "consistency": None, "wins": [], "losses": [], "not_played": [],
           "partial": partial_reasons(c)}
    if row is not None:
        if not _na(row.get("fair_ap")):
            out["suggested"] = (f"{_ap(row['fair_ap'])} AP (90 % band {_ap(row['fair_low'])}"
                                f"–{_ap(row['fair_high'])} AP)")
        out["verdict"] = verdict_sentence(row)
        # the value model's own sentence where it writes one (``reason``), else ``why``
        out["why"] = _page_reason(_text(row.get("reason")), _text(row.get("verdict"))) or (
            _text(row.get("why")) if _text(row.get("verdict")) in JUDGED else "")
        out["evidence"] = _evidence(row)
        if "consistency_ap" in row and not _na(row.get("consistency_ap")):
            band = ""
            if not _na(row.get("consistency_low")) and not _na(row.get("consistency_high")):
                band = (f" (band {_ap(row['consistency_low'])}–"
                        f"{_ap(row['consistency_high'])} AP)")
            cv = _text(row.get("consistency_verdict"))
            out["consistency"] = f"{_ap(row['consistency_ap'])} AP{band}" + (
                f": {cv}" if cv else "")
        out["not_played"] = [x.strip() for x in _text(row.get("not_modelled")).split(";")
                             if x.strip()]
        if _text(row.get("verdict")) == "partial data" and _text(row.get("notes")):
            out["partial"] = out["partial"] + [f"value model: {_text(row.get('notes'))}"]
    if record is not None and len(record):
        def fmt(df, col):
            return [(n, slugs.get(n), f"{p:.0%}") for n, p in
                    zip(df.index.tolist(), df[col].tolist(), strict=True)]
        out["wins"] = fmt(record[record["p_win"] > 0].nlargest(3, "p_win"), "p_win")
        out["losses"] = fmt(record[record["p_loss"] > 0].nlargest(3, "p_loss"), "p_loss")
    return out


def _card_pages(chosen: list[Card], frames: dict, edition_cards: list[Card]) -> list[dict]:
    """Everything one card's page shows, as plain data for the template."""
    from dustsim.data.cards import COLUMNS
    from dustsim.data.views import _fmt
    from dustsim.review.site import Table, card_slugs, column_label, format_number

    uc, uu = frames["unit_column"], frames["unit_unit"]
    sc = frames["scores"].set_index("unit") if len(frames["scores"]) else pd.DataFrame()
    fp = frames["fair_points"].set_index("unit") if len(frames["fair_points"]) else None
    refs = reference_targets(edition_cards)
    slugs = card_slugs(c.name for c in chosen)
    att_cols = ["target", "target_ap", "target_column", "ap_destroyed", "p_destroy",
                "expected_actions", "partial"]
    tgt_cols = ["attacker", "attacker_ap", "ap_destroyed", "p_destroy", "expected_actions",
                "partial"]
    # each card's rows with only the columns its tables show (selected once, not per card)
    by_att = dict(tuple(uu[att_cols].groupby(uu["attacker"]))) if len(uu) else {}
    by_tgt = dict(tuple(uu[tgt_cols].groupby(uu["target"]))) if len(uu) else {}
    by_unit = dict(tuple(uc.groupby("unit"))) if len(uc) else {}
    comp = sc["composite"].dropna() if "composite" in sc else pd.Series(dtype=float)
    comp_names, comp_values = comp.index.to_numpy(), comp.to_numpy(float)
    link = {"attacker": "card", "target": "card"}
    records = _record_by_opponent(frames.get("value_engagements"), {c.name for c in chosen})
    pages = []
    for c in chosen:
        srow = sc.loc[c.name].to_dict() if c.name in sc.index else None
        frow = fp.loc[c.name].to_dict() if fp is not None and c.name in fp.index else None
        summary = _value_summary(c, frow, records.get(c.name), slugs)
        if srow is not None and frow is not None:
            srow.update({k: v for k, v in frow.items() if k not in srow})
        facts = []
        for k, v in (srow or {}).items():
            if k in ("edition", "bloc", "faction", "kind") or k.endswith("_se"):
                continue
            if (isinstance(v, str) and not v.strip()) or (k in NOT_APPLICABLE and _na(v)):
                continue  # an empty note, or a figure that does not apply (not unknown)
            label, unit = column_label(k)
            if k == "partial" and bool(v) and summary["partial"]:
                v = "yes: " + "; ".join(summary["partial"])
            se = (srow or {}).get(f"{k}_se")
            txt = format_number(v) + (f" ± {format_number(se, 2)}" if se is not None
                                      and pd.notna(se) else "")
            facts.append((label + (f" ({unit})" if unit else ""), txt))
        size = (f"{c.models} models ({c.models_source or 'printed'})" if c.models is not None
                else f"damage track {_fmt(c.damage_track)}")
        line = (f"{c.edition} · {c.bloc}{' / ' + c.faction if c.faction else ''} · "
                f"{c.kind or '?'} · armour {c.armour or '?'} · {size} · move {_fmt(c.move)}"
                f" / march {_fmt(c.march_move)} · {_fmt(c.ap)} AP"
                + ("" if c.size == "standard" else f" · {c.size}"))
        weapons = [{"label": (f"{w.count}× " if w.count != 1 else "") + w.name
                    + (" (optional)" if w.optional else ""), "range": w.range,
                    "cells": [cell.text for cell in w.line],
                    "keywords": ", ".join(w.keywords)} for w in c.weapons]
        urows = by_unit.get(c.name, pd.DataFrame(columns=uc.columns))
        off = urows[[x for x in ("column", "action", "cover", "mean_damage", "p_destroy",
                                 "ap_destroyed", "ap_destroyed_per_ap", "se_mean_damage",
                                 "se_ap_destroyed", "partial", "notes") if x in urows]]
        tables = [Table("offence-table", "Every column, action and cover", off,
                        note="Against each column's reference target; one row per situation.",
                        page_length=14)]
        att = by_att.get(c.name)
        tgt = by_tgt.get(c.name)
        best, worst = [], []
        if att is not None and len(att):
            a = att
            tables.append(Table("targets", "This card against every card", a, links=link,
                                order=("ap_destroyed", "desc"), page_length=10))
            hurt = a[a["ap_destroyed"] > 0].sort_values("ap_destroyed", ascending=False)[:5]
            best = [(t, slugs.get(t), format_number(v)) for t, v in
                    zip(hurt["target"].tolist(), hurt["ap_destroyed"].tolist(), strict=True)]
        if tgt is not None and len(tgt):
            d = tgt
            tables.append(Table("attackers", "Every card against this card", d, links=link,
                                order=("ap_destroyed", "desc"), page_length=10))
            danger = d[d["expected_actions"].notna()].sort_values("expected_actions")[:5]
            worst = [(t, slugs.get(t), format_number(v)) for t, v in
                     zip(danger["attacker"].tolist(), danger["expected_actions"].tolist(),
                         strict=True)]
        best = [(n, s or "index", v) for n, s, v in best]
        worst = [(n, s or "index", v) for n, s, v in worst]
        whatif, dur = [], "Not scored (unknown cost, armour or size)."
        if srow is not None and pd.notna(srow.get("composite")) and c.ap:
            others = comp_values[comp_names != c.name]
            for ap in sorted({c.ap + d for d in (-2, -1, 0, 1, 2) if c.ap + d > 0}):
                cv = srow["composite"] * (c.ap / ap) ** 2
                whatif.append((f"{ap:g} AP" + (" (printed)" if ap == c.ap else ""),
                               format_number(cv), f"{1 + int((others > cv).sum())} of "
                                                  f"{len(others) + 1}"))
            dur = (f"Durability {format_number(srow.get('durability'))} actions: the expected "
                   "number of actions of the edition's AP-weighted attacker mix to destroy "
                   f"it ({format_number(srow.get('durability_per_ap'))} per AP, rank "
                   f"{format_number(srow.get('rank_durability_per_ap'))}).")
        sources = [f"{c.source}" + (f" (revision {c.revision})" if c.revision else "")]
        sources += [x for x in getattr(c, "sources", ()) if x != c.source]
        if c.file:
            f = Path(c.file).as_posix()
            sources.append("unit file: " + (f.split("unit_data/", 1)[-1] if "unit_data/" in f
                                            else Path(f).name))
        if c.models_source and c.models_source != "printed":
            sources.append(f"squad size: {c.models_source}")
        sources += [f"{w.name}: {w.source}" for w in c.weapons if w.source]
        pages.append({
            "name": c.name, "slug": slugs[c.name], "line": line, "skills": list(c.skills),
            "weapons": weapons, "columns": list(COLUMNS), "facts": facts,
            "distributions": _distributions(c, refs), "dist_action": "Attack",
            "tables": tables, "best": best, "worst": worst, "durability": dur,
            "not_valued": _not_valued(c, urows, srow), "whatif": whatif,
            "ranked": len(comp), "sources": sources, "summary": summary})
    return pages


def _cards_table(pages: list[dict], chosen: list[Card], frames: dict):
    from dustsim.review.site import Table

    sc = frames["scores"].set_index("unit") if len(frames["scores"]) else pd.DataFrame()
    fp = frames["fair_points"].set_index("unit") if len(frames["fair_points"]) else None
    rows = []
    for c in chosen:
        r = {"unit": c.name, "bloc": c.bloc, "faction": c.faction or None, "kind": c.kind,
             "armour": c.armour, "ap": c.ap, "complete": c.complete}
        if c.name in sc.index:
            r["composite"] = sc.at[c.name, "composite"]
            r["rank_composite"] = sc.at[c.name, "rank_composite"]
        if fp is not None and c.name in fp.index and "verdict" in fp:
            r["verdict"] = fp.at[c.name, "verdict"]
        rows.append(r)
    return Table("cards", f"{len(rows)} cards", pd.DataFrame(rows), links={"unit": "card"},
                 order=("unit", "asc"), page_length=25)


def _table_html(df: pd.DataFrame, cols: list[str], n: int = 10) -> str:
    """A small static HTML table (readable headers and numbers) for a section's ``html``;
    the interactive tables are :class:`dustsim.review.site.Table`."""
    from dustsim.review.site import column_label, format_number

    d = df[[c for c in cols if c in df.columns]].head(n)
    e = html.escape
    head = "".join(f"<th>{e(column_label(c)[0])}</th>" for c in d.columns)
    body = "".join("<tr>" + "".join(f"<td>{e(format_number(None if _na(v) else v))}</td>"
                                    for v in row) + "</tr>"
                   for row in d.itertuples(index=False, name=None))
    return f"<table class='kv'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _na(v) -> bool:
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _meta(settings_doc: dict, s: ReportSettings) -> dict:
    """What the index says first: the edition, the cards, the engine, the checks."""
    d = settings_doc
    lead = (f"{d['cards']:,} {d['edition']} cards ({d['complete_cards']:,} complete), each "
            "scored per army point for offence and durability against every armour column "
            "and every other card; platoons, duels and Dust Epic battles where the edition has "
            "them. Engine: " + ("exact (probabilities computed, not sampled)"
                                if d["engine"] == "exact" else
                                f"Monte Carlo, {d['trials']:,} trials per figure, seed "
                                f"{d['seed']}") + ".")
    conf = ""
    if "mc_confirmation" in d:
        m = d["mc_confirmation"]
        conf = (f"Monte Carlo check of {m['rows']:,} exact figures ({d['trials']:,} trials "
                f"each, seed {d['seed']}): {m['within_3_sigma']:.1%} within 3 standard errors, "
                f"largest |z| {m['max_abs_z']:.2f} (Method and checks).")
    return {"title": f"Balance review: {d['edition']}", "lead": lead, "confirmation": conf,
            "edition": d["edition"], "engine": d["engine"], "seed": d["seed"],
            "dustsim": d["dustsim"], "sources": d["sources"],
            "settings_json": json.dumps(d, indent=1)}


def _partial_explained(frames: dict, cards: list[Card]) -> dict:
    """The frames as the site shows them: a ``partial`` flag of the scores reads "yes: "
    and which figure is missing and why (the CSV and Parquet tables keep the flag)."""
    from dustsim.data.views import partial_reasons

    sc = frames.get("scores")
    if sc is None or not len(sc) or "partial" not in sc:
        return frames
    why = {c.name: "; ".join(partial_reasons(c)) for c in cards}
    shown = sc.copy()
    flag = shown["partial"].fillna(False).astype(bool)
    shown["partial"] = [("yes: " + why[u] if why.get(u) else "yes: some figures use unknown "
                         "cells (see the notes)") if f else "no"
                        for u, f in zip(shown["unit"], flag, strict=True)]
    return {**frames, "scores": shown}


def _write_site(tmp: Path, settings_doc: dict, frames: dict, chart_figs: dict,
                chosen: list[Card], edition_cards: list[Card], s: ReportSettings,
                value_html: str = "") -> None:
    from dustsim.review.pdf import write_pdf
    from dustsim.review.site import Table, write_site

    meta = _meta(settings_doc, s)
    sections = _sections(_partial_explained(frames, chosen), chart_figs, settings_doc,
                         value_html)
    pages = _card_pages(chosen, frames, edition_cards)
    meta["finding"] = finding(frames.get("fair_points"), {p["name"]: f"cards/{p['slug']}.html"
                                                          for p in pages})
    if "fair_points" in chart_figs:
        meta["finding_chart"] = ("fair_points", chart_figs["fair_points"][0])
    headline = []
    fp = frames.get("fair_points")
    if fp is not None and len(fp) and "value_per_ap" in fp:
        # the value from play leads: the static composite ignores range, movement and close
        # combat, so it stays in its own section (issue 14)
        cols = [c for c in ("unit", "bloc", "kind", "ap", "fair_ap", "fair_low", "fair_high",
                            "verdict", "value_per_ap", "rank_value_per_ap", "not_modelled")
                if c in fp]
        judged = fp[fp["judged"].astype(bool)] if "judged" in fp else fp
        headline.append(Table("headline", "Every judged card: printed and suggested cost from "
                              "play", judged, columns=tuple(cols), links={"unit": "card"},
                              order=("rank_value_per_ap", "asc"), page_length=10,
                              note="Suggested cost: what the card is worth in engagements "
                                   "against the reference field. Cards whose value lies mainly "
                                   "in roles the model does not play are not judged; they are "
                                   "listed under Value from play. Sort, filter or search; each "
                                   "name opens the card's page."))
    elif len(frames["scores"]):
        sc = frames["scores"]
        cols = [c for c in ("unit", "bloc", "kind", "ap", "offence_per_ap", "durability_per_ap",
                            "composite", "rank_composite", "partial") if c in sc]
        headline.append(Table("headline", "Every card ranked by composite per AP", sc,
                              columns=tuple(cols), links={"unit": "card"},
                              order=("composite", "desc"), page_length=10,
                              note="Sort by any column, filter per column, or search; each "
                                   "name opens the card's page."))
    write_site(tmp, meta=meta, sections=sections, cards=pages, headline=headline,
               card_table=_cards_table(pages, chosen, frames))
    tables_index = "".join(f"<li><a href='{n}'>{n}</a></li>"
                           for n in sorted(p.name for p in (tmp / "tables").iterdir()))
    (tmp / "tables" / "index.html").write_text(
        f"<!doctype html><meta charset='utf-8'><title>tables</title><ul>{tables_index}</ul>",
        encoding="utf-8")
    write_pdf(tmp / "review.pdf", meta, sections, chart_figs)
