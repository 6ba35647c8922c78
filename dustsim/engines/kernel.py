"""The Monte Carlo dice kernel: Numba-compiled, parallel over chunks, streamed into histograms.

The kernel takes flat integer arrays (one row per weapon line, one per attack spec) and knows
nothing of cards. Dice are face classes 0, 1, 2 (P, T, S); success sets are bit masks. A
whole batch of specs is evaluated in one call. Trials are split into fixed-size chunks; each
chunk draws from its own generator state (:mod:`dustsim.engines.rng`) seeded from a child of one
``SeedSequence``, so the same seed gives the same numbers whatever the number of threads. A
roll of k dice is one binomial draw (one uniform), not k faces. The per-trial code takes
plain arrays and is compiled without reference counting. Results are integer histograms and
sums (no per-trial arrays): memory does not grow with the trial count.

Scripted dice: the same resolution code reads given faces instead of random ones, in this
order per weapon line (card order): to-hit dice, re-rolls of the misses, a Jammer's re-rolls
of the successes (:data:`JAMMED`), chain dice (one per
hit, then one per chain success, generation by generation), one save die per hit (then the
re-rolls of the successful saves against Radiation, then the re-rolls of the failed saves, if
the save has one), then for each unsaved hit its Damage
Resilient dice. A reactive attack first rolls its reactive dice; Cheat Death rolls last.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from dustsim import DEFAULT_TRIALS
from dustsim.engines.aot import entry, exported
from dustsim.engines.distributions import Distribution
from dustsim.engines.montecarlo import (  # noqa: F401 (the runner's former home)
    LONG_RUN_S,
    _LongRunNote,
    default_threads,
    proportion_se,
    run_chunks,
)
from dustsim.engines.results import TOKEN_NAMES, AttackResult
from dustsim.engines.rng import binom, mask_faces, scripted_state
from dustsim.engines.rng import state as rng_state
from dustsim.errors import DustsimError
from dustsim.rules.attack import (
    AIMED_HERO,
    AIMED_SOLDIER,
    DR_NONE,
    HERO_FIRST,
    LEAST_LOSS,
    SG_DR_FULL,
    SQ_DR_ALL_POINTS,
    SQ_DR_PER_HIT,
    SQ_DR_PER_POINT,
    AttackSpec,
)
from dustsim.rules.dice import parse_faces

CHUNK = 1 << 15  # trials per chunk: part of the stream definition (results depend on it)
HIT_BINS = 256  # hit histograms; the last bin collects overflow (means use exact sums)

# group row columns (G_MEDAL: bit 0 Medal of Honor, bit 1 the successful saves re-rolled, bits
# 2-3 the line's aim for this attack, overriding the owner's allocation: AIM_HERO the joined
# hero, AIM_SOLDIER one soldier the attacker names; the battle kernel sets them for a Sniper's
# lines, 003:L3317)
G_DICE, G_HIT, G_RR, G_RR2, G_CHAIN, G_SAVE, G_SAVE_RR, G_DMG, G_AUTO, G_MPH, G_RES_SQ, \
    G_RES_SG, G_SUPP, G_MEDAL = range(14)
AIM_HERO, AIM_SOLDIER = 4, 8  # G_MEDAL bits (see above)
#: G_MEDAL bit: the line's successful to-hit dice (misses' re-roll included) are re-rolled and
#: count only if they succeed again (a Jammer near the Artillery Observer who triggered the
#: attack, 003:L3567; set by the battle kernel)
JAMMED = 16
#: res[5] bit: the soldier a line aimed at (AIM_SOLDIER) was eliminated in this attack
AIMED_FELL = 8
#: res[5] bit: a JAMMED line had successful to-hit dice, which were re-rolled (the battle
#: kernel spends Dig In Girls!' once-per-game re-roll only then, 003:L2201)
REROLLED = 32
# spec row columns
S_MODELS, S_SINGLE, S_FULL, S_HERO, S_SQDR, S_SGDR, S_AUTOFULL, S_POLICY, S_TOKEN, S_SUPP, \
    S_REACT, S_REACT_N, S_CHEAT = range(13)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _count(rng, buf, pos, scripted, mask, k):
    """Roll ``k`` dice: (successes under ``mask``, next position).

    Random: one binomial draw from the generator state ``rng`` (:func:`dustsim.engines.rng.binom`,
    one uniform per roll); ``buf`` and ``pos`` are untouched. Scripted: the faces are read
    from ``buf`` at ``pos``; a roll past the end counts as a failure and keeps counting, so
    the caller can report the overrun."""
    if not scripted:
        return binom(rng, mask_faces(mask), k), pos
    s = 0
    n = buf.shape[0]
    for _ in range(k):
        if pos < n:
            s += (mask >> np.int64(buf[pos])) & 1
        pos += 1
    return s, pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _to_single(policy, A, a, b, full):
    """Where one unsaved hit goes (codes of :data:`dustsim.rules.attack.ALLOCATIONS`): 1 the
    single model (joined hero, vehicle...), 0 a squad soldier, -1 nowhere (wasted).
    ``A``/``a`` soldiers at the start of the attack / now, ``b`` track left, ``full`` the
    hit's damage before Damage Resilient. Same decision as :func:`dustsim.engines.exact._target`."""
    if policy == AIMED_HERO:  # hits after his elimination are wasted
        return 1 if b > 0 else -1
    if policy == AIMED_SOLDIER:  # once he is gone the rest is wasted
        return 0 if a == A and a > 0 else -1
    if a == 0:
        return 1
    if b == 0:
        return 0
    if policy == HERO_FIRST:
        return 1
    if policy == LEAST_LOSS and full < b:  # the hero survives the hit, no model lost
        return 1
    return 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _trial(rng, buf, pos, scripted, spec, groups, g0, g1, res):
    """One attack; returns the dice position.

    res: [hits, unsaved, models_killed, single_damage, token] and, where ``res`` has a sixth
    slot (the battles' result rows), the Stunned flags: 1 a Tesla line did damage or a Head
    Shot line hit, 2 a Grapple line scored a hit, 4 Cheat Death saved the hero, and
    :data:`AIMED_FELL` (8) the soldier an aimed line named fell (``G_SUPP``:
    token in bits 0-1, the line's :data:`dustsim.rules.attack` STUN code in bits 2-3).
    """
    A = spec[S_MODELS]
    a = A
    b0 = spec[S_SINGLE]
    b = b0
    sustained_ok = 1
    if spec[S_REACT] != 0:
        s, pos = _count(rng, buf, pos, scripted, spec[S_REACT], spec[S_REACT_N])
        if s == 0:
            res[0] = 0
            res[1] = 0
            res[2] = 0
            res[3] = 0
            res[4] = spec[S_TOKEN]
            return pos
        if s == 1:
            sustained_ok = 0
    hits_total = 0
    uns_total = 0
    any_hit = 0
    supp_hit = 0
    stun = 0
    aimed_up = True  # the soldier named by AIM_SOLDIER lines still stands
    for gi in range(g0, g1):
        a_g = a
        b_g = b
        aim = groups[gi, G_MEDAL] & (AIM_HERO | AIM_SOLDIER)
        hit = groups[gi, G_HIT]
        h, pos = _count(rng, buf, pos, scripted, hit, groups[gi, G_DICE])
        misses = groups[gi, G_DICE] - h
        if groups[gi, G_RR] != 0 and sustained_ok:
            r, pos = _count(rng, buf, pos, scripted, groups[gi, G_RR], misses)
            h += r
            misses -= r
            if groups[gi, G_RR2] != 0:
                r, pos = _count(rng, buf, pos, scripted, groups[gi, G_RR2], misses)
                h += r
                misses -= r
        if (groups[gi, G_MEDAL] & 1) != 0 and misses > 0:
            r, pos = _count(rng, buf, pos, scripted, hit, 1)
            h += r
        if (groups[gi, G_MEDAL] & JAMMED) != 0 and h > 0:
            h, pos = _count(rng, buf, pos, scripted, hit, h)
            stun |= REROLLED
        if groups[gi, G_CHAIN] != 0:
            pending = h  # each chain die that succeeds adds a hit and one more die
            while pending > 0:
                r, pos = _count(rng, buf, pos, scripted, groups[gi, G_CHAIN], pending)
                h += r
                pending = r
        hits_total += h
        if h > 0:  # G_SUPP & 3: 0 no token (close combat), 1 Under Fire step, 2 Suppression
            if (groups[gi, G_SUPP] & 3) == 2:
                supp_hit = 1
            elif (groups[gi, G_SUPP] & 3) == 1:
                any_hit = 1
            if (groups[gi, G_SUPP] >> 2) == 2:
                stun |= 2  # Grapple: a hit (003:L3268)
            elif (groups[gi, G_SUPP] >> 2) == 3:
                stun |= 1  # Head Shot: a hit gives the Stunned token (rules.attack)
        u = h
        if groups[gi, G_SAVE] != 0 and h > 0:
            r, pos = _count(rng, buf, pos, scripted, groups[gi, G_SAVE], h)
            failed = h - r
            if (groups[gi, G_MEDAL] & 2) != 0 and r > 0:  # Radiation: successes re-rolled
                r, pos = _count(rng, buf, pos, scripted, groups[gi, G_SAVE], r)
            u = h - r
            if groups[gi, G_SAVE_RR] != 0 and failed > 0:
                r, pos = _count(rng, buf, pos, scripted, groups[gi, G_SAVE_RR], failed)
                u -= r
        uns_total += u
        for _ in range(u):
            if a == 0 and b == 0:
                break
            full = groups[gi, G_DMG]
            if groups[gi, G_AUTO]:
                full = spec[S_FULL] if spec[S_AUTOFULL] else b
            if aim == AIM_HERO:  # a line's own aim (003:L3317): wasted once he is gone
                to_single = 1 if b > 0 else -1
            elif aim == AIM_SOLDIER:
                to_single = 0 if aimed_up and a > 0 else -1
            else:
                to_single = _to_single(spec[S_POLICY], A, a, b, full)
            if to_single < 0:
                continue  # aimed hit on a miniature already eliminated: wasted
            if to_single == 0:
                removed = groups[gi, G_MPH]
                if groups[gi, G_RES_SQ] != 0:
                    mode = spec[S_SQDR]
                    if mode == SQ_DR_PER_HIT:  # one die per hit
                        r, pos = _count(rng, buf, pos, scripted, 1, 1)
                        removed = removed * (1 - r)
                    elif mode == SQ_DR_ALL_POINTS:  # every point must be cancelled
                        dd = 1 if groups[gi, G_AUTO] else max(groups[gi, G_DMG], 1)
                        r, pos = _count(rng, buf, pos, scripted, 1, dd)
                        removed = 0 if r == dd else 1
                    elif mode == SQ_DR_PER_POINT:  # one die per point, one model per point
                        pts = 1 if groups[gi, G_AUTO] else max(groups[gi, G_DMG], 1)
                        r, pos = _count(rng, buf, pos, scripted, 1, pts)
                        removed = pts - r
                a = a - removed if removed < a else 0
                if aim == AIM_SOLDIER and removed > 0:
                    aimed_up = False
                    stun |= AIMED_FELL
            else:
                mode = spec[S_SGDR] if groups[gi, G_RES_SG] != 0 else DR_NONE
                if mode == DR_NONE:
                    b -= full if full < b else b
                elif mode == SG_DR_FULL:  # dice for the full damage, then capped
                    r, pos = _count(rng, buf, pos, scripted, 1, full)
                    rem = full - r
                    b -= rem if rem < b else b
                else:  # SG_DR_MARKED: dice for the points actually marked, each restores one
                    m = full if full < b else b
                    b -= m
                    r, pos = _count(rng, buf, pos, scripted, 1, m)
                    b += r
        if (groups[gi, G_SUPP] >> 2) == 1 and (a < a_g or b < b_g):
            stun |= 1  # Tesla: the line did damage (003:L3329)
    if spec[S_CHEAT] != 0 and spec[S_HERO] != 0 and b0 > 0 and b == 0:
        r, pos = _count(rng, buf, pos, scripted, spec[S_CHEAT], 1)
        b = r
        if r > 0:
            stun |= 4  # Cheat Death: survives with a Stunned token (003:L3465)
    tok = spec[S_TOKEN]
    if spec[S_SUPP] != 0:
        if supp_hit:
            tok = 2
        elif any_hit:
            tok = tok + 1 if tok < 2 else 2
    res[0] = hits_total
    res[1] = uns_total
    res[2] = A - a
    res[3] = b0 - b
    res[4] = tok
    if res.shape[0] > 5:
        res[5] = stun
    return pos


@exported("void(u8[::1], i8, i8[:, ::1], i8[::1], i8[:, ::1], i8[:, ::1], i8[:, ::1], "
          "i8[:, ::1], i8[:, ::1], i8[:, ::1], i8[:, ::1], i8[:, ::1])")
@nb.njit(nogil=True, cache=True)
def _run_chunk(rng, n_trials, specs, goff, groups, hist_hits, hist_uns, sums, hist_killed,
               hist_single, hist_dmg, hist_tok):
    buf = np.zeros(1, np.uint8)  # scripted faces only
    pos = 0
    res = np.zeros(5, np.int64)
    nb_ = specs.shape[0]
    top = hist_hits.shape[1] - 1
    for s in range(nb_):
        spec = specs[s]
        for _ in range(n_trials):
            pos = _trial(rng, buf, pos, False, spec, groups, goff[s], goff[s + 1], res)
            h = res[0]
            u = res[1]
            hist_hits[s, h if h < top else top] += 1
            hist_uns[s, u if u < top else top] += 1
            sums[s, 0] += h
            sums[s, 1] += h * h
            sums[s, 2] += u
            sums[s, 3] += u * u
            hist_killed[s, res[2]] += 1
            hist_single[s, res[3]] += 1
            hist_dmg[s, res[2] + res[3]] += 1
            hist_tok[s, res[4]] += 1


@nb.njit(nogil=True, cache=True)
def _run_scripted(rng, faces, specs, goff, groups, out):
    """One trial per spec with scripted faces; out[s] = [5 results, dice used, error].

    ``rng`` is never drawn from in scripted mode (it only fixes the argument types).
    """
    pos = 0
    res = np.zeros(5, np.int64)
    for s in range(specs.shape[0]):
        pos = _trial(rng, faces, pos, True, specs[s], groups, goff[s], goff[s + 1], res)
        for k in range(5):
            out[s, k] = res[k]
        out[s, 5] = min(pos, faces.shape[0])
        out[s, 6] = 1 if pos > faces.shape[0] else 0


# -- packing --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Packed:
    specs: np.ndarray
    goff: np.ndarray
    groups: np.ndarray
    max_damage: int


def pack(specs: list[AttackSpec]) -> Packed:
    """Flatten specs into the kernel's integer arrays."""
    rows, srows, goff = [], [], [0]
    for sp in specs:
        for g in sp.groups:
            rows.append([g.dice, g.hit, g.reroll, g.reroll2, g.chain, g.save, g.save_reroll,
                         g.damage, int(g.auto_kill), g.squad_models_per_hit,
                         int(g.resilient_squad), int(g.resilient_single),
                         g.token | (g.stun << 2), int(g.medal) | (int(g.saves_rerolled) << 1)])
        goff.append(len(rows))
        srows.append([sp.models, sp.single, sp.single_full, int(sp.single_is_hero), sp.squad_dr,
                      sp.single_dr, int(sp.auto_full), sp.policy, sp.token, int(sp.suppression),
                      sp.reactive, sp.reactive_dice, sp.cheat_death])
    return Packed(np.asarray(srows, np.int64).reshape(-1, 13),
                  np.asarray(goff, np.int64),
                  np.asarray(rows, np.int64).reshape(-1, 14),
                  max((sp.max_damage for sp in specs), default=0))


def _chunk_task(args):
    seed_seq, n, packed = args
    rng = rng_state(seed_seq)
    B = packed.specs.shape[0]
    D = packed.max_damage + 1
    out = (np.zeros((B, HIT_BINS), np.int64), np.zeros((B, HIT_BINS), np.int64),
           np.zeros((B, 4), np.int64), np.zeros((B, D), np.int64), np.zeros((B, D), np.int64),
           np.zeros((B, D), np.int64), np.zeros((B, 3), np.int64))
    entry(_run_chunk)(rng, n, packed.specs, packed.goff, packed.groups, *out)
    return out


def simulate_batch(specs: list[AttackSpec], trials: int, seed: int = 0, *,
                   threads: int | None = None, chunk: int = CHUNK,
                   progress: bool = False) -> list[AttackResult]:
    """Monte Carlo results for a batch of specs: one launch, parallel over trial chunks."""
    if trials < 1:
        raise DustsimError("--trials must be >= 1", field="trials")
    if not specs:
        return []
    acc = run_chunks(_chunk_task, pack(specs), trials, seed, chunk=chunk, threads=threads,
                     progress=progress, desc="monte carlo", unit="trial")
    return [_result(specs[s], s, acc, trials, seed) for s in range(len(specs))]


#: the one long-run note, for drivers other than :func:`run_chunks` (the platoon search)
LongRunNote = _LongRunNote


def _dist(hist: np.ndarray, trials: int, mean=None, var=None) -> Distribution:
    return Distribution(hist / trials, trials=trials, exact_mean=mean, exact_var=var)


def _result(spec: AttackSpec, s: int, acc, trials: int, seed: int) -> AttackResult:
    hh, hu, sums, hk, hs, hd, ht = acc
    n = float(trials)
    mh = sums[s, 0] / n
    mu = sums[s, 2] / n
    hits = _dist(hh[s], trials, mh, sums[s, 1] / n - mh * mh)
    uns = _dist(hu[s], trials, mu, sums[s, 3] / n - mu * mu)
    D = spec.max_damage + 1
    dmg = _dist(hd[s, :D], trials)
    p_dest = hd[s, spec.max_damage] / n
    token = None
    if spec.suppression:
        token = {name: float(ht[s, i] / n) for i, name in enumerate(TOKEN_NAMES)}
    return AttackResult(
        engine="mc", hits=hits, unsaved=uns, damage=dmg,
        models_killed=_dist(hk[s, : spec.models + 1], trials),
        single_damage=_dist(hs[s, : spec.single + 1], trials),
        p_destroyed=float(p_dest), token=token, trials=trials, seed=seed,
        p_destroyed_se=proportion_se(p_dest, trials),
        notes=spec.notes, allocation=spec.allocation,
    )


def simulate(spec: AttackSpec, trials: int = DEFAULT_TRIALS, seed: int = 0, **kw) -> AttackResult:
    return simulate_batch([spec], trials, seed, **kw)[0]


@dataclass(frozen=True)
class ScriptedOutcome:
    hits: int
    unsaved: int
    models_killed: int
    single_damage: int
    token: str
    dice_used: int


def replay(spec: AttackSpec, faces: str | list[int]) -> ScriptedOutcome:
    """Resolve one attack with given faces (``"PPTSS"``); every face must be used."""
    arr = np.asarray(parse_faces(faces) if isinstance(faces, str) else faces, np.uint8)
    packed = pack([spec])
    out = np.zeros((1, 7), np.int64)
    _run_scripted(scripted_state(), arr, packed.specs, packed.goff, packed.groups, out)
    r = out[0]
    if r[6]:
        raise DustsimError(f"the scripted dice ran out after {len(arr)} faces", field="dice")
    if r[5] != len(arr):
        raise DustsimError(f"only {r[5]} of the {len(arr)} scripted faces were needed",
                           field="dice")
    return ScriptedOutcome(int(r[0]), int(r[1]), int(r[2]), int(r[3]), TOKEN_NAMES[r[4]],
                           int(r[5]))


def uniform_rate_kernel(n: int, seed: int = 0) -> float:
    """Rolls of one die through the kernel's own path, ``n`` times (benchmarks)."""
    return float(_draw_dice(rng_state(np.random.SeedSequence(seed)), n))


@nb.njit(nogil=True, cache=True)
def _draw_dice(rng, n):
    buf = np.zeros(1, np.uint8)
    s = 0
    for _ in range(n):
        r, _p = _count(rng, buf, 0, False, 1, 1)
        s += r
    return s


@nb.njit(nogil=True, cache=True)
def _uniform_loop(rng, n):
    """The random-number limit: ``n`` uniform doubles from the generator, nothing else."""
    s = 0.0
    for _ in range(n):
        s += rng.random()
    return s


# one compiled version per argument type, not per integer constant (dustsim.engines.jit)
from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals())
