"""The Monte Carlo dice kernel: Numba-compiled, parallel over chunks, streamed into histograms.

The kernel takes flat integer arrays (one row per weapon line, one per attack spec) and knows
nothing of cards. Dice are face classes 0, 1, 2 (P, T, S); success sets are bit masks. A
whole batch of specs is evaluated in one call. Trials are split into fixed-size chunks; each
chunk draws from its own ``numpy.random.Generator`` spawned from one ``SeedSequence``, so the
same seed gives the same numbers whatever the number of threads. Results are integer
histograms and sums (no per-trial arrays): memory does not grow with the trial count.

Scripted dice: the same resolution code reads given faces instead of random ones, in this
order per weapon line (card order): to-hit dice, re-rolls of the misses, chain dice, one save
die per hit (and its re-roll if the save has one), then for each unsaved hit its Damage
Resilient dice. A reactive attack first rolls its reactive dice; Cheat Death rolls last.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba as nb
import numpy as np

from .attack import AttackSpec
from .dice import parse_faces
from .distributions import Distribution
from .errors import DustsimError
from .results import TOKEN_NAMES, AttackResult

CHUNK = 1 << 15  # trials per chunk: part of the stream definition (results depend on it)
HIT_BINS = 256  # hit histograms; the last bin collects overflow (means use exact sums)
BUF = 1000  # dice buffer, refilled 20 faces per 64-bit draw
_POW20 = 3**20

# group row columns
G_DICE, G_HIT, G_RR, G_RR2, G_CHAIN, G_SAVE, G_SAVE_RR, G_DMG, G_AUTO, G_MPH, G_RES_SQ, \
    G_RES_SG, G_SUPP, G_MEDAL = range(14)
# spec row columns
S_MODELS, S_SINGLE, S_FULL, S_HERO, S_SQDR, S_SGDR, S_AUTOFULL, S_POLICY, S_TOKEN, S_SUPP, \
    S_REACT, S_REACT_N, S_CHEAT = range(13)


@nb.njit(nogil=True, cache=True)
def _refill(rng, buf):
    for i in range(0, buf.shape[0], 20):
        u = rng.integers(0, _POW20)
        for j in range(20):
            buf[i + j] = u % 3
            u //= 3


@nb.njit(nogil=True, cache=True, inline="always")
def _die(rng, buf, state, scripted):
    """Next face class. state[0] = position, state[1] = error flag (script exhausted)."""
    if state[0] >= buf.shape[0]:
        if scripted:
            state[1] = 1
            return 1  # a 'T': never a base-face success; the caller reports the error
        _refill(rng, buf)
        state[0] = 0
    f = buf[state[0]]
    state[0] += 1
    return f


@nb.njit(nogil=True, cache=True, inline="always")
def _ok(mask, face):
    return (mask >> face) & 1


@nb.njit(nogil=True, cache=True)
def _trial(rng, buf, state, scripted, spec, groups, g0, g1, res):
    """One attack. res: [hits, unsaved, models_killed, single_damage, token]."""
    A = spec[S_MODELS]
    a = A
    b0 = spec[S_SINGLE]
    b = b0
    sustained_ok = 1
    if spec[S_REACT] != 0:
        s = 0
        for _ in range(spec[S_REACT_N]):
            s += _ok(spec[S_REACT], _die(rng, buf, state, scripted))
        if s == 0:
            res[0] = 0
            res[1] = 0
            res[2] = 0
            res[3] = 0
            res[4] = spec[S_TOKEN]
            return
        if s == 1:
            sustained_ok = 0
    hits_total = 0
    uns_total = 0
    any_hit = 0
    supp_hit = 0
    for gi in range(g0, g1):
        g = groups[gi]
        hit = g[G_HIT]
        h = 0
        misses = 0
        for _ in range(g[G_DICE]):
            if _ok(hit, _die(rng, buf, state, scripted)):
                h += 1
            else:
                misses += 1
        if g[G_RR] != 0 and sustained_ok:
            m = misses
            for _ in range(m):
                if _ok(g[G_RR], _die(rng, buf, state, scripted)):
                    h += 1
                    misses -= 1
            if g[G_RR2] != 0:
                m = misses
                for _ in range(m):
                    if _ok(g[G_RR2], _die(rng, buf, state, scripted)):
                        h += 1
                        misses -= 1
        if g[G_MEDAL] != 0 and misses > 0 and _ok(hit, _die(rng, buf, state, scripted)):
            h += 1
        if g[G_CHAIN] != 0:
            pending = h
            while pending > 0:
                if _ok(g[G_CHAIN], _die(rng, buf, state, scripted)):
                    h += 1
                else:
                    pending -= 1
        hits_total += h
        if h > 0:
            any_hit = 1
            if g[G_SUPP] != 0:
                supp_hit = 1
        u = 0
        for _ in range(h):
            saved = 0
            if g[G_SAVE] != 0:
                saved = _ok(g[G_SAVE], _die(rng, buf, state, scripted))
                if saved == 0 and g[G_SAVE_RR] != 0:
                    saved = _ok(g[G_SAVE_RR], _die(rng, buf, state, scripted))
            if saved == 0:
                u += 1
        uns_total += u
        for _ in range(u):
            if a == 0 and b == 0:
                break
            to_single = (spec[S_POLICY] == 1 and b > 0) or a == 0
            if not to_single:
                mph = g[G_MPH]
                removed = mph
                if g[G_RES_SQ] != 0:
                    mode = spec[S_SQDR]
                    if mode == 1:
                        if _ok(1, _die(rng, buf, state, scripted)):
                            removed = 0
                    elif mode == 2:
                        dd = 1 if g[G_AUTO] else max(g[G_DMG], 1)
                        allok = 1
                        for _ in range(dd):
                            if not _ok(1, _die(rng, buf, state, scripted)):
                                allok = 0
                        removed = 0 if allok else 1
                    elif mode == 3:
                        pts = 1 if g[G_AUTO] else max(g[G_DMG], 1)
                        removed = pts
                        for _ in range(pts):
                            if _ok(1, _die(rng, buf, state, scripted)):
                                removed -= 1
                a = a - removed if removed < a else 0
            else:
                full = (spec[S_FULL] if spec[S_AUTOFULL] else b) if g[G_AUTO] else g[G_DMG]
                mode = spec[S_SGDR] if g[G_RES_SG] != 0 else 0
                if mode == 0:
                    b -= full if full < b else b
                elif mode == 1:
                    rem = full
                    for _ in range(full):
                        if _ok(1, _die(rng, buf, state, scripted)):
                            rem -= 1
                    b -= rem if rem < b else b
                else:
                    m = full if full < b else b
                    b -= m
                    for _ in range(m):
                        if _ok(1, _die(rng, buf, state, scripted)):
                            b += 1
    if spec[S_CHEAT] != 0 and spec[S_HERO] != 0 and b0 > 0 and b == 0:
        if _ok(spec[S_CHEAT], _die(rng, buf, state, scripted)):
            b = 1
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


@nb.njit(nogil=True, cache=True)
def _run_chunk(rng, n_trials, specs, goff, groups, hist_hits, hist_uns, sums, hist_killed,
               hist_single, hist_dmg, hist_tok):
    buf = np.empty(BUF, np.uint8)
    state = np.zeros(2, np.int64)
    state[0] = BUF
    res = np.zeros(5, np.int64)
    nb_ = specs.shape[0]
    top = hist_hits.shape[1] - 1
    for s in range(nb_):
        spec = specs[s]
        for _ in range(n_trials):
            _trial(rng, buf, state, False, spec, groups, goff[s], goff[s + 1], res)
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
    state = np.zeros(2, np.int64)
    res = np.zeros(5, np.int64)
    for s in range(specs.shape[0]):
        _trial(rng, faces, state, True, specs[s], groups, goff[s], goff[s + 1], res)
        for k in range(5):
            out[s, k] = res[k]
        out[s, 5] = state[0]
        out[s, 6] = state[1]


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
                         int(g.resilient_squad), int(g.resilient_single), int(g.suppress),
                         int(g.medal)])
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
    rng = np.random.Generator(np.random.PCG64(seed_seq))
    B = packed.specs.shape[0]
    D = packed.max_damage + 1
    out = (np.zeros((B, HIT_BINS), np.int64), np.zeros((B, HIT_BINS), np.int64),
           np.zeros((B, 4), np.int64), np.zeros((B, D), np.int64), np.zeros((B, D), np.int64),
           np.zeros((B, D), np.int64), np.zeros((B, 3), np.int64))
    _run_chunk(rng, n, packed.specs, packed.goff, packed.groups, *out)
    return out


def default_threads() -> int:
    env = os.environ.get("DUSTSIM_THREADS")
    if env:
        return max(1, int(env))
    return max(1, os.cpu_count() or 1)


def simulate_batch(specs: list[AttackSpec], trials: int, seed: int = 0, *,
                   threads: int | None = None, chunk: int = CHUNK,
                   progress: bool = False) -> list[AttackResult]:
    """Monte Carlo results for a batch of specs: one launch, parallel over trial chunks."""
    if trials < 1:
        raise DustsimError("--trials must be >= 1", field="trials")
    if not specs:
        return []
    packed = pack(specs)
    n_chunks = -(-trials // chunk)
    seqs = np.random.SeedSequence(seed).spawn(n_chunks)
    sizes = [min(chunk, trials - i * chunk) for i in range(n_chunks)]
    acc = None
    threads = threads or default_threads()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=trials, unit="trial", unit_scale=True, desc="monte carlo",
                   leave=False)
    with ThreadPoolExecutor(max_workers=threads) as ex:
        window = 2 * threads
        pending = []
        for i in range(n_chunks):
            pending.append((sizes[i], ex.submit(_chunk_task, (seqs[i], sizes[i], packed))))
            if len(pending) >= window or i == n_chunks - 1:
                while pending and (len(pending) >= window or i == n_chunks - 1):
                    n, fut = pending.pop(0)
                    res = fut.result()
                    acc = res if acc is None else tuple(x + y for x, y in zip(acc, res,
                                                                               strict=True))
                    if bar is not None:
                        bar.update(n)
    if bar is not None:
        bar.close()
    return [_result(specs[s], s, acc, trials, seed) for s in range(len(specs))]


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
        p_destroyed_se=float(np.sqrt(max(p_dest * (1 - p_dest), 0.0) / n)),
        notes=spec.notes,
    )


def simulate(spec: AttackSpec, trials: int = 100_000, seed: int = 0, **kw) -> AttackResult:
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
    _run_scripted(np.random.default_rng(0), arr, packed.specs, packed.goff, packed.groups, out)
    r = out[0]
    if r[6]:
        raise DustsimError(f"the scripted dice ran out after {len(arr)} faces", field="dice")
    if r[5] != len(arr):
        raise DustsimError(f"only {r[5]} of the {len(arr)} scripted faces were needed",
                           field="dice")
    return ScriptedOutcome(int(r[0]), int(r[1]), int(r[2]), int(r[3]), TOKEN_NAMES[r[4]],
                           int(r[5]))


def uniform_rate_kernel(n: int, seed: int = 0) -> float:
    """Tight Numba loop drawing ``n`` dice with the kernel's own generator path (benchmarks)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return float(_draw_dice(rng, n))


@nb.njit(nogil=True, cache=True)
def _draw_dice(rng, n):
    buf = np.empty(BUF, np.uint8)
    state = np.zeros(2, np.int64)
    state[0] = BUF
    s = 0
    for _ in range(n):
        s += _die(rng, buf, state, False)
    return s
