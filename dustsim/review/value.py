"""The value model: what a card is worth in play, and the army points that follow from it.

This module holds the whole definition (``dustsim report``, ``dustsim whatif`` and
``benchmarks/value_model.py`` use it; nothing here is fitted to printed costs except the one
mapping in step 4).

1. **Reference field** (:func:`reference_field`). For every armour class (I1-I4, V1-V7, A1-A3)
   that has playable cards in the edition, :data:`PER_CLASS` representatives: the class's
   cards sorted by printed AP (ties by name), those at the (i + 1/2)/k quantiles, i = 0..k-1
   (k = 1: the lower median). Cards whose value lies mainly in a role the model does not play
   (step 5) are not representatives. A class's weight is its share of the edition's army points
   (every card with a cost counts), split evenly among its representatives, so the field looks
   like the armies a card meets. The printed AP only *chooses* representatives across the
   class's range; it is never used to score them.
2. **Engagements** (:func:`engagements`). Each card plays one on one against every
   representative with :mod:`dustsim.play.duel` (its engagement kernel: initiative, alternating
   activations, movement and March Move, range bands, reactive fire, Under Fire and
   Suppression, close combat with retaliation, persistent damage, firepower lost as models
   die, limited ammo and reload; the default :class:`~dustsim.play.duel.DuelPolicy`), both in the
   open, for :data:`TURNS` turns from each starting distance of :data:`DISTANCES` (squares,
   equally likely), ``trials`` engagements per distance. The card is side A; a hero plays
   alone (``join_heroes=True`` plays it joined to its class's median squad and values what it
   adds; measured on Dust 1947 it agrees less with the printed costs, so it is off). All
   engagements of one card run in one kernel call from the card's own random stream
   (``SeedSequence`` keyed by the seed and the card's name), so a card's figures do not depend
   on which other cards are computed, on the thread count or on the order.
3. **Strength** (:func:`strengths`). From an engagement of card X with representative O:
   ``D_XO``, the mean fraction of O's starting strength (models + hero track + damage track)
   that X destroys, averaged over the distances, and ``D_OX`` the other way round. Under
   Lanchester's square law a unit of firepower ``a`` and health ``h`` is worth ``a x h`` per
   unit squared; over a short engagement ``D_XO / D_OX`` estimates
   ``(a_X h_X) / (a_O h_O)``, saturating when one side is wiped out. So
   ``y_XO = log((D_XO + EPS) / (D_OX + EPS))`` (``EPS`` = :data:`EPS` keeps a card that cannot
   be hurt, or cannot hurt, finite) and the **strength** of X is the field-weighted mean of
   ``y_XO + s_O`` over the representatives it could play, where ``s_O`` is O's own strength
   against the field (normalised so that the field's weighted mean strength is 0; with every
   pairing played the ``s_O`` terms cancel). It is a log ratio: +0.7 means the card trades
   about twice as well as the field, at one unit each. Monte Carlo error: the delta method on
   the per-distance means (``strength_se``).
4. **Fair points** (:func:`fit_mapping`). The only fitted parameters: one monotone mapping
   ``log AP = a + b x strength`` for the whole edition (always the whole edition, also when a
   report shows a subset), fitted by reduced-major-axis regression (``b = sd(log AP) /
   sd(strength)``, sign of the correlation): unlike ordinary least squares it does not shrink
   suggested costs toward the mean when the fit is imperfect. The fit uses the cards with a
   modelled value (step 5) and a cost. ``fair_ap = exp(a + b s)``; the band is a 90 %
   prediction band in log AP from the Monte Carlo error of ``s``, the fit's parameter
   uncertainty (bootstrap over cards, :data:`BOOTSTRAP` resamples) and the scatter of the
   printed costs about the mapping (what the model leaves out: a verdict means the card is off
   by more than the model usually is), widened by half an AP for whole-AP printing.
   Verdicts: *under-costed* below the band, *over-costed* above it, *in band*; cards whose
   value lies mainly in an unmodelled role get *not judged*, cards that cannot play get *no
   value*. Fit quality: n, Spearman rank correlation and R² (squared Pearson correlation of
   log suggested and log printed AP).
5. **Not modelled** (:func:`not_modelled`). A card's skills and weapon keywords that change
   its worth but that the engagements do not play are named per card by the table
   :data:`ROLES` (naming, never a weight). Roles marked *main* (Artillery Observer,
   transport / airlift, command: Officer, Command Squad / Vehicle, General; piloting heroes,
   Medic, Mechanic, Spy, air traffic control, radar, jamming) carry most of a card's worth:
   such cards are kept out of the verdicts and of the fit, and listed as such
   (``mainly_unmodelled``), as are cards with no weapon of their own that have an unmodelled
   rule (all their worth is in it). Platoon advantages are never part of a card's figure.

Static balance tables (:mod:`dustsim.review.analytics`) are kept for reference; this model is
what the report's fair points and verdicts come from.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace

import numpy as np
import pandas as pd

from dustsim.data.cards import COLUMNS, Card
from dustsim.errors import DustsimError
from dustsim.rules.skills import played_skill_names, skill_rule

DISTANCES: tuple[int, ...] = (3, 6, 9, 12)
TURNS = 4
EPS = 0.05
TRIALS = 32
PER_CLASS = 3
BOOTSTRAP = 200
BAND = 0.90
ROUNDING_AP = 0.5
#: engagement accumulators per (opponent, distance)
(A_LOST, A_LOST2, B_LOST, B_LOST2, AB_LOST, A_WINS, B_WINS) = range(7)
N_ACC = 7

#: skill (regular expression on the normalised skill name) -> (role, main). ``main`` roles
#: carry most of a card's worth; the others are named but the card is still judged.
ROLES: tuple[tuple[str, str, bool], ...] = (
    (r"artillery observer", "Artillery Observer", True),
    (r"passengers.*", "transport (Passengers)", True),
    (r"airlifter", "airlifter", True),
    (r"sealifter", "sealifter", True),
    (r"medevac", "medevac", True),
    (r"officer", "Officer (command actions)", True),
    (r".*command squad", "command squad actions", True),
    (r"command vehicle", "command vehicle actions", True),
    (r"general", "General", True),
    (r"ace (air )?pilot", "Ace Pilot", True),
    (r"pilot", "pilot (hero piloting a vehicle)", True),
    (r"ace gunner", "Ace Gunner", True),
    (r"(combat )?medic", "Medic", True),
    (r"mechanic.*", "Mechanic", True),
    (r"spy", "Spy", True),
    (r"air traffic control", "air traffic control", True),
    (r"radar", "radar", True),
    (r"jammer", "Jammer", True),
    (r"pilot: .*", "named pilot", False),
    (r"charge", "Charge", False),
    (r"first strike", "First Strike", False),
    (r"assassin", "Assassin", False),
    (r"(improved )?camouflage", "Camouflage", False),
    (r"scout", "Scout", False),
    (r"airborne|air assault|air drop", "Airborne deployment", False),
    (r"smoke launchers", "Smoke Launchers", False),
    (r"advanced reactive fire", "Advanced Reactive Fire", False),
    (r"black ops", "Black Ops", False),
    (r"at the double", "At the Double", False),
    (r"trail ?blazer", "Trailblazer", False),
    (r"dozer blade", "Dozer Blade", False),
    (r"engineer vehicle", "Engineer Vehicle", False),
    (r"raid", "Raid", False),
    (r"follow me|red banner|get moving.*|desert fox|execute|interrogate|take aim|"
     r"resurrection|blutkreuz|quick recovery|devour|sibling: .*|crazy jimmy|"
     r"lesser mythos creatures|mythos creature|possessed|mindless",
     "special rule", False),
    (r"(expert|fighting spirit|lucky|medal of honor|air alert|savage animal|spotter)([ :].*)?",
     "dice skill not played in engagements", False),
    (r"strong ?point", "Strongpoint", False),
    (r"infantry ace", "Infantry Ace (third action)", False),
)
#: weapon keywords the engagement kernel fires as a plain attack (named, not valued)
KEYWORD_ROLES = {"salvo": "Salvo", "volley": "Volley", "wire-guided": "wire-guided re-roll",
                 "smoke": "smoke", "tesla": "Tesla stun", "grapple": "Grapple stun"}
NO_WEAPON = "no weapon of its own (worth in its special rules)"
#: skills the engagements play (or that change nothing in them); any other skill is named
PLAYED_SKILLS = played_skill_names()  # the one table: dustsim.rules.skills (issue 23)
_ROLE_RE = [(re.compile(rf"^(?:{pat})$"), role, main) for pat, role, main in ROLES]


def _norm(s: str) -> str:
    return " ".join(s.strip().lower().replace("-", " ").split())


def not_modelled(card: Card) -> tuple[tuple[str, bool], ...]:
    """The roles of ``card`` the engagements do not play: ``(role, main)`` pairs, in table
    order, from its skills (:data:`ROLES`) and weapon keywords (:data:`KEYWORD_ROLES`)."""
    found: dict[str, bool] = {}
    for s in card.skills:
        n = _norm(s)
        r = skill_rule(s)  # the one table (dustsim.rules.skills): played rules are not named
        if r is not None and not r.unplayed and not r.gap:
            continue
        for rx, role, main in _ROLE_RE:
            if rx.match(n):
                found[role] = found.get(role, False) or main
                break
        else:
            if n not in PLAYED_SKILLS:
                found.setdefault(f"rule not played: {s.strip()}", False)
    standard = [w for w in card.weapons if not w.optional and w.count != 0]
    for w in standard:
        for k in w.keywords:
            if k in KEYWORD_ROLES:
                found.setdefault(KEYWORD_ROLES[k], False)
    if not standard and found:  # it cannot attack: its worth is what its rules do
        found[NO_WEAPON] = True
    return tuple(found.items())


def main_roles(card: Card) -> tuple[str, ...]:
    """The unmodelled roles that carry most of the card's worth (kept out of verdicts)."""
    return tuple(r for r, main in not_modelled(card) if main)


def fingerprint(card: Card) -> str:
    """Stable hash of what the engagements see of a card (everything but cost and sources)."""
    keep = ("name", "edition", "kind", "armour", "models", "damage_track", "move",
            "march_move", "skills", "size", "weapons")
    text = repr(tuple(getattr(card, k) for k in keep))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def _stream_key(name: str) -> list[int]:
    d = hashlib.blake2b(name.encode("utf-8"), digest_size=16).digest()
    return [int.from_bytes(d[i:i + 4], "little") for i in range(0, 16, 4)]


@dataclass(frozen=True)
class ValueSettings:
    """The knobs of the model (defaults are the documented model)."""

    trials: int = TRIALS  # engagements per pairing and distance
    seed: int = 0
    distances: tuple[int, ...] = DISTANCES
    turns: int = TURNS
    eps: float = EPS
    threads: int | None = None
    per_class: int = PER_CLASS  # representatives per armour class
    join_heroes: bool = False  # play heroes joined to a host squad (measured: worse)
    infantry_cover: bool = False  # infantry of both sides fights from cover

    def __post_init__(self) -> None:
        if isinstance(self.trials, bool) or not isinstance(self.trials, int) or not (
                1 <= self.trials <= 10_000_000):
            raise DustsimError("the value model's trials must be an integer from 1 to "
                               f"10000000, got {self.trials!r}", field="--value-trials")
        if not self.distances or any(not 1 <= d <= 200 for d in self.distances):
            raise DustsimError("distances must be 1 to 200 squares", field="distances")
        if not 1 <= self.turns <= 100:
            raise DustsimError("turns must be 1 to 100", field="turns")

    @property
    def key(self) -> str:
        """What the engagement figures depend on (a cached table is reused only if equal)."""
        return (f"t{self.trials}s{self.seed}d{','.join(map(str, self.distances))}"
                f"T{self.turns}k{self.per_class}j{int(self.join_heroes)}"
                f"c{int(self.infantry_cover)}")


@dataclass(frozen=True)
class Opponent:
    """One representative of the reference field."""

    name: str
    column: str
    weight: float
    n_class: int
    class_ap: float


def _ruleset(edition: str) -> str | None:
    from dustsim.play.duel import DUEL_RULESETS
    from dustsim.rules.rulesets import DEFAULT_RULESET_FOR_EDITION

    rs = DEFAULT_RULESET_FOR_EDITION.get(edition)
    return rs if rs in DUEL_RULESETS else None


def why_unplayable(card: Card) -> str | None:
    """Why a card cannot take part in an engagement (None if it can)."""
    from dustsim.rules.attack import target_from_card

    if _ruleset(card.edition) is None:
        return f"no engagement rules for {card.edition}"
    if card.move is None:
        return "move unknown"
    try:
        target_from_card(card)
    except DustsimError as exc:
        return exc.message
    return None


def reference_field(cards: Iterable[Card], per_class: int = PER_CLASS) -> tuple[Opponent, ...]:
    """The representatives (module docstring, step 1) of one edition's cards; with
    ``per_class`` k > 1, the cards at the (i + 1/2)/k quantiles of AP in each class, sharing
    the class's weight."""
    cards = list(cards)
    tot = {c: 0.0 for c in COLUMNS}
    for c in cards:
        if c.armour in tot and c.ap:
            tot[c.armour] += c.ap
    total = sum(tot.values())
    out = []
    for col in COLUMNS:
        pool = sorted((c for c in cards if c.armour == col and c.ap and not main_roles(c)
                       and why_unplayable(c) is None), key=lambda c: (c.ap, c.name))
        if not pool or total <= 0:
            continue
        k = min(per_class, len(pool))
        picks = dict.fromkeys(pool[(len(pool) - 1) // 2] if k == 1 else
                              pool[int((i + 0.5) / k * len(pool))] for i in range(k))
        for rep in picks:
            out.append(Opponent(rep.name, col, tot[col] / len(picks), len(pool), tot[col]))
    s = sum(o.weight for o in out)
    return tuple(replace(o, weight=o.weight / s) for o in out)


# -- the batched kernel ---------------------------------------------------------------------------
_KERNEL = None


def _kernel():
    """The Numba batch runner (built on first use: importing this module stays light)."""
    global _KERNEL
    if _KERNEL is not None:
        return _KERNEL
    import numba as nb

    from dustsim.play import duel_kernel as K

    @nb.njit(nogil=True, cache=True)
    def run_pairs(rng, n, dists, units, wpn, nw, gdice, gblast, groups, tspec, cfg, value,
                  out):
        """Every pairing p (side A unit 0, side B unit 1) at every distance, ``n`` times;
        out[p, d]: sums of A's and B's lost fraction, their squares and product, wins."""
        buf = np.empty(4096, np.uint8)
        pos = buf.shape[0]
        st = np.zeros((2, 7), np.int64)
        for p in range(units.shape[0]):
            w = nw[p]
            wp = max(w, 1)
            u = units[p]
            wpn_p = wpn[p, :w]
            gd = gdice[p, :wp]
            gb = gblast[p, :wp]
            gr = groups[p, :wp]
            ts = tspec[p]
            val = value[p]
            c = cfg[p].copy()
            ws, rows, spec, res, res2, o = K._scratch(wpn_p, gr, ts)
            s0 = u[0, K.U_MODELS] + u[0, K.U_HERO] + u[0, K.U_SINGLE]
            s1 = u[1, K.U_MODELS] + u[1, K.U_HERO] + u[1, K.U_SINGLE]
            for di in range(dists.shape[0]):
                c[K.C_DIST] = dists[di]
                for _ in range(n):
                    pos = K._engagement(rng, buf, pos, False, u, wpn_p, gd, gb, gr, ts, c, val,
                                        st, ws, rows, spec, res, res2, o)
                    fa = 1.0 - (st[0, 0] + st[0, 1] + st[0, 2]) / max(s0, 1)
                    fb = 1.0 - (st[1, 0] + st[1, 1] + st[1, 2]) / max(s1, 1)
                    out[p, di, 0] += fa
                    out[p, di, 1] += fa * fa
                    out[p, di, 2] += fb
                    out[p, di, 3] += fb * fb
                    out[p, di, 4] += fa * fb
                    if o[0] == 0:
                        out[p, di, 5] += 1.0
                    elif o[0] == 1:
                        out[p, di, 6] += 1.0

    _KERNEL = run_pairs
    return run_pairs


def _rng(seed_seq: np.random.SeedSequence):
    """The kernels' generator for one card's stream (the inline state where the kernels
    have one, else a NumPy Generator)."""
    try:
        from dustsim.engines.rng import state
    except ImportError:
        return np.random.Generator(np.random.PCG64(seed_seq))
    return state(seed_seq)


def _stack(specs) -> tuple:
    """Pad the pairings' arrays to one shape (the kernel slices each back)."""
    P = len(specs)
    W = max(max(s.weapons.shape[0] for s in specs), 1)
    units = np.stack([s.units for s in specs])
    nw = np.array([s.weapons.shape[0] for s in specs], np.int64)
    wpn = np.zeros((P, W, specs[0].weapons.shape[1]), np.int64)
    gdice = np.zeros((P, W, 2), np.int64)
    gblast = np.zeros((P, W, 2), np.int64)
    groups = np.zeros((P, W, 2, 2, specs[0].groups.shape[3]), np.int64)
    for p, s in enumerate(specs):
        k = s.weapons.shape[0]
        wpn[p, :k] = s.weapons
        gdice[p, :s.gdice.shape[0]] = s.gdice
        gblast[p, :s.gblast.shape[0]] = s.gblast
        groups[p, :s.groups.shape[0]] = s.groups
    tspec = np.stack([s.tspec for s in specs])
    cfg = np.stack([s.config for s in specs])
    value = np.stack([s.value for s in specs])
    return units, wpn, nw, gdice, gblast, groups, tspec, cfg, value


def host_squads(cards: Iterable[Card]) -> dict[str, str]:
    """The squad a hero of each infantry armour joins (module docstring, step 3): the
    median-AP playable squad of that armour whose value is modelled (lower median, ties by
    name)."""
    out = {}
    cards = list(cards)
    for col in COLUMNS[:4]:
        pool = sorted((c for c in cards if c.armour == col and c.kind == "squad" and c.ap
                       and not main_roles(c) and why_unplayable(c) is None),
                      key=lambda c: (c.ap, c.name))
        if pool:
            out[col] = pool[(len(pool) - 1) // 2].name
    return out


def _side(card: Card, host: Card | None, cover: bool = False):
    """The unit the card plays as: joined to its host squad when it is a hero that can join."""
    from dustsim.play.duel import DuelUnit, join_hero

    cover = cover and card.armour_type == "I"
    if host is not None and card.kind == "hero" and host.name != card.name:
        try:
            return join_hero(card, host, cover=cover)
        except DustsimError:
            pass
    return DuelUnit(card, cover=cover)


def _card_row(card: Card, opponents: list[Card], st: ValueSettings,
              host: Card | None = None) -> tuple[np.ndarray, list]:
    """One card against the given opponents: accumulators [opponent, distance, N_ACC] and
    the notes of each compiled pairing (one kernel call, the card's own stream)."""
    from dustsim.play.duel import compile_duel

    ruleset = _ruleset(card.edition)
    side = _side(card, host, st.infantry_cover)
    specs, notes = [], []
    for opp in opponents:
        spec = compile_duel([side], [_side(opp, None, st.infantry_cover)], ruleset=ruleset,
                            distance=st.distances[0], turns=st.turns)
        specs.append(spec)
        notes.append(tuple(n for n in spec.notes if n.startswith(f"{card.name}:")
                           or n.startswith(f"{side.name}:")))
    out = np.zeros((len(specs), len(st.distances), N_ACC), float)
    if specs:
        rng = _rng(np.random.SeedSequence([st.seed, *_stream_key(card.name)]))
        _kernel()(rng, st.trials, np.asarray(st.distances, np.int64), *_stack(specs), out)
    return out, notes


_ROWS: dict[tuple, pd.DataFrame] = {}  # memo of one process: (settings, card, opponents) -> rows
_ROWS_MAX = 50_000


def clear_cache() -> None:
    """Forget the engagement rows memoised in this process."""
    _ROWS.clear()


def engagements(cards: list[Card], field_: tuple[Opponent, ...], edition_cards: list[Card],
                settings: ValueSettings | None = None, *, previous: pd.DataFrame | None = None,
                hosts: dict[str, str] | None = None, progress: bool = False,
                client=None) -> pd.DataFrame:
    """Tidy table: card x representative x distance with the engagement sums (step 2).

    Rows of ``previous`` whose card and opponent fingerprints and settings match are reused
    (a patch or whatif recomputes only what it changed), as are rows computed earlier in this
    process (a pure function of the card, the opponents and the settings). Cards that cannot
    play get one row with ``why`` set and no figures. ``client``: a Dask client whose
    workers play the cards (:data:`DASK_TASKS_PER_WORKER` batches per worker); every card
    draws from its own stream, so the table is bitwise the same wherever it ran."""
    st = settings or ValueSettings()
    by_name = {c.name: c for c in edition_cards}
    opps = [by_name[o.name] for o in field_]
    opp_fp = {o.name: fingerprint(o) for o in opps}
    if hosts is None:
        hosts = host_squads(edition_cards) if st.join_heroes else {}

    def host_of(card: Card) -> Card | None:
        h = by_name.get(hosts.get(card.armour or "", ""))
        return h if h is not None and _side(card, h).hero is not None else None

    def unit_fp(card: Card) -> str:
        h = host_of(card)
        return fingerprint(card) + ("+" + fingerprint(h) if h is not None else "")
    reuse: dict[str, pd.DataFrame] = {}
    if previous is not None and len(previous):
        prev = previous[previous["settings"] == st.key]
        for name, g in prev.groupby("unit", sort=False):
            reuse[name] = g
    todo, parts = [], {}
    for card in cards:
        why = why_unplayable(card)
        if why is not None:
            parts[card.name] = pd.DataFrame([{"unit": card.name, "why": why,
                                              "settings": st.key}])
            continue
        g = reuse.get(card.name)
        fp = unit_fp(card)
        memo = _ROWS.get((st.key, card.name, fp, tuple(sorted(opp_fp.items()))))
        if memo is not None:
            parts[card.name] = memo
            continue
        if g is not None and (g["unit_fp"] == fp).all() and set(g["opponent"]) == set(
                opp_fp) and all(g["opponent_fp"] == g["opponent"].map(opp_fp)):
            parts[card.name] = g
            continue
        todo.append(card)

    jobs = [(card, host_of(card), unit_fp(card)) for card in todo]
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc="value engagements", unit="card", leave=False)
    try:
        for (card, _h, fp), df in zip(jobs, _run_rows(jobs, opps, opp_fp, st, client, bar),
                                      strict=True):
            parts[card.name] = df
            if len(_ROWS) < _ROWS_MAX and (df["why"] == "").all():
                _ROWS[(st.key, card.name, fp, tuple(sorted(opp_fp.items())))] = df
    finally:
        if bar is not None:
            bar.close()
    frames = [parts[c.name] for c in cards if c.name in parts]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


#: Dask tasks per worker for the value engagements (each card draws from its own stream, so
#: the split changes no number; a few tasks per worker keep them busy to the end)
DASK_TASKS_PER_WORKER = 8


def _rows(card: Card, host: Card | None, fp: str, opps: list[Card], opp_fp: dict[str, str],
          st: ValueSettings) -> pd.DataFrame:
    """One card's engagement rows (pure: the same in any thread or process)."""
    try:
        acc, notes = _card_row(card, opps, st, host)
    except DustsimError as exc:
        return pd.DataFrame([{"unit": card.name, "why": exc.message, "settings": st.key}])
    rows = []
    for i, o in enumerate(opps):
        for j, d in enumerate(st.distances):
            r = {"unit": card.name, "host": host.name if host is not None else "",
                 "opponent": o.name, "distance": d,
                 "trials": st.trials, "unit_fp": fp, "opponent_fp": opp_fp[o.name],
                 "settings": st.key, "why": "", "notes": "; ".join(notes[i])}
            r.update({k: acc[i, j, n] for n, k in enumerate(
                ("s_lost_unit", "s2_lost_unit", "s_lost_opp", "s2_lost_opp", "s_lost_both",
                 "wins_unit", "wins_opp"))})
            rows.append(r)
    return pd.DataFrame(rows)


def _rows_batch(jobs: list[tuple], opps: list[Card], opp_fp: dict[str, str],
                st: ValueSettings) -> list[pd.DataFrame]:
    """A Dask task: the rows of a few cards, one after the other."""
    return [_rows(card, host, fp, opps, opp_fp, st) for card, host, fp in jobs]


def _run_rows(jobs: list[tuple], opps: list[Card], opp_fp: dict[str, str], st: ValueSettings,
              client, bar) -> list[pd.DataFrame]:
    """Every job's rows, in job order: on ``client``'s workers, else on threads here."""
    if not jobs:
        return []
    if client is not None:
        from distributed import as_completed

        workers = len(client.scheduler_info().get("workers") or ()) or 1
        size = max(1, -(-len(jobs) // (DASK_TASKS_PER_WORKER * workers)))
        batches = [jobs[i:i + size] for i in range(0, len(jobs), size)]
        f_opps, f_fp, f_st = client.scatter([opps, opp_fp, st], broadcast=True, hash=False)
        # one call submits every task (a submit per task waits on the event loop each time)
        futures = client.map(_rows_batch, batches, opps=f_opps, opp_fp=f_fp, st=f_st,
                             pure=False, retries=2)
        index = {f.key: i for i, f in enumerate(futures)}
        done: list = [None] * len(batches)
        try:
            for fut in as_completed(futures):
                done[index[fut.key]] = fut.result()
                if bar is not None:
                    bar.update(len(done[index[fut.key]]))
        except BaseException:
            client.cancel(futures)
            raise
        return [df for part in done for df in part]
    from concurrent.futures import ThreadPoolExecutor

    from dustsim.engines.kernel import default_threads

    _kernel()  # build (or load) once before the threads start
    threads = max(1, min(st.threads or default_threads(), len(jobs)))
    out = []
    with ThreadPoolExecutor(max_workers=threads) as ex:
        for df in ex.map(lambda j: _rows(*j, opps, opp_fp, st), jobs):
            out.append(df)
            if bar is not None:
                bar.update(1)
    return out


def pair_log_ratios(eng: pd.DataFrame, eps: float = EPS) -> pd.DataFrame:
    """Per card and representative: ``y`` (step 3) and its standard error (delta method on
    the per-distance means; the distances are equally likely)."""
    g = eng[eng["why"] == ""] if "why" in eng else eng.iloc[0:0]
    if g.empty:
        return pd.DataFrame(columns=["unit", "opponent", "y", "y_se", "d_unit", "d_opp"])
    n = g["trials"].to_numpy(float)
    ma = g["s_lost_unit"].to_numpy(float) / n
    mb = g["s_lost_opp"].to_numpy(float) / n
    d = pd.DataFrame({
        "unit": g["unit"].to_numpy(), "opponent": g["opponent"].to_numpy(), "ma": ma,
        "mb": mb, "va": np.maximum(g["s2_lost_unit"].to_numpy(float) / n - ma * ma, 0) / n,
        "vb": np.maximum(g["s2_lost_opp"].to_numpy(float) / n - mb * mb, 0) / n,
        "cab": (g["s_lost_both"].to_numpy(float) / n - ma * mb) / n, "k": 1.0})
    a = d.groupby(["unit", "opponent"], sort=False).sum()
    k = a["k"]
    da, db = a["ma"] / k + eps, a["mb"] / k + eps  # da: the card's own losses
    var = (a["vb"] / k**2) / db**2 + (a["va"] / k**2) / da**2 - 2 * (a["cab"] / k**2) / (
        da * db)
    out = pd.DataFrame({"y": np.log(db / da), "y_se": np.sqrt(var.clip(lower=0)),
                        "d_unit": a["mb"] / k, "d_opp": a["ma"] / k})
    return out.reset_index()


def strengths(eng: pd.DataFrame, field_: tuple[Opponent, ...],
              eps: float = EPS) -> pd.DataFrame:
    """Strength and its Monte Carlo error per card (module docstring, step 3)."""
    w = pd.Series({o.name: o.weight for o in field_}, dtype=float)
    y = pair_log_ratios(eng, eps)
    y = y[y["opponent"].isin(w.index)].copy()
    y["w"] = y["opponent"].map(w)
    # the representatives' own strengths (the field's weighted mean is 0)
    ref = y[y["unit"].isin(w.index)]
    s_ref = (ref["w"] * ref["y"]).groupby(ref["unit"]).sum() / ref.groupby("unit")["w"].sum()
    s_ref = s_ref.reindex(w.index).fillna(0.0)
    s_ref -= (w * s_ref).sum()
    y["t"] = y["w"] * (y["y"] + y["opponent"].map(s_ref))
    y["v"] = y["w"] ** 2 * y["y_se"] ** 2
    a = y.groupby("unit", sort=False)[["w", "t", "v"]].sum()
    a["n"] = y.groupby("unit", sort=False).size()
    units = list(dict.fromkeys(eng["unit"])) if len(eng) else []
    why = eng.drop_duplicates("unit").set_index("unit")["why"] if len(eng) else pd.Series()
    out = pd.DataFrame({"unit": units})
    a = a.reindex(units)
    out["strength"] = (a["t"] / a["w"]).to_numpy()
    out["strength_se"] = (np.sqrt(a["v"]) / a["w"]).to_numpy()
    out["opponents"] = a["n"].fillna(0).astype(int).to_numpy()
    out["why"] = [("" if np.isfinite(s) else (why.get(u) or "no engagement"))
                  for u, s in zip(units, out["strength"], strict=True)]
    return out


# -- the mapping ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mapping:
    """``log AP = a + b x strength`` (reduced major axis) with its bootstrap draws."""

    a: float
    b: float
    n: int
    spearman: float
    r2: float
    boot: tuple[tuple[float, float], ...] = field(default=(), repr=False)
    sd_resid: float = 0.0  # scatter of log AP about the mapping over the fit set

    def fair(self, s) -> np.ndarray:
        return np.exp(self.a + self.b * np.asarray(s, float))

    def band(self, s, se, level: float = BAND) -> tuple[np.ndarray, np.ndarray]:
        from scipy import stats

        s = np.asarray(s, float)
        se = np.nan_to_num(np.asarray(se, float))
        if self.boot:
            ab = np.asarray(self.boot)
            preds = ab[:, :1] + ab[:, 1:] * s[None, :]
            sd_fit = preds.std(axis=0, ddof=1)
        else:
            sd_fit = np.zeros_like(s)
        sd = np.sqrt(sd_fit**2 + (self.b * se) ** 2 + self.sd_resid**2)
        z = stats.norm.ppf(0.5 + level / 2)
        mid = self.a + self.b * s
        return np.exp(mid - z * sd) - ROUNDING_AP, np.exp(mid + z * sd) + ROUNDING_AP


def _rma(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    r = np.corrcoef(x, y)[0, 1]
    b = math.copysign(y.std(ddof=1) / x.std(ddof=1), r)
    return float(y.mean() - b * x.mean()), float(b)


def fit_mapping(strength, ap, *, seed: int = 0, boot: int = BOOTSTRAP) -> Mapping:
    """The one fitted mapping (module docstring, step 4); needs at least 5 cards."""
    from scipy import stats

    s = np.asarray(strength, float)
    y = np.log(np.asarray(ap, float))
    ok = np.isfinite(s) & np.isfinite(y)
    s, y = s[ok], y[ok]
    if len(s) < 5 or s.std() == 0:
        raise DustsimError(f"the cost mapping needs at least 5 cards with a modelled value "
                           f"and a cost, got {len(s)}", field="fair points")
    a, b = _rma(s, y)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(boot):
        i = rng.integers(0, len(s), len(s))
        if s[i].std() > 0:
            draws.append(_rma(s[i], y[i]))
    rho = float(stats.spearmanr(s, y)[0])
    r2 = float(np.corrcoef(a + b * s, y)[0, 1] ** 2)
    sd_resid = float(np.std(y - (a + b * s), ddof=2))
    return Mapping(a, b, len(s), rho, r2, tuple(draws), sd_resid)


def fit_quality(suggested, printed) -> dict:
    """n, Spearman and log R² (squared Pearson correlation of the logs) of two cost lists;
    also 1 - SSE/SST of log printed about log suggested."""
    from scipy import stats

    x = np.log(np.asarray(suggested, float))
    y = np.log(np.asarray(printed, float))
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 3:
        return {"n": len(x), "spearman": math.nan, "log_r2": math.nan,
                "log_r2_identity": math.nan}
    return {"n": len(x), "spearman": float(stats.spearmanr(x, y)[0]),
            "log_r2": float(np.corrcoef(x, y)[0, 1] ** 2),
            "log_r2_identity": float(1 - ((y - x) ** 2).sum() / ((y - y.mean()) ** 2).sum())}


# -- the whole model ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ValueModel:
    """Everything one run of the model produced (tables tidy, one row per card)."""

    table: pd.DataFrame
    engagements: pd.DataFrame
    field: tuple[Opponent, ...]
    mapping: Mapping | None
    settings: ValueSettings
    hosts: dict[str, str] = field(default_factory=dict)
    cards: tuple[Card, ...] = ()

    def quality(self) -> dict:
        """Agreement of suggested and printed cost over the judged cards (joined heroes
        included; they are not in the fit)."""
        d = self.table[self.table["judged"]]
        return fit_quality(d["fair_ap"], d["ap"])


def _describe(card: Card) -> dict:
    roles = not_modelled(card)
    return {"unit": card.name, "bloc": card.bloc, "faction": card.faction, "kind": card.kind,
            "armour": card.armour, "ap": card.ap,
            "not_modelled": "; ".join(r for r, _ in roles),
            "mainly_unmodelled": "; ".join(r for r, m in roles if m)}


def value_model(edition_cards: list[Card], settings: ValueSettings | None = None, *,
                previous: pd.DataFrame | None = None, field_: tuple[Opponent, ...] | None = None,
                mapping: Mapping | None = None, hosts: dict[str, str] | None = None,
                progress: bool = False, client=None) -> ValueModel:
    """Run the model over one edition. ``field_``, ``hosts`` and ``mapping`` default to the
    edition's (a patch passes the unpatched edition's so that before and after compare like
    with like); ``previous`` engagement rows are reused where nothing changed; ``client``:
    play the engagements on a Dask cluster (same table)."""
    st = settings or ValueSettings()
    eds = {c.edition for c in edition_cards}
    if len(eds) != 1:
        raise DustsimError(f"the value model runs on one edition at a time, got "
                           f"{', '.join(sorted(eds)) or 'none'}", field="--edition")
    fld = field_ if field_ is not None else reference_field(edition_cards, st.per_class)
    if hosts is None:
        hosts = host_squads(edition_cards) if st.join_heroes else {}
    if _ruleset(next(iter(eds))) is None or not fld:
        tab = pd.DataFrame([_describe(c) for c in edition_cards])
        tab = tab.assign(strength=math.nan, strength_se=math.nan, opponents=0,
                         why=("no engagement rules for this edition" if not fld else
                              "no playable card with a cost to form a reference field"),
                         notes="", host="",
                         partial=False, judged=False, in_fit=False)
        return ValueModel(_apply(tab, None), pd.DataFrame(), fld, None, st, hosts,
                          tuple(edition_cards))
    eng = engagements(edition_cards, fld, edition_cards, st, previous=previous, hosts=hosts,
                      progress=progress, client=client)
    s = strengths(eng, fld, st.eps)
    tab = pd.DataFrame([_describe(c) for c in edition_cards]).merge(s, on="unit", how="left")
    played = eng[eng["why"] == ""]
    notes = played.groupby("unit")["notes"].agg(
        lambda x: "; ".join(dict.fromkeys(n for v in x for n in v.split("; ") if n)))
    tab["notes"] = tab["unit"].map(notes).fillna("")
    tab["host"] = tab["unit"].map(played.groupby("unit")["host"].first()).fillna("")
    tab["partial"] = tab["notes"].str.contains("unknown|no known range|not fired", regex=True)
    has = tab["strength"].notna() & (tab["ap"].fillna(0) > 0)
    tab["judged"] = has & (tab["mainly_unmodelled"] == "") & ~tab["partial"]
    tab["in_fit"] = tab["judged"] & (tab["host"] == "")
    if mapping is None and tab["in_fit"].sum() >= 5:
        mapping = fit_mapping(tab.loc[tab["in_fit"], "strength"],
                              tab.loc[tab["in_fit"], "ap"], seed=st.seed)
    return ValueModel(_apply(tab, mapping), eng, fld, mapping, st, hosts, tuple(edition_cards))


def _apply(tab: pd.DataFrame, mapping: Mapping | None) -> pd.DataFrame:
    """Fair AP, band, verdict and rank from the strengths under ``mapping``. A joined hero's
    fair AP is what it adds: fair(joined unit) - fair(host squad alone), at least
    :data:`ROUNDING_AP`; its ``strength`` is then the strength that maps to that AP (the
    joined unit's stays in ``strength_joined``)."""
    from scipy import stats

    tab = tab.copy()
    tab["ap"] = pd.to_numeric(tab["ap"], errors="coerce").astype(float)
    for k in ("strength", "strength_se"):
        tab[k] = pd.to_numeric(tab[k], errors="coerce").astype(float)
    if "strength_joined" in tab:  # re-applying: start again from the joined strengths
        tab["strength"] = tab["strength_joined"].where(tab["host"] != "", tab["strength"])
        tab["strength_se"] = tab["strength_joined_se"].where(tab["host"] != "",
                                                             tab["strength_se"])
    tab["strength_joined"] = tab["strength"].where(tab["host"] != "")
    tab["strength_joined_se"] = tab["strength_se"].where(tab["host"] != "")
    for k in ("fair_ap", "fair_low", "fair_high", "residual"):
        tab[k] = math.nan
    ok = tab["strength"].notna()
    if mapping is not None and ok.any():
        alone = ok & (tab["host"] == "")
        s, se = tab.loc[alone, "strength"], tab.loc[alone, "strength_se"]
        tab.loc[alone, "fair_ap"] = mapping.fair(s)
        lo, hi = mapping.band(s, se)
        tab.loc[alone, "fair_low"] = np.maximum(lo, 0.0)
        tab.loc[alone, "fair_high"] = hi
        joined = ok & (tab["host"] != "")
        st_by = tab.set_index("unit")
        for i in tab.index[joined]:
            host = tab.at[i, "host"]
            sh, seh = st_by.at[host, "strength"], st_by.at[host, "strength_se"]
            sj, sej = tab.at[i, "strength"], tab.at[i, "strength_se"]
            if not np.isfinite(sh):
                continue
            fj, fh = float(mapping.fair(sj)), float(mapping.fair(sh))
            fair = max(fj - fh, ROUNDING_AP)
            sd_mc = mapping.b * math.hypot(fj * sej, fh * seh)
            if mapping.boot:
                ab = np.asarray(mapping.boot)
                sd_fit = float(np.std(np.exp(ab[:, 0] + ab[:, 1] * sj)
                                      - np.exp(ab[:, 0] + ab[:, 1] * sh), ddof=1))
            else:
                sd_fit = 0.0
            sd_res = fair * mapping.sd_resid  # the model's scatter, in AP at this cost
            half = stats.norm.ppf(0.5 + BAND / 2) * math.sqrt(sd_mc**2 + sd_fit**2 + sd_res**2)
            tab.at[i, "fair_ap"] = fair
            tab.at[i, "fair_low"] = max(fair - half - ROUNDING_AP, 0.0)
            tab.at[i, "fair_high"] = fair + half + ROUNDING_AP
            tab.at[i, "strength"] = (math.log(fair) - mapping.a) / mapping.b
            tab.at[i, "strength_se"] = half / fair / abs(mapping.b) / stats.norm.ppf(
                0.5 + BAND / 2)
        costed = tab["fair_ap"].notna() & (tab["ap"].fillna(0) > 0)
        tab.loc[costed, "residual"] = (np.log(tab.loc[costed, "ap"])
                                       - np.log(tab.loc[costed, "fair_ap"]))
    ap = tab["ap"]
    verdict = np.where(ap > tab["fair_high"], "over-costed",
                       np.where(ap < tab["fair_low"], "under-costed", "in band"))
    verdict = np.where(tab["fair_ap"].isna(), "no value", verdict)
    verdict = np.where(tab["partial"] & tab["fair_ap"].notna(), "partial data", verdict)
    verdict = np.where((tab["mainly_unmodelled"] != "") & tab["fair_ap"].notna(),
                       "not judged", verdict)
    verdict = np.where(tab["fair_ap"].notna() & ~(tab["ap"].fillna(0) > 0), "no cost",
                       verdict)
    tab["verdict"] = verdict
    tab["value_per_ap"] = (tab["fair_ap"] / tab["ap"]).where(tab["ap"].fillna(0) > 0)
    judged = tab["verdict"].isin(("over-costed", "under-costed", "in band"))
    tab["rank_value_per_ap"] = tab["value_per_ap"].where(judged).rank(ascending=False,
                                                                      method="min")
    return tab.sort_values("value_per_ap", ascending=False, na_position="last").reset_index(
        drop=True)


def reapply(model: ValueModel, mapping: Mapping) -> ValueModel:
    """The same strengths under another mapping."""
    return replace(model, table=_apply(model.table, mapping), mapping=mapping)


# -- the heuristic baseline -----------------------------------------------------------------------
def heuristic_strength(card: Card, weights: dict[str, float] | None = None) -> float:
    """The baseline the model must beat (no probabilities): offence = sum over weapons and
    columns of column weight x dice x damage x carriers x range factor (1 + reach / 6, reach =
    move + range, C = 1, U = 24), times health (models or damage track) times an armour factor
    (the armour value). Blast dice count 3 targets; auto-kill counts damage 3."""
    if not card.ap or card.armour is None:
        return math.nan
    w = weights or {c: 1 / len(COLUMNS) for c in COLUMNS}
    off = 0.0
    for wp in card.weapons:
        if wp.optional or wp.count == 0:
            continue
        r = wp.range
        rng = 1 if r == "C" else 24 if r.endswith("U") else int(r.split("-")[-1]) if r != "?" \
            else 0
        factor = 1 + ((card.move or 0) + rng) / 6
        for col in COLUMNS:
            cell = wp.cell(col)
            if not cell.usable:
                continue
            dice = 3 * cell.blast if cell.blast else cell.dice
            dmg = 3 if cell.auto_kill else cell.damage
            off += w[col] * dice * dmg * max(wp.count, 1) * factor
    health = (card.models if card.kind == "squad" else card.damage_track) or 1
    return off * health * (card.armour_value or 1)


# -- patches --------------------------------------------------------------------------------------
PATCH_FIELDS = ("ap", "cells", "weapons", "skills", "add_skills", "remove_skills", "move",
                "march_move", "models", "damage_track", "armour")


def load_patch(path, cards: list[Card]) -> dict[str, Card]:
    """Read a balance proposal (TOML) into patched copies of the named cards.

    Format (one table per change; every key optional)::

        [[change]]
        unit = "Pounder"
        ap = 12
        cells = { "Antitank Gun:V4" = "3/3" }   # WEAPON:COLUMN = cell
        skills = ["Damage Resilient"]            # replaces the skills
        add_skills = ["Lucky"]
        remove_skills = ["Charge"]
        move = 2
        [[change.weapon]]                        # replaces the weapon of that name, or adds
        name = "Antitank Gun"                    # one (same fields as a unit file)
        range = "8"
        line = ["-", ...]

    Every error names the file, the change's line, the unit and the field, exit code 2."""
    import tomllib
    from pathlib import Path

    from dustsim.data.cards import _weapon_from_dict, card_from_dict, card_to_dict, parse_cell

    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
        doc = tomllib.loads(text)
    except OSError as exc:
        raise DustsimError(exc.strerror or str(exc), file=str(path), field="--patch") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DustsimError(f"not a TOML file: {exc}", file=str(path), field="--patch") from None
    lines = [i + 1 for i, ln in enumerate(text.splitlines()) if ln.strip() == "[[change]]"]
    changes = doc.get("change")
    if not isinstance(changes, list) or not changes:
        raise DustsimError("no [[change]] tables", file=str(path), field="change")
    by_name = {c.name.lower(): c for c in cards}
    out: dict[str, Card] = {}
    for i, ch in enumerate(changes):
        where = f"{path}:{lines[i] if i < len(lines) else '?'}"
        if not isinstance(ch, dict):
            raise DustsimError("a change must be a table", file=where, field="change")
        name = ch.get("unit")
        if not isinstance(name, str) or name.lower() not in by_name:
            close = [c.name for c in cards if isinstance(name, str)
                     and name.lower() in c.name.lower()][:5]
            hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
            raise DustsimError(f"no card named {name!r}{hint}", file=where, field="unit")
        unknown = set(ch) - {"unit", "weapon", *PATCH_FIELDS}
        if unknown:
            raise DustsimError(f"unknown key(s) {', '.join(sorted(unknown))}; valid: unit, "
                               f"weapon, {', '.join(PATCH_FIELDS)}", file=where, unit=name,
                               field=sorted(unknown)[0])
        card = out.get(by_name[name.lower()].name, by_name[name.lower()])
        raw = card_to_dict(card)
        raw["edition"] = card.edition
        for k in ("ap", "move", "march_move", "models", "damage_track", "armour"):
            if k in ch:
                raw[k] = ch[k]
        if "models" in ch:
            raw["models_source"] = "card"
        skills = list(ch.get("skills", raw.get("skills", [])))
        for s in ch.get("add_skills", []):
            skills.append(s)
        rem = {_norm(s) for s in ch.get("remove_skills", [])}
        raw["skills"] = [s for s in skills if _norm(s) not in rem]
        weapons = list(raw.get("weapon", []))
        for wraw in ch.get("weapon", []):
            if not isinstance(wraw, dict) or not isinstance(wraw.get("name"), str):
                raise DustsimError("a [[change.weapon]] needs a name", file=where, unit=name,
                                   field="weapon")
            names = [w["name"] for w in weapons]
            if wraw["name"] in names:
                base = dict(weapons[names.index(wraw["name"])])
                base.update(wraw)
                weapons[names.index(wraw["name"])] = base
            else:
                weapons.append(wraw)
        cells = ch.get("cells", {})
        if not isinstance(cells, dict):
            raise DustsimError("cells must be a table of 'WEAPON:COLUMN' = 'cell'", file=where,
                               unit=name, field="cells")
        for key, cell in cells.items():
            wname, _, col = str(key).rpartition(":")
            names = [w["name"] for w in weapons]
            if wname not in names:
                raise DustsimError(f"no weapon {wname!r} (has: {', '.join(names)})",
                                   file=where, unit=name, field=f"cells.{key}")
            if col not in COLUMNS:
                raise DustsimError(f"{col!r} is not an armour column ({' '.join(COLUMNS)})",
                                   file=where, unit=name, field=f"cells.{key}")
            try:
                parse_cell(cell)
            except ValueError as exc:
                raise DustsimError(str(exc), file=where, unit=name,
                                   field=f"cells.{key}") from None
            wd = dict(weapons[names.index(wname)])
            line = list(wd["line"])
            line[COLUMNS.index(col)] = cell
            wd["line"] = line
            weapons[names.index(wname)] = wd
        raw["weapon"] = weapons
        problems: list = []
        for wd in weapons:  # weapon problems first: they name the weapon
            _weapon_from_dict(wd, where, name, problems)
        new = card_from_dict(raw, where, {}, problems) if not problems else None
        if problems:
            p = problems[0]
            raise DustsimError(p.message, file=where, unit=p.unit, weapon=p.weapon,
                               field=p.field)
        assert new is not None
        keep = {f.name: getattr(card, f.name) for f in fields(Card)
                if f.name in ("source", "revision", "file", "flags", "bloc", "faction")}
        out[card.name] = replace(new, **keep)
    return out


def patched(cards: list[Card], changes: dict[str, Card]) -> list[Card]:
    return [changes.get(c.name, c) for c in cards]


def compare(before: ValueModel, after: ValueModel) -> pd.DataFrame:
    """Per card: rank, fair cost and verdict before and after (tidy, changed cards first)."""
    cols = ["unit", "ap", "strength", "fair_ap", "verdict", "rank_value_per_ap",
            "value_per_ap"]
    df = before.table[cols].merge(after.table[cols], on="unit", how="outer",
                                  suffixes=("_before", "_after"))
    df["rank_move"] = df["rank_value_per_ap_before"] - df["rank_value_per_ap_after"]
    df["fair_move"] = df["fair_ap_after"] - df["fair_ap_before"]
    df["changed"] = ((df["ap_before"] != df["ap_after"])
                     | (df["strength_before"].fillna(0) != df["strength_after"].fillna(0)))
    df["verdict_changed"] = df["verdict_before"] != df["verdict_after"]
    return df.sort_values(["changed", "verdict_changed", "rank_move"],
                          ascending=[False, False, False], key=lambda s: s.abs()
                          if s.name == "rank_move" else s).reset_index(drop=True)


def run_patch(edition_cards: list[Card], changes: dict[str, Card], before: ValueModel, *,
              progress: bool = False) -> tuple[ValueModel, pd.DataFrame]:
    """The model after a patch: only the changed cards' engagements are re-run (all of them
    when a representative of the field changed); the field and the mapping stay those of the
    unpatched edition (re-applied, not refitted)."""
    new_cards = patched(edition_cards, changes)
    after = value_model(new_cards, before.settings, previous=before.engagements,
                        field_=before.field, mapping=before.mapping, hosts=before.hosts,
                        progress=progress)
    return after, compare(before, after)


# -- report sections (HTML fragments; the site renders the tables) --------------------------------
def verdict_tables(model: ValueModel, n: int = 10,
                   units: Iterable[str] | None = None) -> dict[str, pd.DataFrame]:
    """The headline tables (of ``units`` only, if given; the fit is the whole edition's):
    best and worst per AP, most over- and under-costed, the cards kept out of the verdicts."""
    t = model.table
    if units is not None:
        t = t[t["unit"].isin(set(units))]
    judged = t[t["verdict"].isin(("over-costed", "under-costed", "in band"))]
    cols = ["unit", "kind", "armour", "ap", "fair_ap", "fair_low", "fair_high", "strength",
            "strength_se", "value_per_ap", "verdict", "not_modelled"]
    out = {
        "best_per_ap": judged.nlargest(n, "value_per_ap")[cols],
        "worst_per_ap": judged.nsmallest(n, "value_per_ap")[cols],
        "over_costed": judged[judged["verdict"] == "over-costed"].nlargest(n, "residual")[
            [*cols, "residual"]],
        "under_costed": judged[judged["verdict"] == "under-costed"].nsmallest(n, "residual")[
            [*cols, "residual"]],
        "not_judged": t[t["verdict"] == "not judged"][
            ["unit", "kind", "ap", "fair_ap", "mainly_unmodelled", "not_modelled"]],
        "no_value": t[t["verdict"] == "no value"][["unit", "kind", "ap", "why"]],
    }
    return out


def roles_table(cards: Iterable[Card]) -> pd.DataFrame:
    """Every unmodelled role or skill of the edition's cards: how many cards have it, whether
    it keeps them out of the verdicts (``main``), and the cards (the model's gap list)."""
    found: dict[tuple[str, bool], list[str]] = {}
    for c in cards:
        for role, main in not_modelled(c):
            found.setdefault((role, main), []).append(c.name)
    rows = [{"role": r, "main": m, "cards": len(v), "examples": ", ".join(v[:6])}
            for (r, m), v in found.items()]
    return (pd.DataFrame(rows, columns=["role", "main", "cards", "examples"])
            .sort_values(["main", "cards"], ascending=False).reset_index(drop=True))


def html_section(model: ValueModel, table_html: Callable[[pd.DataFrame, list, int], str],
                 units: Iterable[str] | None = None) -> str:
    """The report's value-model section (``table_html(df, cols, n)`` renders a table) for
    ``units`` (default: every card)."""
    import html as _h

    q = model.quality()
    m = model.mapping
    st = model.settings
    parts = ["<h2>Value from play: fair points and verdicts</h2>",
             "<p>Each card plays one-on-one engagements against a reference field (the "
             "median-cost card of each armour class, weighted by the class's share of the "
             f"edition's AP), from {', '.join(map(str, st.distances))} squares, "
             f"{st.turns} turns, {st.trials:,} engagements per distance (seed {st.seed}); "
             "strength = field-weighted log ratio of what it destroys to what it loses; "
             "fair AP from one reduced-major-axis mapping of log AP on strength over the "
             "whole edition. See <code>dustsim.review.value</code>.</p>"]
    if m is not None:
        parts.append(f"<p>Fit: n = {q['n']}, Spearman {q['spearman']:.3f}, log R² "
                     f"{q['log_r2']:.3f}; log AP = {m.a:.3f} + {m.b:.3f} × strength.</p>")
    field_df = pd.DataFrame([o.__dict__ for o in model.field],
                            columns=["name", "column", "weight", "n_class", "class_ap"])
    parts.append("<h3>Reference field</h3>" + table_html(
        field_df, ["column", "name", "weight", "n_class"], 60))
    names = set(model.table["unit"]) if units is None else set(units)
    parts.append("<h3>Roles and skills the engagements do not play</h3><p>Named per card in "
                 "<code>not_modelled</code>; <i>main</i> roles keep a card out of the "
                 "verdicts and the fit.</p>" + table_html(
                     roles_table(c for c in model.cards if c.name in names),
                     ["role", "main", "cards", "examples"], 60))
    titles = {"best_per_ap": "Best value per AP", "worst_per_ap": "Worst value per AP",
              "over_costed": "Most over-costed", "under_costed": "Most under-costed",
              "not_judged": "Not judged: value mainly in roles not modelled",
              "no_value": "No value: cannot play"}
    for key, df in verdict_tables(model, units=names).items():
        parts.append(f"<h3>{_h.escape(titles[key])} ({len(df)})</h3>"
                     + table_html(df, list(df.columns), 10 if key not in (
                         "not_judged", "no_value") else 200))
    return "\n".join(parts)


def patch_section(diff: pd.DataFrame, table_html, chart: str | None = None) -> str:
    """The before/after section of ``report --patch``."""
    ch = diff[diff["changed"] | diff["verdict_changed"] | (diff["rank_move"].abs() > 0)]
    cols = ["unit", "ap_before", "ap_after", "fair_ap_before", "fair_ap_after",
            "verdict_before", "verdict_after", "rank_value_per_ap_before",
            "rank_value_per_ap_after", "rank_move"]
    img = (f"<a href='charts/{chart}.svg'><img src='charts/{chart}.png' alt='{chart}'></a>"
           if chart else "")
    return ("<h2>Balance patch: before and after</h2><p>Changed cards first, then verdict "
            "changes, then rank moves. The field and the cost mapping are those of the "
            "unpatched edition.</p>" + table_html(ch, cols, 40) + img)


def patch_chart(diff: pd.DataFrame, title: str = ""):
    """Fair cost before -> after of the changed cards (arrows), printed cost marked."""
    import matplotlib.pyplot as plt

    d = diff[diff["changed"] | diff["verdict_changed"]].head(25).iloc[::-1]
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(d) + 1.5))
    for i, r in enumerate(d.itertuples()):
        ax.annotate("", xy=(r.fair_ap_after, i), xytext=(r.fair_ap_before, i),
                    arrowprops={"arrowstyle": "->", "color": "tab:blue"})
        ax.plot([r.ap_before], [i], "o", color="grey", ms=4)
        ax.plot([r.ap_after], [i], "x", color="black", ms=6)
    ax.set_yticks(range(len(d)))
    ax.set_yticklabels([u[:30] for u in d["unit"]], fontsize=8)
    ax.set_xlabel("AP (arrow: fair cost before -> after; o printed before, x after)")
    ax.set_title(title or "Balance patch")
    fig.tight_layout()
    return fig
