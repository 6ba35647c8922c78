"""The exact engine: probability mass functions by convolution and a Markov chain over targets.

Per weapon line: initial hits are binomial (re-rolls raise the per-die probability to
1-(1-p)^(r+1)); chain dice make each hit a run 1 + Geometric, so the hits given k initial
hits are k + NegativeBinomial(k, 1-c); saves thin the hits binomially. The target is a small
Markov chain over (squad models left, single-model track left); each unsaved hit is one
transition (allocation, damage, automatic kill, Damage Resilient). Chains are truncated where
the tail mass is below ``tol`` (1e-12 by default) and the dropped mass is reported.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

from dustsim.engines import (
    pmf as stats,  # scipy.stats-compatible binom/nbinom without its import cost
)
from dustsim.engines.distributions import Distribution, mixture, point_mass
from dustsim.engines.results import TOKEN_NAMES, AttackResult
from dustsim.rules.attack import (
    AIMED_HERO,
    AIMED_SOLDIER,
    DR_NONE,
    HERO_FIRST,
    LEAST_LOSS,
    SG_DR_FULL,
    SQ_DR_ALL_POINTS,
    SQ_DR_PER_HIT,
    TOKEN_NONE,
    TOKEN_SUPPRESS,
    AttackSpec,
    GroupSpec,
)

TOL = 1e-12


def _p(mask: int) -> float:
    return bin(mask & 0b111).count("1") / 3.0


def group_hits(g: GroupSpec, tol: float = TOL) -> tuple[np.ndarray, float]:
    """PMF of one weapon line's hits (after re-rolls and chains) and the mass dropped."""
    return _group_hits(g.dice, g.hit, g.reroll, g.reroll2, g.chain, g.medal, tol)


@lru_cache(maxsize=1 << 16)
def _group_hits(dice, hit, reroll, reroll2, chain, medal, tol):
    p1 = _p(hit)
    miss = 1.0 - p1
    if reroll:
        miss *= 1.0 - _p(reroll)
    if reroll2:
        miss *= 1.0 - _p(reroll2)
    p = 1.0 - miss
    n = dice
    k = np.arange(n + 1)
    initial = stats.binom.pmf(k, n, p)
    if medal:  # one die still missing after every re-roll is rolled again (Medal of Honor)
        shifted = np.zeros(n + 2)
        shifted[:-1] += initial * np.where(k < n, 1 - p1, 1.0)
        shifted[1:] += initial * np.where(k < n, p1, 0.0)
        initial = shifted
    c = _p(chain) if chain else 0.0
    if c == 0.0:
        return _frozen(initial), 0.0
    kmax = len(initial) - 1
    # extra hits X | k ~ NB(k, 1 - c); size the support from the largest k
    xmax = int(stats.nbinom.isf(tol, max(kmax, 1), 1 - c)) + 1
    h = np.arange(kmax + xmax + 1)
    out = np.zeros(len(h))
    out[0] = initial[0]
    for kk in range(1, kmax + 1):
        if initial[kk] == 0:
            continue
        x = h[kk:] - kk
        out[kk:] += initial[kk] * stats.nbinom.pmf(x, kk, 1 - c)
    dropped = max(0.0, 1.0 - out.sum())
    return _frozen(out), dropped


def thin(pmf: np.ndarray, keep: float) -> np.ndarray:
    """Binomial thinning: each of X items kept with probability ``keep``."""
    n = len(pmf) - 1
    if keep >= 1.0:
        return pmf.copy()
    if keep <= 0.0:
        return point_mass(0).probs
    u = np.arange(n + 1)
    m = stats.binom.pmf(u[:, None], u[None, :], keep)
    return m @ pmf


@lru_cache(maxsize=1 << 16)
def _unsaved(dice, hit, reroll, reroll2, chain, medal, tol, keep):
    h, _ = _group_hits(dice, hit, reroll, reroll2, chain, medal, tol)
    return _frozen(thin(h, keep))


def save_probability(g: GroupSpec) -> float:
    p1 = _p(g.save)
    kept = p1 * p1 if g.saves_rerolled else p1  # Radiation: a success must be rolled twice
    return kept + (1 - p1) * _p(g.save_reroll)


def _hit_transition(spec: AttackSpec, g: GroupSpec) -> np.ndarray:
    """Transition matrix of one unsaved hit over states (a models, b track left)."""
    return _transition(spec.models, spec.single, spec.single_full, spec.policy, spec.squad_dr,
                       spec.single_dr, spec.auto_full, g.damage, g.auto_kill,
                       g.squad_models_per_hit, g.resilient_squad, g.resilient_single)


@lru_cache(maxsize=1 << 16)
def _transition(A, B, single_full, policy, squad_dr, single_dr, auto_full, damage, auto_kill,
                models_per_hit, resilient_squad, resilient_single) -> np.ndarray:
    size = (A + 1) * (B + 1)
    T = np.zeros((size, size))
    pd = 1.0 / 3.0  # Damage Resilient succeeds on the base face (1/3), every edition

    def idx(a, b):
        return a * (B + 1) + b

    for a in range(A + 1):
        for b in range(B + 1):
            s = idx(a, b)
            if a == 0 and b == 0:
                T[s, s] = 1.0
                continue
            full = (single_full if auto_full else b) if auto_kill else damage
            to_single = _target(policy, A, a, b, full)
            if to_single < 0:  # aimed hit on a miniature already eliminated: wasted
                T[s, s] = 1.0
                continue
            if to_single == 0:
                mph = models_per_hit
                if not resilient_squad or squad_dr == DR_NONE:
                    outcomes = {mph: 1.0}
                elif squad_dr == SQ_DR_PER_HIT:  # one die per hit
                    outcomes = {0: pd, mph: 1 - pd}
                elif squad_dr == SQ_DR_ALL_POINTS:  # every point must be cancelled
                    dd = 1 if auto_kill else max(damage, 1)
                    outcomes = {0: pd**dd, 1: 1 - pd**dd}
                else:  # SQ_DR_PER_POINT: one die per point, one model per point (2009)
                    pts = 1 if auto_kill else max(damage, 1)
                    outcomes = {pts - j: stats.binom.pmf(j, pts, pd) for j in range(pts + 1)}
                for r, pr in outcomes.items():
                    T[s, idx(max(a - r, 0), b)] += pr
            else:
                if not resilient_single or single_dr == DR_NONE:
                    T[s, idx(a, b - min(full, b))] += 1.0
                elif single_dr == SG_DR_FULL:  # dice for the full damage, then capped
                    for j in range(full + 1):
                        rem = full - j
                        T[s, idx(a, b - min(rem, b))] += stats.binom.pmf(j, full, pd)
                else:  # SG_DR_MARKED: dice for the points actually marked, each restores one
                    m = min(full, b)
                    for j in range(m + 1):
                        T[s, idx(a, b - m + j)] += stats.binom.pmf(j, m, pd)
    return _frozen(T)


def _target(policy: int, A: int, a: int, b: int, full: int) -> int:
    """Where one unsaved hit goes: 1 the single model, 0 a soldier, -1 wasted. The policy
    codes and their sources are those of :data:`dustsim.rules.attack.ALLOCATIONS`; the Monte Carlo
    kernel takes the same decision (:func:`dustsim.engines.kernel._to_single`)."""
    if policy == AIMED_HERO:
        return 1 if b > 0 else -1
    if policy == AIMED_SOLDIER:
        return 0 if a == A and a > 0 else -1
    if a == 0:
        return 1
    if b == 0:
        return 0
    if policy == HERO_FIRST or (policy == LEAST_LOSS and full < b):
        return 1
    return 0


def _frozen(a: np.ndarray) -> np.ndarray:
    """Memoised arrays are shared between calls: make them read-only."""
    a.setflags(write=False)
    return a


def apply_hits(v: np.ndarray, u: np.ndarray, T: np.ndarray) -> np.ndarray:
    """State distribution (or matrix rows) after X unsaved hits, X ~ ``u``, each hit one
    step of ``T``: sum_k u[k] v T^k. The power of ``T`` advances for every k, also where
    u[k] is zero (a count with no mass still lies between counts that have some)."""
    cur = v
    out = u[0] * cur
    last = int(np.flatnonzero(u)[-1]) if np.any(u) else 0
    for k in range(1, last + 1):
        cur = cur @ T
        if u[k] != 0.0:
            out = out + u[k] * cur
    return out


def _state_marginals(spec: AttackSpec, v: np.ndarray):
    A, B = spec.models, spec.single
    grid = v.reshape(A + 1, B + 1)
    models_left = grid.sum(axis=1)
    single_left = grid.sum(axis=0)
    killed = models_left[::-1]  # killed = A - a
    single_dmg = single_left[::-1]
    dmg = np.zeros(A + B + 1)
    for a in range(A + 1):
        for b in range(B + 1):
            dmg[(A - a) + (B - b)] += grid[a, b]
    return Distribution(killed), Distribution(single_dmg), Distribution(dmg), float(grid[0, 0])


def _evaluate_plain(spec: AttackSpec, tol: float) -> AttackResult:
    A, B = spec.models, spec.single
    size = (A + 1) * (B + 1)
    v = np.zeros(size)
    v[A * (B + 1) + B] = 1.0
    hits_total = np.array([1.0])
    unsaved_total = np.array([1.0])
    dropped = 0.0
    p_no_hit = 1.0
    p_no_suppress_hit = 1.0
    for g in spec.groups:
        h, dr = group_hits(g, tol)
        dropped += dr
        if g.token != TOKEN_NONE:  # close-combat hits give no token (003:L739)
            p_no_hit *= h[0]
        if g.token == TOKEN_SUPPRESS:
            p_no_suppress_hit *= h[0]
        u = _unsaved(g.dice, g.hit, g.reroll, g.reroll2, g.chain, g.medal, tol,
                     1.0 - save_probability(g))
        hits_total = np.convolve(hits_total, h)
        unsaved_total = np.convolve(unsaved_total, u)
        v = apply_hits(v, u, _hit_transition(spec, g))
    if spec.cheat_death and spec.single_is_hero and B > 0:
        pc = _p(spec.cheat_death)
        grid = v.reshape(A + 1, B + 1).copy()
        moved = grid[:, 0] * pc
        grid[:, 0] -= moved
        grid[:, 1] += moved
        v = grid.ravel()
    killed, single_dmg, dmg, p_destroyed = _state_marginals(spec, v)
    token = None
    if spec.suppression:
        t = spec.token
        step = min(t + 1, 2)
        token = {name: 0.0 for name in TOKEN_NAMES}
        token[TOKEN_NAMES[2]] += 1.0 - p_no_suppress_hit
        token[TOKEN_NAMES[step]] += p_no_suppress_hit - p_no_hit
        token[TOKEN_NAMES[t]] += p_no_hit
    return AttackResult(
        engine="exact",
        hits=Distribution(hits_total, dropped=dropped),
        unsaved=Distribution(unsaved_total, dropped=dropped),
        damage=dmg,
        models_killed=killed,
        single_damage=single_dmg,
        p_destroyed=p_destroyed,
        token=token,
        dropped_mass=dropped,
        notes=spec.notes,
        allocation=spec.allocation,
    )


def _nothing(spec: AttackSpec) -> AttackResult:
    zero = point_mass(0)
    token = None
    if spec.suppression:
        token = {n: float(i == spec.token) for i, n in enumerate(TOKEN_NAMES)}
    return AttackResult("exact", zero, zero, zero, zero, zero, 0.0, token,
                        allocation=spec.allocation)


def evaluate(spec: AttackSpec, tol: float = TOL) -> AttackResult:
    """Exact outcome distributions of an attack (reactive attacks: mixture over the roll)."""
    if not spec.reactive:
        return _evaluate_plain(spec, tol)
    p = _p(spec.reactive)
    n = spec.reactive_dice
    probs = stats.binom.pmf(np.arange(n + 1), n, p)
    p0, p1, p2 = probs[0], probs[1], probs[2:].sum()
    plain = replace(spec, reactive=0,
                    groups=tuple(replace(g, reroll=0, reroll2=0) for g in spec.groups))
    sustained = replace(spec, reactive=0)
    parts = [(p0, _nothing(spec)), (p1, _evaluate_plain(plain, tol)),
             (p2, _evaluate_plain(sustained, tol))]
    token = None
    if spec.suppression:
        token = {k: sum(w * r.token[k] for w, r in parts) for k in TOKEN_NAMES}
    return AttackResult(
        engine="exact",
        hits=mixture([(w, r.hits) for w, r in parts]),
        unsaved=mixture([(w, r.unsaved) for w, r in parts]),
        damage=mixture([(w, r.damage) for w, r in parts]),
        models_killed=mixture([(w, r.models_killed) for w, r in parts]),
        single_damage=mixture([(w, r.single_damage) for w, r in parts]),
        p_destroyed=sum(w * r.p_destroyed for w, r in parts),
        token=token,
        dropped_mass=sum(w * r.dropped_mass for w, r in parts),
        notes=spec.notes,
        allocation=spec.allocation,
    )


def action_matrix(spec: AttackSpec, tol: float = TOL) -> np.ndarray:
    """State-to-state matrix of one whole attack action (reactive and Cheat Death excluded):
    row = target state (models, track left) before, column = after."""
    if spec.allocation == "aimed-soldier":  # the named soldier changes between actions
        raise ValueError("repeated actions aimed at one soldier are not modelled")
    A, B = spec.models, spec.single
    M = np.eye((A + 1) * (B + 1))
    for g in spec.groups:
        u = _unsaved(g.dice, g.hit, g.reroll, g.reroll2, g.chain, g.medal, tol,
                     1.0 - save_probability(g))
        M = apply_hits(M, u, _hit_transition(spec, g))
    return M


def expected_actions_to_destroy(spec: AttackSpec, max_actions: int = 500,
                                tol: float = 1e-9) -> float:
    """E[number of identical attack actions until the target is destroyed], damage persisting
    between actions (inf when the attack can never destroy it)."""
    A, B = spec.models, spec.single
    M = action_matrix(spec)
    v = np.zeros(M.shape[0])
    v[A * (B + 1) + B] = 1.0
    expected = 0.0
    for _ in range(max_actions):
        alive = 1.0 - v[0]
        if alive < tol:
            return expected
        expected += alive
        nv = v @ M
        if abs(nv[0] - v[0]) < 1e-15 and alive > 1 - 1e-12:
            return float("inf")
        v = nv
    return float("inf") if 1.0 - v[0] > 1e-3 else expected


def clear_caches() -> None:
    """Forget memoised hit PMFs and transition matrices (for cold-start timings)."""
    _group_hits.cache_clear()
    _unsaved.cache_clear()
    _transition.cache_clear()
