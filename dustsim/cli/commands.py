"""Subcommands built on the engines: ``attack`` (and ``bench``, ``report`` in their modules)."""

from __future__ import annotations

import json
import sys

from dustsim import DEFAULT_TRIALS, SWEEP_TRIALS
from dustsim.cli.shell import command, progress_wanted, refuse_unused
from dustsim.errors import DustsimError


def _check_trials(args) -> None:
    """One-line error (exit 2) for --trials below 1, before any work starts."""
    if args.trials < 1:
        raise DustsimError("--trials must be >= 1", field="--trials")


def _check_attack_size(args, cell) -> None:
    """Dice in the whole attack and --damage-taken against the target, before any work."""
    from dustsim.limits import check_int

    per = cell.dice if cell.dice is not None else cell.blast * (args.models or 1)
    check_int(args.count * (per or 0) or 1, "attack_dice",
              f"--count {args.count} x {per} dice in {args.weapon!r} =")
    if args.damage_taken < 0:
        raise DustsimError("--damage-taken must be >= 0", field="--damage-taken")
    if args.damage_taken:
        if args.track is None:
            raise DustsimError("--damage-taken counts boxes of a --track (hero, vehicle, "
                               "support); for a squad give the models left with --models",
                               field="--damage-taken")
        if args.damage_taken >= args.track:
            raise DustsimError(f"--damage-taken {args.damage_taken} leaves nothing of "
                               f"--track {args.track}; use 0 to {args.track - 1}",
                               field="--damage-taken")


def _parse_options(items) -> dict:
    out = {}
    for it in items or []:
        if "=" not in it:
            raise DustsimError(f"--option {it!r} is not NAME=VALUE", field="--option")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


ATTACK_POLICIES = ("least-loss", "squad-first", "hero-first")  # = attack.POLICIES (no import)


def _choice(value, valid, flag: str):
    """One-line error (exit 2) naming the flag and its valid values."""
    if value is not None and value not in valid:
        raise DustsimError(f"{value!r} is not one of {', '.join(valid)}", field=flag)
    return value


@command
def _register_attack(sub) -> None:
    p = sub.add_parser(
        "attack", help="expected kills and outcome distributions of one attack",
        description="Evaluate one attack action. Script a weapon line with --weapon CELL "
                    "--target COLUMN, or fire a card at a card with --unit NAME --vs NAME. "
                    "Rules options: `dustsim options`.")
    p.add_argument("--ruleset", default=None,
                   help="tactics-2009, tactics-2013 or dust-1947 (default: the card's "
                        "edition, else --edition's ruleset, else dust-1947)")
    p.add_argument("--weapon", help="weapon cell in card notation: 3/1, */1, **/2, 2/#")
    p.add_argument("--count", type=int, default=1, help="carriers of the weapon")
    p.add_argument("--keyword", action="append", default=[],
                   help="weapon keyword: laser, cutting, phaser, grenade, flame, artillery...")
    act = p.add_mutually_exclusive_group()
    act.add_argument("--sustained", action="store_true", help="Sustained Attack")
    act.add_argument("--reactive", action="store_true", help="reactive attack (2-dice roll)")
    p.add_argument("--moved", action="store_true", help="the attacker moved this activation")
    p.add_argument("--close-combat", action="store_true", help="include range-C weapons")
    p.add_argument("--salvo", action="store_true",
                   help="Salvo Attack: Salvo weapons roll twice the dice (1947 L3308-3312)")
    p.add_argument("--volley", type=int, default=0, metavar="BOXES",
                   help="Volley weapons: ammo boxes spent, dice x BOXES (1947 L3337-3341)")
    p.add_argument("--aim", default="none", metavar="{hero,soldier}",
                   help="Sniper / Assassin: the miniature the attacker names (1947 L3317, "
                        "L3429; 2009 L738-742)")
    p.add_argument("--attacker-token", "--own-token", dest="attacker_token", default="none",
                   metavar="{none,under-fire,suppressed}",
                   help="the attacker's own token: a Suppressed unit reacts with one die "
                        "(1947 L747, L3333)")
    p.add_argument("--distance", type=int, help="squares to the target: weapons out of "
                                                "range are left out (--unit/--vs)")
    p.add_argument("--skill", action="append", default=[], help="attacker skill")
    p.add_argument("--target", help="armour column I1-I4, V1-V7, A1-A3")
    p.add_argument("--target-kind", metavar="{squad,hero,vehicle,aircraft,support}")
    p.add_argument("--models", type=int, help="models in a squad target")
    p.add_argument("--track", type=int, help="damage track of a hero/vehicle/support target")
    p.add_argument("--damage-taken", type=int, default=0)
    p.add_argument("--small", action="store_true",
                   help="a small vehicle: always in cover (1947 L3649)")
    p.add_argument("--hero-track", type=int, help="track of a hero joined to the squad")
    p.add_argument("--hero-damage-taken", type=int, default=0,
                   help="damage the joined hero has taken")
    p.add_argument("--hero-skill", action="append", default=[],
                   help="skill of the joined hero only (Damage Resilient, Cheat Death: not "
                        "shared, 1947 L3487)")
    p.add_argument("--cover", nargs="?", const="cover", default=None,
                   metavar="{soft,hard}", help="target in cover; 2009: soft or hard cover "
                                              "(two soft covers make hard, 2009 L525)")
    p.add_argument("--cover-save", metavar="{hit-save,miss-save,no-save}",
                   help="2009: the target card's printed save for this cover")
    p.add_argument("--fortification", default="none", metavar="{none,bunker,strongpoint}")
    p.add_argument("--height", default="level",
                   metavar="{level,attacker-higher,target-higher}")
    p.add_argument("--aircraft-moved", default="none", metavar="{none,move,march}")
    p.add_argument("--target-moved", action="store_true", help="target moved (no Burst bonus)")
    p.add_argument("--target-skill", action="append", default=[], help="target skill")
    p.add_argument("--policy", default=ATTACK_POLICIES[0],
                   metavar="{" + ",".join(ATTACK_POLICIES) + "}",
                   help="hit allocation of the target's owner (default least-loss: soldiers "
                        "first, a joined hero takes the hits he survives)")
    p.add_argument("--token", default="none", metavar="{none,under-fire,suppressed}",
                   help="the target's token before the attack")
    p.add_argument("--option", action="append", help="ruleset option NAME=VALUE "
                                                     "(see `dustsim options`)")
    p.add_argument("--unit", help="attacking card name")
    p.add_argument("--vs", help="target card name")
    p.add_argument("--edition", help="edition of the cards (when a name is ambiguous); with "
                                     "--weapon, selects that edition's ruleset")
    p.add_argument("--engine", default="exact", metavar="{exact,mc}")
    p.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                   help=f"Monte Carlo trials (default {DEFAULT_TRIALS:,})")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--chart", metavar="FILE",
                   help="write the damage distribution chart (.png, .svg or .pdf)")
    p.add_argument("--force", action="store_true", help="replace an existing --chart file")
    p.add_argument("--data", nargs="*", help="unit files or folders")
    p.set_defaults(func=cmd_attack)


def _chart_path(args):
    """--chart FILE checked before any work: a .png, .svg or .pdf that --force may replace."""
    from pathlib import Path

    if not args.chart:
        refuse_unused(args, {"--force": "it replaces an existing --chart file; no --chart given"})
        return None
    from dustsim.io import check_output_file

    path = check_output_file(Path(args.chart), args.force, "--chart")
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in ("png", "svg", "pdf"):
        raise DustsimError(f"chart format {fmt or '(none)'!r}: name the file .png, .svg "
                           "or .pdf", field="--chart")
    return path


def _write_chart(fig, path, force: bool) -> None:
    """Write one Figure atomically to ``path`` (its suffix is the format)."""
    import tempfile
    from pathlib import Path

    from dustsim.io import atomic_write_bytes
    from dustsim.review.charts import save

    with tempfile.TemporaryDirectory() as tmp:
        (written,) = save(fig, Path(tmp), "chart", (path.suffix.lstrip(".").lower(),))
        atomic_write_bytes(path, written.read_bytes(), force=force, what="--chart")


def _check_attack_flags(args) -> None:
    """Every enumerated attack flag: one line naming the flag and its valid values."""
    from dustsim.rules.attack import AIMS, TOKENS
    from dustsim.rules.rulesets import EDITIONS, RULESET_IDS

    _choice(args.ruleset, RULESET_IDS, "--ruleset")
    _choice(args.edition, EDITIONS, "--edition")
    _choice(args.policy, ATTACK_POLICIES, "--policy")
    _choice(args.engine, ("exact", "mc"), "--engine")
    _choice(args.aim, AIMS, "--aim")
    _choice(args.token, TOKENS, "--token")
    _choice(args.attacker_token, TOKENS, "--attacker-token")
    _choice(args.target_kind, ("squad", "hero", "vehicle", "aircraft", "support"),
            "--target-kind")
    _choice(args.cover, ("cover", "soft", "hard"), "--cover")
    _choice(args.cover_save, ("hit-save", "miss-save", "no-save"), "--cover-save")
    _choice(args.fortification, ("none", "bunker", "strongpoint"), "--fortification")
    _choice(args.height, ("level", "attacker-higher", "target-higher"), "--height")
    _choice(args.aircraft_moved, ("none", "move", "march"), "--aircraft-moved")
    if args.volley < 0:
        raise DustsimError("--volley must be >= 0 ammo boxes", field="--volley")
    if args.distance is not None and args.distance < 1:
        raise DustsimError("--distance must be >= 1 square", field="--distance")
    # a flag that would change nothing is refused, not ignored (issue 27)
    card_mode = bool(args.unit or args.vs)
    if args.distance is not None and not card_mode:
        raise DustsimError("--distance needs --unit/--vs (the card's weapon ranges); a "
                           "--weapon cell has no range", field="--distance")
    if args.hero_damage_taken and (card_mode or args.hero_track is None):
        raise DustsimError("--hero-damage-taken needs a joined hero (--hero-track with "
                           "--weapon/--target)", field="--hero-damage-taken")
    if args.volley and not card_mode and "volley" not in {
            k.strip().lower() for k in args.keyword}:
        raise DustsimError("--volley acts on Volley weapons only: add --keyword volley",
                           field="--volley")


def _attack_ruleset(args, options: dict, card_edition: str | None = None):
    """The ruleset that runs: --ruleset, else the card's or --edition's, else dust-1947."""
    from dustsim.rules.rulesets import DEFAULT_RULESET_FOR_EDITION, get_ruleset

    by_edition = DEFAULT_RULESET_FOR_EDITION[card_edition or args.edition] \
        if (card_edition or args.edition) else None
    if args.ruleset and by_edition and args.ruleset != by_edition and not card_edition:
        raise DustsimError(f"--edition {args.edition} plays under {by_edition}, not "
                           f"--ruleset {args.ruleset}; give one of them", field="--edition")
    return get_ruleset(args.ruleset or by_edition or "dust-1947", **options)


def cmd_attack(args) -> int:
    from dustsim.api import card_attack_spec, evaluate
    from dustsim.rules.attack import (
        Situation,
        Target,
        compile_attack,
        target_from_card,
        weapon_from_cell,
    )

    _check_trials(args)
    _check_attack_flags(args)
    chart = _chart_path(args)
    action = "sustained" if args.sustained else ("reactive" if args.reactive else "attack")
    options = _parse_options(args.option)
    sit_kw = dict(salvo=args.salvo, volley=args.volley, aim=args.aim, token=args.attacker_token)
    cover_kind = args.cover if args.cover in ("soft", "hard") else None
    title = ""
    choices = None
    if args.unit or args.vs:
        if not (args.unit and args.vs):
            raise DustsimError("--unit and --vs go together", field="--vs")
        if args.weapon or args.target:
            raise DustsimError("use either --unit/--vs or --weapon/--target", field="--weapon")
        from dustsim.cli.shell import _data_paths
        from dustsim.data.cards import find_card, load_cards

        cards = load_cards(_data_paths(args.data))
        att = find_card(cards, args.unit, args.edition, args.ruleset)
        dfn = find_card(cards, args.vs, args.edition or att.edition)
        rs = _attack_ruleset(args, options, att.edition)
        target = target_from_card(dfn, cover=args.cover is not None, cover_kind=cover_kind,
                                  cover_2009=args.cover_save,
                                  fortification=args.fortification, height=args.height,
                                  aircraft_moved=args.aircraft_moved, moved=args.target_moved,
                                  token=args.token, policy=args.policy)
        spec, choices = card_attack_spec(att, target, action=action, moved=args.moved,
                                         close_combat=args.close_combat, ruleset=rs,
                                         extra_skills=tuple(args.skill),
                                         distance=args.distance, with_choices=True, **sit_kw)
        if args.volley and not any("volley" in w.keywords for w in att.weapons):
            raise DustsimError(f"--volley acts on Volley weapons; {att.name!r} has none",
                               field="--volley")
        title = f"{att.name} -> {dfn.name} ({target.column}{', cover' if target.cover else ''})"
    else:
        if not args.weapon or not args.target:
            raise DustsimError("give --weapon CELL and --target COLUMN, or --unit and --vs",
                               field="--weapon")
        rs = _attack_ruleset(args, options)
        w, cell = weapon_from_cell(args.weapon, count=args.count, keywords=args.keyword,
                                   column=args.target,
                                   range_="C" if args.close_combat else "6")
        _check_attack_size(args, cell)
        target = Target(
            column=args.target, models=args.models, track=args.track,
            damage_taken=args.damage_taken, kind=args.target_kind, hero_track=args.hero_track,
            hero_damage_taken=args.hero_damage_taken, hero_skills=frozenset(args.hero_skill),
            skills=frozenset(args.target_skill), cover=args.cover is not None,
            cover_2009=args.cover_save, small=args.small,
            fortification=args.fortification, height=args.height,
            aircraft_moved=args.aircraft_moved, moved=args.target_moved, policy=args.policy,
            token=args.token)
        sit = Situation(action=action, moved=args.moved, close_combat=args.close_combat,
                        skills=frozenset(args.skill), **sit_kw)
        spec = compile_attack([(w, cell)], target, sit, rs)
        title = f"{args.count}x {args.weapon} -> {args.target}"
    from dustsim.limits import check_int

    check_int(sum(g.dice for g in spec.groups), "attack_dice",  # Salvo / Volley included
              "dice in the whole attack (--count, --salvo, --volley) =")
    result = evaluate(spec, args.engine, trials=args.trials, seed=args.seed,
                      threads=args.threads)
    if chart is not None:
        from dustsim.review.charts import damage_distributions

        _write_chart(damage_distributions([(title, result)], f"{title} ({spec.ruleset}, "
                                                             f"{action})"), chart, args.force)
    if args.json:
        out = {"attack": title, "ruleset": spec.ruleset, "action": action,
               **result.to_dict()}
        if choices is not None:
            out["weapons"] = [{"name": c.name, "fired": c.fired, "left_out": c.reason or None}
                              for c in choices]
        json.dump(out, sys.stdout, indent=1, default=float)
        print()
    else:
        print(_render(title, spec, action, result, choices))
    return 0


def _render(title, spec, action, r, choices=None) -> str:
    def fmt(dist, se=None):
        s = f"{dist.mean():.4f}"
        if r.engine == "mc":
            s += f" ± {dist.mean_se:.4f}"
        return s

    lines = [f"{title}  [{spec.ruleset}, {action}, engine {r.engine}"
             + (f", {r.trials:,} trials, seed {r.seed}]" if r.engine == "mc" else "]")]
    lines.append(f"  allocation      {spec.allocation}")
    if choices is not None:
        fired = [c.name for c in choices if c.fired]
        lines.append(f"  weapons fired   {', '.join(fired) or '(none)'}")
        for c in choices:
            if not c.fired:
                lines.append(f"  left out        {c.name}: {c.reason}")
    for note in spec.notes:
        lines.append(f"  note: {note}")
    lines.append(f"  hits            {fmt(r.hits)}")
    lines.append(f"  unsaved hits    {fmt(r.unsaved)}")
    if spec.models:
        lines.append(f"  models killed   {fmt(r.models_killed)}  (of {spec.models})")
    if spec.single:
        lines.append(f"  damage marked   {fmt(r.single_damage)}  (of {spec.single} left)")
    lines.append(f"  P(destroyed)    {r.p_destroyed:.4f}")
    lines.append("  damage  P(=k)    P(>=k)")
    for k, p in enumerate(r.damage.to_list()):
        lines.append(f"  {k:>6}  {p:.4f}   {r.damage.at_least(k):.4f}")
    if r.token:
        lines.append("  token after:  " + ", ".join(f"{k} {v:.3f}" for k, v in r.token.items()))
    if r.engine == "exact" and r.dropped_mass > 0:
        lines.append(f"  (chain tail truncated: {r.dropped_mass:.1e} mass dropped)")
    return "\n".join(lines)


@command
def _register_bench(sub) -> None:
    p = sub.add_parser("bench", help="kernel and exact-engine benchmarks (ratios, one process)")
    p.add_argument("--quick", action="store_true", help="small sizes (CI smoke mode)")
    p.add_argument("--threads", type=int)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)


def cmd_bench(args) -> int:
    from dataclasses import asdict

    from dustsim.bench import format_results, run

    results = run(quick=args.quick, threads=args.threads)
    if args.json:
        json.dump([asdict(r) for r in results], sys.stdout, indent=1)
        print()
    else:
        print(format_results(results))
    return 0


@command
def _register_report(sub) -> None:
    p = sub.add_parser("report", help="balance-review bundle: tables, charts, index.html",
                       description="Score every card of an edition against every armour "
                                   "column and every card; write CSV/Parquet tables, charts "
                                   "and a static index.html.")
    p.add_argument("--edition", default="dust-1947",
                   help="the cards reviewed: dust-1947, tactics-2013, tactics-2009 or "
                        "ffg-era (default: dust-1947)")
    p.add_argument("--units", help="comma-separated card names (default: every card)")
    p.add_argument("-o", "--out", default="report", help="output folder (default: report)")
    p.add_argument("--engine", default="exact", choices=("exact", "mc"),
                   help="exact: probabilities computed; mc: Monte Carlo with error bars "
                        "(default: exact)")
    p.add_argument("--trials", type=int, default=SWEEP_TRIALS,
                   help="Monte Carlo trials per figure (MC engine, and the exact engine's "
                        f"confirmation; default: {SWEEP_TRIALS:,})")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of every Monte Carlo figure, duel and engagement; the same "
                        "seed gives the same report (default: 0)")
    p.add_argument("--format", default="png,svg,pdf",
                   help="chart formats, comma-separated (default: png,svg,pdf)")
    p.add_argument("--confirm", type=int, default=200,
                   help="exact figures re-checked by Monte Carlo (0: none; default: 200)")
    p.add_argument("--workers", type=int, default=0,
                   help="run the sweeps on a local Dask cluster of N worker processes")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the sweeps on an existing Dask cluster (tcp://host:8786)")
    p.add_argument("--platoon-budget", type=float, default=75,
                   help="army points for the platoon builds (Dust 1947; default 75)")
    p.add_argument("--duel-units", type=int, default=8,
                   help="duel section: the best N cards, each against each (0: none; "
                        "default: 8)")
    p.add_argument("--duel-trials", type=int, default=4_000,
                   help="duels per pairing (default: 4,000)")
    p.add_argument("--value-trials", type=int, default=32,
                   help="value model: engagements per pairing and starting distance "
                        "(default: 32)")
    p.add_argument("--value-battle-hosts", type=int, default=32,
                   help="value model: host armies per bloc in the battles (default: 32)")
    p.add_argument("--patch", metavar="TOML",
                   help="balance proposal (costs, cells, weapons, skills): adds a "
                        "before/after section (format: dustsim.data.patches.load_patch)")
    p.add_argument("--force", action="store_true", help="replace an existing output folder")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bars, and no stage notes when stderr is not a terminal")
    p.add_argument("--data", nargs="*", help="unit files or folders")
    p.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from pathlib import Path

    from dustsim.review.report import ReportSettings, build_report

    _check_trials(args)
    unused = {}
    if args.duel_units < 2:
        unused["--duel-trials"] = "no duel section with --duel-units below 2"
    if args.scheduler:
        unused["--workers"] = "--scheduler uses an existing cluster's workers"
    if args.edition != "dust-1947":
        unused["--platoon-budget"] = f"{args.edition} has no platoon charts"
    refuse_unused(args, unused)
    formats = tuple(f.strip().lower() for f in args.format.split(",") if f.strip())
    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad or not formats:
        raise DustsimError(f"unknown chart format(s) {', '.join(bad) or '(none)'}; "
                           "use png, svg, pdf", field="--format")
    if "png" not in formats:
        formats = ("png", *formats)  # index.html shows the PNGs
    units = tuple(u.strip() for u in (args.units or "").split(",") if u.strip())
    if args.units is not None and not units:
        raise DustsimError("--units is empty; name cards (comma-separated) or leave the flag "
                           "out for every card", field="--units")
    from dustsim.limits import PLATOON_BUDGET_MAX, check_float
    from dustsim.review.sweep import check_scheduler_address

    check_float(args.platoon_budget, "--platoon-budget", lo=0, hi=PLATOON_BUDGET_MAX,
                lo_open=True)
    if args.scheduler is not None:
        check_scheduler_address(args.scheduler)
    from dustsim.io import check_output_dir

    check_output_dir(Path(args.out), args.force, "--out")
    settings = ReportSettings(edition=args.edition, units=units, engine=args.engine,
                              trials=args.trials, seed=args.seed, formats=formats,
                              confirm=args.confirm, progress=progress_wanted(args),
                              notes=not args.quiet,
                              platoon_budget=args.platoon_budget, workers=args.workers,
                              scheduler=args.scheduler, duel_units=args.duel_units,
                              duel_trials=args.duel_trials, value_trials=args.value_trials,
                              value_battle_hosts=args.value_battle_hosts, patch=args.patch)
    if args.value_trials < 1:
        raise DustsimError("--value-trials must be >= 1", field="--value-trials")
    if args.value_battle_hosts < 1:
        raise DustsimError("--value-battle-hosts must be >= 1", field="--value-battle-hosts")
    if args.duel_trials < 1:
        raise DustsimError("--duel-trials must be >= 1", field="--duel-trials")
    if args.workers < 0:
        raise DustsimError("--workers must be >= 0", field="--workers")
    if args.platoon_budget <= 0:
        raise DustsimError("--platoon-budget must be > 0", field="--platoon-budget")
    data = [Path(p) for p in args.data] if args.data else None
    summary = build_report(Path(args.out), settings, force=args.force, data=data)
    print(f"report for {summary['edition']}: {summary['cards']} cards, "
          f"{summary['rows_unit_column']:,} unit x column rows, "
          f"{summary['rows_unit_unit']:,} unit x unit rows, {summary['seconds']} s -> "
          f"{Path(args.out) / 'index.html'}")
    if "mc_confirmation" in summary:
        m = summary["mc_confirmation"]
        print(f"Monte Carlo confirmation: {m['rows']} figures, "
              f"{m['within_3_sigma']:.1%} within 3 SE, max |z| {m['max_abs_z']:.2f}")
    return 0


@command
def _register_whatif(sub) -> None:
    p = sub.add_parser("whatif", help="change one card; see its fair cost, verdict and rank move",
                       description="Re-run the value model (dustsim.review.value) for one changed "
                                   "card: only its own engagements are played again; the "
                                   "reference field and the cost mapping of the unchanged "
                                   "edition are re-applied. With --baseline (a report folder) "
                                   "everything else is read back, so this takes seconds.")
    p.add_argument("--unit", required=True)
    p.add_argument("--edition", default="dust-1947")
    p.add_argument("--ap", type=float, help="new army-point cost")
    p.add_argument("--cell", action="append", default=[],
                   help="WEAPON:COLUMN=CELL, e.g. 'Antitank Gun:V4=2/4'")
    p.add_argument("--add-die", metavar="WEAPON", help="one more die in every column")
    p.add_argument("--remove-die", metavar="WEAPON", help="one die less in every column")
    p.add_argument("--baseline", metavar="REPORT",
                   help="a report folder whose tables/value_engagements.parquet is reused")
    p.add_argument("--trials", type=int, default=32,
                   help="engagements per pairing and distance (as the baseline's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--json", action="store_true")
    p.add_argument("--data", nargs="*")
    p.set_defaults(func=cmd_whatif)


def cmd_whatif(args) -> int:
    from dustsim.cli.shell import _data_paths
    from dustsim.data.cards import find_card, load_cards
    from dustsim.review.analytics import modify_card
    from dustsim.review.value import ValueSettings, run_patch

    cells = {}
    for spec in args.cell:
        if "=" not in spec or ":" not in spec.split("=", 1)[0]:
            raise DustsimError(f"--cell {spec!r} is not WEAPON:COLUMN=CELL", field="--cell")
        left, cell = spec.split("=", 1)
        weapon, col = left.rsplit(":", 1)
        cells[(weapon.strip(), col.strip())] = cell.strip()
    if args.ap is not None:
        from dustsim.limits import AP_MAX, check_float

        check_float(args.ap, "--ap", lo=0, hi=AP_MAX)
    if args.ap is None and not cells and not args.add_die and not args.remove_die:
        raise DustsimError("nothing to change: give --ap, --cell, --add-die or --remove-die",
                           field="--ap")
    _check_trials(args)
    ed = [c for c in load_cards(_data_paths(args.data)) if c.edition == args.edition]
    if not ed:
        raise DustsimError(f"no cards of edition {args.edition!r}", field="--edition")
    card = find_card(ed, args.unit)
    changed = modify_card(card, ap=args.ap, cells=cells or None, add_die=args.add_die,
                          remove_die=args.remove_die)
    previous = previous_battles = None
    if args.baseline:
        from pathlib import Path

        import pandas as pd

        f = Path(args.baseline) / "tables" / "value_engagements.parquet"
        if not f.is_file():
            raise DustsimError("no tables/value_engagements.parquet in that folder (write one "
                               "with dustsim report)", file=str(args.baseline),
                               field="--baseline")
        previous = pd.read_parquet(f)
        fb = Path(args.baseline) / "tables" / "value_battles.parquet"
        previous_battles = pd.read_parquet(fb) if fb.is_file() else None
    st = ValueSettings(trials=args.trials, seed=args.seed, battles=True,
                       battle_cards="needed")  # as the report (value step 3b)
    progress = progress_wanted(args)
    # the edition's model as the report has it: from the cache, else computed (reusing the
    # baseline's rows where nothing changed)
    from dustsim.review.value_cache import cached_value_model

    before, _ = cached_value_model(ed, st, progress=progress, previous=previous,
                                   previous_battles=previous_battles)
    after, diff = run_patch(ed, {card.name: changed}, before, progress=progress)
    from dustsim.review.whatif import summary_text, with_bands

    diff = with_bands(diff, before.table, after.table)
    if args.json:  # the whole before/after frame, one object per card
        print(diff.to_json(orient="records", indent=1))
    else:
        print(summary_text(diff, [card.name]))
        print("(--json: every card before and after)", file=sys.stderr)
    return 0


@command
def _register_platoons(sub) -> None:
    p = sub.add_parser("platoons", help="Dust 1947 platoons: legal builds ranked per AP",
                       description="Score every legal build of every platoon chart within a "
                                   "budget (faction bonus and captured +2 AP applied), rank "
                                   "them per AP; list unmatched names and unmodelled "
                                   "advantages.")
    p.add_argument("--edition", default="dust-1947")
    p.add_argument("--budget", type=float, default=75, help="army points (default 75)")
    p.add_argument("--support", type=int, default=1,
                   help="support units per build, at most (default 1)")
    p.add_argument("--platoon", help="only platoons whose name contains this text")
    p.add_argument("--top", type=int, default=3, help="best builds shown per platoon")
    p.add_argument("--unmatched", action="store_true",
                   help="list the printed unit names that match no card, and stop")
    p.add_argument("--advantages", action="store_true",
                   help="list the advantages (modelled or not), and stop")
    p.add_argument("--differences", action="store_true",
                   help="list where the rulebook and DUST ENLIST charts differ, and stop")
    p.add_argument("--csv", metavar="FILE", help="write every build to a CSV file")
    p.add_argument("--force", action="store_true", help="replace an existing --csv file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--data", nargs="*", help="unit files or folders")
    p.set_defaults(func=cmd_platoons)


def cmd_platoons(args) -> int:
    from pathlib import Path

    from dustsim.army.platoons import advantages, best_builds, load_platoons, matches, platoon_table
    from dustsim.cli.shell import _data_paths
    from dustsim.data.cards import load_cards
    from dustsim.io import atomic_write_text, check_output_file
    from dustsim.limits import PLATOON_BUDGET_MAX, check_float
    from dustsim.review.analytics import scores, unit_column_table, unit_unit_table

    if args.unmatched or args.advantages:
        why = f"--{'unmatched' if args.unmatched else 'advantages'} only lists and stops"
        refuse_unused(args, {o: why for o in ("--budget", "--support", "--top", "--csv")})
    if not args.csv:
        refuse_unused(args, {"--force": "it replaces an existing --csv file; no --csv given"})
    check_float(args.budget, "--budget", lo=0, hi=PLATOON_BUDGET_MAX, lo_open=True)
    if args.support < 0:
        raise DustsimError("--support must be >= 0", field="--support")
    if args.csv:
        check_output_file(Path(args.csv), args.force, "--csv")
    cards = [c for c in load_cards(_data_paths(args.data)) if c.edition == args.edition]
    pls = [p for p in load_platoons() if p.edition == args.edition
           and (not args.platoon or args.platoon.lower() in p.name.lower())]
    if not pls:
        from dustsim.data.names import did_you_mean

        known = [p.name for p in load_platoons() if p.edition == args.edition]
        raise DustsimError(f"no {args.edition} platoon"
                           + (f" matching {args.platoon!r}{did_you_mean(args.platoon, known)}"
                              if args.platoon else ""),
                           field="--platoon" if args.platoon else "--edition")

    def show(df) -> None:
        print(df.to_json(orient="records", indent=1) if args.json
              else df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))

    if args.unmatched:
        m = matches(pls, cards)
        show(m[m["matched_by"] == "unmatched"][["platoon", "slot", "role", "printed"]])
        return 0
    if args.advantages:
        show(advantages(pls)[["platoon", "advantage", "lines", "modelled", "model",
                              "battles", "battles_why_not", "battles_decision", "origin",
                              "buildable"]])
        return 0
    if args.differences:
        from dustsim.army.platoons import chart_differences

        d = chart_differences(cards=cards)
        show(d[d["platoon"].isin({p.name for p in pls})])
        return 0
    uc = unit_column_table(cards, progress=progress_wanted(args))
    uu = unit_unit_table(cards, progress=progress_wanted(args))
    table = platoon_table(pls, cards, scores(uc, uu, cards), budget=args.budget,
                          max_support=args.support, progress=progress_wanted(args))
    if table.empty:
        raise DustsimError(f"no legal build within {args.budget:g} AP", field="--budget")
    if args.csv:
        atomic_write_text(Path(args.csv), table.to_csv(index=False), force=args.force,
                          what="--csv")
    cols = ["rank", "platoon", "command", "required", "support", "ap_paid", "faction",
            "offence_per_ap", "durability_per_ap", "composite", "advantage_gain"]
    show(best_builds(table, args.top)[cols])
    if not args.json:
        n_unbuildable = sum(not p.buildable for p in pls)
        print(f"\n{len(table):,} legal builds within {args.budget:g} AP "
              f"(support <= {args.support}); {n_unbuildable} platoon chart(s) lost in the "
              "rulebook conversion cannot be built (--advantages lists them).",
              file=sys.stderr)
    return 0


@command
def _register_epic(sub) -> None:
    p = sub.add_parser("epic", help="Dust Epic battles and army mixes",
                       description="Dust Epic (strategy game): battle odds by exact Markov "
                                   "chain or Monte Carlo, and the best army mix for a budget.")
    esub = p.add_subparsers(dest="epic_command", required=True, metavar="COMMAND")

    def common(q) -> None:
        where = q.add_mutually_exclusive_group()
        where.add_argument("--capital", action="store_true", help="the target is a capital")
        where.add_argument("--production-centre", "--production-center", action="store_true",
                           dest="production_centre", help="the target holds a PC")
        kind = q.add_mutually_exclusive_group()
        kind.add_argument("--amphibious", action="store_true")
        kind.add_argument("--sea", action="store_true", help="submarines only")
        q.add_argument("--casualties", default="firepower",
                       help="casualty policy: firepower (default), costliest, cheapest")
        q.add_argument("--retreat", default="never", help="retreat policy: never, outgunned")
        q.add_argument("--attacker-ability", action="append", default=[],
                       help="ace-of-the-sky, sigrid, nurse (repeatable)")
        q.add_argument("--defender-ability", action="append", default=[])
        q.add_argument("--json", action="store_true")

    b = esub.add_parser("battle", help="one battle: P(attacker wins), cease-fire, survivors")
    b.add_argument("attacker", help="e.g. '4 tank, 1 mech'")
    b.add_argument("vs", choices=("vs",), help="the word 'vs'")
    b.add_argument("defender", help="e.g. '3 tank'")
    b.add_argument("--engine", default="auto", choices=("auto", "exact", "mc"),
                   help="auto: exact up to 30 figures a side, else Monte Carlo")
    b.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                   help=f"Monte Carlo trials (default {DEFAULT_TRIALS:,})")
    b.add_argument("--seed", type=int, default=0)
    common(b)
    b.set_defaults(func=cmd_epic_battle)

    o = esub.add_parser("optimize", help="best army mix for a production budget",
                        aliases=["optimise"])
    o.add_argument("--budget", type=int, required=True, help="production points")
    o.add_argument("--vs", required=True, help="the opposing army, e.g. '3 tank, 2 fighter'")
    o.add_argument("--side", default="attacker", choices=("attacker", "defender"),
                   help="optimise the attacker (default) or the defender")
    o.add_argument("--objective", default="win", choices=("win", "efficiency"))
    o.add_argument("--top", type=int, default=10)
    o.add_argument("--chart", metavar="FILE", help="write the win-probability chart (PNG/SVG/PDF)")
    o.add_argument("--force", action="store_true", help="replace an existing --chart file")
    common(o)
    o.set_defaults(func=cmd_epic_optimize)


def _epic_setting(args) -> dict:
    return {"kind": "sea" if args.sea else "amphibious" if args.amphibious else "land",
            "capital": args.capital, "production_centre": args.production_centre,
            "casualties": args.casualties, "retreat": args.retreat,
            "abilities_attacker": tuple(args.attacker_ability),
            "abilities_defender": tuple(args.defender_ability)}


def cmd_epic_battle(args) -> int:
    from dustsim.play.epic import TYPES, battle

    if args.engine == "exact":
        why = "the exact engine samples nothing (--engine mc or auto)"
        refuse_unused(args, {"--trials": why, "--seed": why})
    _check_trials(args)
    r = battle(args.attacker, args.defender, engine=args.engine, trials=args.trials,
               seed=args.seed, **_epic_setting(args))
    d = r.to_dict()
    if args.json:
        print(json.dumps(d, indent=1))
        return 0
    se = (lambda k: f" ± {r.se(k):.4f}") if r.trials else (lambda k: "")
    print(f"{d['attacker']} attack {d['defender']} ({d['kind']}"
          + (", capital" if r.battle.capital else "")
          + (", production centre" if r.battle.production_centre else "")
          + f"; engine {r.engine}" + (f", {r.trials:,} trials" if r.trials else
                                      f", {r.states:,} states") + ")")
    for k in ("p_attacker_wins", "p_defender_wins", "p_ceasefire", "p_draw"):
        if k != "p_draw" or d[k]:
            print(f"  {k:<16} {d[k]:.4f}{se(k)}")
    for side in ("attacker", "defender"):
        surv = d[f"expected_survivors_{side}"]
        print(f"  {side} expected survivors: "
              + ", ".join(f"{surv[t]:.2f} {t}" for t in TYPES if t in surv)
              + f"; PP lost {d[f'pp_lost_{side}']:.2f}")
    print(f"  attacker PP destroyed per PP lost: {d['pp_efficiency_attacker']:.3f}")
    return 0


def cmd_epic_optimize(args) -> int:

    from dustsim.limits import check_int
    from dustsim.play.epic import optimize

    path = _chart_path(args)
    check_int(args.budget, "epic_budget", "--budget")
    rows = optimize(args.budget, args.vs, side=args.side, objective=args.objective,
                    progress=progress_wanted(args), **_epic_setting(args))
    if path is not None:
        from dustsim.review.charts import epic_mixes

        _write_chart(epic_mixes(rows, args.budget, args.vs, args.side), path, args.force)
    if args.json:
        print(json.dumps(rows[: args.top], indent=1))
        return 0
    import pandas as pd

    df = pd.DataFrame(rows[: args.top])[["mix", "cost", "p_win", "p_ceasefire", "pp_lost",
                                         "pp_destroyed", "efficiency"]]
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"({len(rows)} mixes of {args.budget} PP spending all but less than the cheapest "
          f"figure; {args.side} against {args.vs})", file=sys.stderr)
    return 0


# -- duel -----------------------------------------------------------------------------------------
@command
def _register_duel(sub) -> None:
    from dustsim.cli.shell import lazy_parser

    lazy_parser(
        sub, "duel", _duel_arguments,
        help="a small engagement played to the end: P(win), turns, AP exchanged",
        description="Two sides of one to forty units (comma-separated card names; 'Hero + "
                    "Squad' joins a hero) play a game to the end. Dust 1947 duels are fought on "
                    "a scenario's board (default 101 Firefight: 9 x 12 squares, 8 turns, the "
                    "sides entering from their edges, every rule the board plays; "
                    "dustsim/play/battle.py). --scenario line keeps the line engine: the sides "
                    "--distance squares apart, cover fixed per unit ('Name@cover', --cover-a, "
                    "--cover-b) and the line policies (dustsim/play/duel.py); it is the only "
                    "mode of the Tactics rulesets. A line option with a board is refused "
                    "(exit 2).")


def _duel_arguments(p) -> None:
    from dustsim.play.duel import (
        DUEL_DISTANCE,
        DUEL_RULESETS,
        DUEL_SCENARIO,
        DUEL_TURNS,
        LINE,
        DuelPolicy,
        default_trials,
    )
    from dustsim.play.policies import DEFAULT_POLICY, POLICIES

    p.add_argument("--ruleset", choices=DUEL_RULESETS,
                   help="default: the edition's ruleset, else dust-1947")
    p.add_argument("--edition", help="look the names up in this edition only")
    p.add_argument("--side-a", required=True, metavar="UNITS")
    p.add_argument("--side-b", required=True, metavar="UNITS")
    p.add_argument("--scenario", metavar="NAME",
                   help=f"where the duel is fought: a Dust 1947 scenario's board, number or "
                        f"name (`dustsim scenarios`; default {DUEL_SCENARIO} Firefight), or "
                        f"'{LINE}': the line engine (the default and only mode of the "
                        f"tactics-2009/2013 rulesets)")
    p.add_argument("--turns", type=int,
                   help=f"turn limit (default: the scenario's; {DUEL_TURNS} on the line)")
    p.add_argument("--trials", type=int,
                   help=f"games to play (default {default_trials(DUEL_SCENARIO):,} on a board, "
                        f"{DEFAULT_TRIALS:,} on the line)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, help="worker threads (default: all cores)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="ruleset option (see dustsim.rules.rulesets.OPTIONS)")
    p.add_argument("--data", nargs="*", help="unit files or folders")
    p.add_argument("--json", action="store_true")
    p.add_argument("--csv", metavar="FILE",
                   help="write the result's tidy table (to_frame) to a CSV file")
    p.add_argument("--force", action="store_true",
                   help="replace an existing --csv or --replay file")
    b = p.add_argument_group("on a scenario's board (Dust 1947; not with --scenario line)")
    b.add_argument("--policy", help=f"battle policy of both sides: {', '.join(POLICIES)} "
                                    f"(default {DEFAULT_POLICY}; dustsim/play/policies.py)")
    b.add_argument("--attacker", choices=("A", "B"),
                   help="side playing the scenario's attacker (default: drawn per game)")
    b.add_argument("--variant", help="a printed variant of the scenario (`dustsim scenarios "
                                     "SCENARIO`)")
    b.add_argument("--replay", metavar="FILE",
                   help="write one sampled game: FILE.html (the page) or FILE.json (the event "
                        "log)")
    ln = p.add_argument_group(f"on the line (--scenario {LINE}, and every Tactics duel); "
                              "with a board they are refused")
    ln.add_argument("--distance", type=int,
                    help=f"squares between the sides (default {DUEL_DISTANCE})")
    ln.add_argument("--cover-a", action="store_true",
                    help="every unit of side A in cover (one unit: 'Name@cover')")
    ln.add_argument("--cover-b", action="store_true", help="every unit of side B in cover")
    for name, choices in DuelPolicy.CHOICES.items():
        default = getattr(DuelPolicy(), name)
        ln.add_argument(f"--{name}", choices=choices,
                        help=f"{name} policy (default {default})")
    p.set_defaults(func=cmd_duel)


def _duel_line_flags(args) -> list[str]:
    """The line-only options given (typed or not at their default)."""
    from dustsim.play.duel import DuelPolicy

    flags = ["--distance"] * (args.distance is not None)
    flags += [f"--{s}" for s in ("cover-a", "cover-b") if getattr(args, s.replace("-", "_"))]
    flags += [f"--{n}" for n in DuelPolicy.CHOICES
              if getattr(args, n) is not None]
    return flags


def _duel_board(args, side_a, side_b, where: str) -> tuple:
    """``dustsim duel`` on a scenario's board: line-only options refused, the battle played."""
    from dustsim.cli.list_commands import variant_name
    from dustsim.play.duel import LINE, duel
    from dustsim.play.scenarios import find_scenario

    try:
        sc = find_scenario(where)
    except DustsimError as exc:
        raise DustsimError(f"{exc.message}, or '{LINE}' (a duel on a line)",
                           field="--scenario") from None
    where = f"{sc.number} {sc.name}"
    why = (f"Dust 1947 duels are fought on scenario {where}'s board unless you give --scenario "
           f"{LINE}" if args.scenario is None else f"not on scenario {where}'s board")
    flags = _duel_line_flags(args)
    if flags:
        raise DustsimError(f"{flags[0]} applies to duels on a line only ({why}): add --scenario "
                           f"{LINE}, or drop {flags[0]}", field=flags[0])
    for label, side in (("--side-a", side_a), ("--side-b", side_b)):
        for u in side:
            if u.cover:
                raise DustsimError(f"'{u.name}': @cover applies to duels on a line only "
                                   f"({why}; on the board cover comes from the terrain): add "
                                   f"--scenario {LINE}, or drop @cover", field=label)
    r = duel(side_a, side_b, scenario=sc.number, trials=args.trials, seed=args.seed,
             policy=args.policy, attacker=args.attacker, variant=args.variant,
             threads=args.threads, turns=args.turns, options=_parse_options(args.option),
             progress=progress_wanted(args))
    d = r.to_dict()
    d["variant"] = variant_name(sc.number, args.variant)
    if args.replay is not None:
        from dustsim.play.battle import event_log
        from dustsim.review.replay import write_replay

        write_replay(event_log(r.spec, args.seed), args.replay, force=args.force)
    variant = f", variant {d['variant']}" if d["variant"] else ""
    head = (f"{args.ruleset}, scenario {d['scenario']}{variant}, board {d['board']}, "
            f"{d['turns']} turns, policy {d['policy']}; {r.trials:,} games, seed {r.seed}")
    rows = [f"  {label:<10} {d[k]:.4f} ± {d['se_' + k]:.4f}"
            for label, k in (("A wins", "p_a_wins"), ("B wins", "p_b_wins"), ("draw", "p_draw"))]
    for side in ("A", "B"):
        parts = ", ".join(f"{k} {v:.3f}" for k, v in d["won_by"][side].items() if v)
        rows.append(f"  {side} won by  {parts or '-'}")
    for s in ("a", "b"):
        rows.append(f"  AP lost by {s.upper()}: {d[f'ap_lost_{s}']:.2f} ± "
                    f"{d[f'se_ap_lost_{s}']:.2f}")
    rows.append(f"  VP of A {d['vp_a']:.2f} ± {d['se_vp_a']:.2f}, of B {d['vp_b']:.2f} ± "
                f"{d['se_vp_b']:.2f}; turns played {d['mean_turns']:.2f} on average")
    return r, d, head, rows


def _duel_line(args, side_a, side_b) -> tuple:
    """``dustsim duel --scenario line`` (and every Tactics duel): the engagement kernel."""
    from dustsim.play.duel import (
        DUEL_DISTANCE,
        DUEL_TURNS,
        LINE,
        DuelPolicy,
        compile_duel,
        line_words,
        simulate_duel,
    )

    for flag in ("policy", "attacker", "variant", "replay"):
        if getattr(args, flag) is not None:
            raise DustsimError(f"--{flag} applies to a scenario's board, not to a duel on a "
                               f"line (--scenario {LINE}, or a Tactics ruleset)",
                               field=f"--{flag}")
    distance = DUEL_DISTANCE if args.distance is None else args.distance
    turns = DUEL_TURNS if args.turns is None else args.turns
    default = DuelPolicy()
    policy = DuelPolicy(**{k: getattr(args, k) or getattr(default, k)
                           for k in DuelPolicy.CHOICES})
    spec = compile_duel(side_a, side_b, ruleset=args.ruleset, distance=distance,
                        turns=turns, policy=policy, options=_parse_options(args.option))
    r = simulate_duel(spec, args.trials, args.seed, threads=args.threads,
                      progress=progress_wanted(args))
    d = r.to_dict()
    head = (f"{args.ruleset}, {line_words(distance, args.ruleset)}, up to {turns} turns; "
            f"{r.trials:,} duels, seed {r.seed}")
    rows = []
    for label, key in (("A wins", "a"), ("B wins", "b"), ("no result", "none")):
        p = {"a": r.p_a_wins, "b": r.p_b_wins, "none": r.p_draw}[key]
        extra = ""
        if key != "none" and d[f"expected_turns_{key}_wins"] is not None:
            extra = f"   (in {d[f'expected_turns_{key}_wins']:.2f} turns on average)"
        word = {"a": "p_a_wins", "b": "p_b_wins", "none": "p_draw"}[key]
        rows.append(f"  {label:<10} {p:.4f} ± {r.se(word):.4f}{extra}")
    for s in ("a", "b"):
        m = d[f"ap_lost_{s}"]
        rows.append(f"  AP lost by {s.upper()}: " + ("unknown (a cost is '?')" if m is None else
                                                     f"{m:.2f} ± {d[f'se_ap_lost_{s}']:.2f}"))
    rows.append("  unit                                   start  mean left  P(destroyed)")
    for u in d["units"]:
        rows.append(f"  {u['side'].upper()} {u['name'][:36]:<36} {u['start']:>5}  "
                    f"{u['mean_left']:>9.2f}  {u['p_destroyed']:>12.4f}")
    return r, d, head, rows


def cmd_duel(args) -> int:
    from dustsim.cli.shell import _data_paths
    from dustsim.data.cards import load_cards
    from dustsim.play.duel import LINE, default_trials, duel_scenario, parse_side
    from dustsim.rules.rulesets import DEFAULT_RULESET_FOR_EDITION

    if args.edition is not None and args.edition not in DEFAULT_RULESET_FOR_EDITION:
        raise DustsimError(f"unknown edition {args.edition!r}", field="--edition")
    args.ruleset = args.ruleset or DEFAULT_RULESET_FOR_EDITION.get(args.edition or "",
                                                                   "dust-1947")
    where = duel_scenario(args.ruleset, args.scenario)
    if args.trials is None:
        args.trials = default_trials(where)
    _check_trials(args)
    csv_path = None
    if args.csv:
        from pathlib import Path

        from dustsim.io import check_output_file

        csv_path = check_output_file(Path(args.csv), args.force, "--csv")
    elif not args.replay:
        refuse_unused(args, {"--force": "it replaces an existing --csv or --replay file; "
                                        "neither given"})
    if args.replay and where != LINE:
        from dustsim.cli.list_commands import _check_replay_path

        args.replay = _check_replay_path(args)
    cards = load_cards(_data_paths(args.data))
    if args.edition is not None:
        cards = [c for c in cards if c.edition == args.edition]
    side_a = parse_side(args.side_a, cards, args.ruleset, cover=args.cover_a,
                        field_name="--side-a")
    side_b = parse_side(args.side_b, cards, args.ruleset, cover=args.cover_b,
                        field_name="--side-b")
    r, d, head, rows = (_duel_line(args, side_a, side_b) if where == LINE
                        else _duel_board(args, side_a, side_b, where))
    if csv_path is not None:
        from dustsim.io import atomic_write_bytes

        atomic_write_bytes(csv_path, r.to_frame().to_csv(index=False).encode(),
                           force=args.force, what="--csv")
    if args.json:
        print(json.dumps(d, indent=1))
        return 0
    names = lambda side: ", ".join(u.name for u in side)  # noqa: E731
    print(f"A: {names(side_a)}\nB: {names(side_b)}\n{head}")
    print("\n".join(rows))
    for n in d["notes"]:
        print(f"note: {n}", file=sys.stderr)
    return 0
