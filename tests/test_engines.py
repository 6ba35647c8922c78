"""The two engines agree; closed forms hold; the same seed gives the same numbers."""

from fractions import Fraction as F

import numpy as np
import pytest
from scipy import stats

from dustsim.engines.exact import evaluate
from dustsim.engines.kernel import simulate_batch
from dustsim.errors import DustsimError
from dustsim.rules.attack import Situation, Target, compile_attack, weapon_from_cell


def spec(cell, column, ruleset="dust-1947", count=1, keywords=(), action="attack",
         skills=(), **target):
    w, c = weapon_from_cell(cell, count=count, keywords=keywords, column=column)
    return compile_attack([(w, c)], Target(column=column, **target),
                          Situation(action=action, skills=frozenset(skills)), ruleset)


# -- closed forms --------------------------------------------------------------------------------
def test_closed_forms():
    assert evaluate(spec("1/1", "V1", track=9)).hits.mean() == pytest.approx(1 / 3, abs=1e-12)
    assert evaluate(spec("1/1", "V1", track=9, action="sustained")).hits.mean() == \
        pytest.approx(5 / 9, abs=1e-12)
    laser = evaluate(spec("1/1", "V1", track=99, keywords=["laser"]))
    assert laser.hits.mean() == pytest.approx(0.5, abs=1e-9)
    assert laser.dropped_mass < 1e-11
    assert evaluate(spec("1/1", "V1", track=99, keywords=["laser"], action="sustained")
                    ).hits.mean() == pytest.approx(5 / 6, abs=1e-9)
    assert evaluate(spec("1/1", "V1", track=99, keywords=["laser"], action="sustained",
                         skills=["fighting spirit"])).hits.mean() == pytest.approx(4 / 3,
                                                                                    abs=1e-9)
    # squads: P(model lost) per die, 2013 digest §11
    for cover, p in ((False, F(2, 9)), (True, F(1, 9))):
        r = evaluate(spec("1/1", "I2", "tactics-2013", models=5, cover=cover))
        assert r.models_killed.mean() == pytest.approx(float(p), abs=1e-12)
    # Damage Resilient keeps 2/3 of the damage points (1947)
    r = evaluate(spec("3/3", "V4", track=20))
    dr = compile_attack([weapon_from_cell("3/3", column="V4")],
                        Target(column="V4", track=20, skills=frozenset({"damage resilient"})))
    assert evaluate(dr).damage.mean() == pytest.approx(r.damage.mean() * 2 / 3, abs=1e-12)
    # 2009: a /2 hit removes two models; 2013: one
    assert evaluate(spec("3/2", "I2", "tactics-2009", models=9)).models_killed.mean() == \
        pytest.approx(2.0, abs=1e-12)
    assert evaluate(spec("3/2", "I2", "tactics-2013", models=9)).models_killed.mean() == \
        pytest.approx(1.0 * 2 / 3, abs=1e-12)


def test_distribution_api():
    r = evaluate(spec("6/1", "I1", models=10))
    d = r.hits
    assert d.pmf(0) == pytest.approx((2 / 3) ** 6)
    assert d.sf(0) == pytest.approx(1 - (2 / 3) ** 6)
    assert d.at_least(1) == pytest.approx(d.sf(0))
    assert d.cdf(6) == pytest.approx(1.0)
    assert d.quantile(0.5) == 2
    assert d.var() == pytest.approx(6 * (1 / 3) * (2 / 3))
    frame = r.to_frame()
    assert list(frame.columns) == ["quantity", "side", "unit", "k", "value", "se"]
    hits = frame[frame["quantity"] == "hits"]
    assert hits["value"].tolist() == pytest.approx([d.pmf(k) for k in range(7)])


def test_blast_dice_and_modifiers():
    assert spec("*/1", "I2", models=5).groups[0].dice == 5  # 003:L674
    assert spec("**/1", "I2", models=5, hero_track=3).groups[0].dice == 12
    assert spec("*/1", "V4", track=6).groups[0].dice == 1
    w, c = weapon_from_cell("5/1", column="V2", keywords=["set-up"])
    assert compile_attack([(w, c)], Target(column="V2", track=4),
                          Situation(moved=True)).groups[0].dice == 3
    w, c = weapon_from_cell("2/1", column="V2", keywords=["burst"])
    assert compile_attack([(w, c)], Target(column="V2", track=4)).groups[0].dice == 4
    assert compile_attack([(w, c)], Target(column="V2", track=4, moved=True)
                          ).groups[0].dice == 2
    w, c = weapon_from_cell("2/1", column="V2", keywords=["volley"])
    assert compile_attack([(w, c)], Target(column="V2", track=4),
                          Situation(volley=3)).groups[0].dice == 6


@pytest.mark.parametrize("bad", [
    dict(cell="3/1", column="V9", track=3),
    dict(cell="*/1", column="I2"),
    dict(cell="3/1", column="I2", models=0),
    dict(cell="3/1", column="V2"),
    dict(cell="3/1", column="V2", track=2, damage_taken=2),
])
def test_impossible_targets(bad):
    with pytest.raises(DustsimError):
        spec(**bad)


def test_unknown_keyword_and_skill():
    with pytest.raises(DustsimError, match="keyword"):
        weapon_from_cell("3/1", keywords=["lazer"])
    with pytest.raises(DustsimError, match="skill"):
        spec("3/1", "I2", models=3, skills=["telepathy"])


# -- Monte Carlo against exact over a grid -------------------------------------------------------
GRID = [
    ("rifles vs squad in cover", dict(cell="3/1", column="I2", count=4, models=5, cover=True)),
    ("sustained AT gun vs vehicle", dict(cell="3/3", column="V4", track=6,
                                         action="sustained")),
    ("laser chain vs resilient vehicle in cover", dict(
        cell="1/2", column="V3", count=3, keywords=["laser"], track=5, cover=True,
        action="sustained", skills_t=["damage resilient"])),
    ("blast vs squad with joined hero", dict(cell="*/1", column="I2", models=5, hero_track=3,
                                            policy="hero-first")),
    ("automatic kill vs damaged vehicle", dict(cell="2/#", column="V5", track=5,
                                              damage_taken=2)),
    ("auto kill 2013 resilient", dict(cell="2/#", column="V4", track=5, ruleset="tactics-2013",
                                     skills_t=["damage resilient"])),
    ("2013 resilient squad", dict(cell="4/2", column="I3", models=4, ruleset="tactics-2013",
                                  skills_t=["damage resilient"])),
    ("1947 resilient squad /2", dict(cell="4/2", column="I3", models=4,
                                     skills_t=["damage resilient"])),
    ("2009 squad /2 in cover", dict(cell="4/2", column="I2", models=5, ruleset="tactics-2009",
                                    cover=True)),
    ("2009 resilient hero", dict(cell="5/2", column="I3", kind="hero", track=4,
                                 ruleset="tactics-2009", skills_t=["damage resilient"])),
    ("grenade vs squad in cover", dict(cell="3/1", column="I1", models=6, cover=True,
                                      keywords=["grenade"])),
    ("phaser vs vehicle in cover", dict(cell="3/2", column="V2", track=4, cover=True,
                                       keywords=["phaser"])),
    ("flame vs squad", dict(cell="*/1", column="I2", models=4, keywords=["flame"],
                            token="under-fire")),
    ("artillery vs steel guard", dict(cell="4/1", column="I3", models=3, keywords=["artillery"],
                                     skills_t=["steel guard"])),
    ("aircraft after march move", dict(cell="4/2", column="A2", track=6,
                                      aircraft_moved="march")),
    ("bunker squad", dict(cell="6/1", column="I2", models=5, cover=True,
                          fortification="bunker")),
    ("reactive", dict(cell="4/1", column="I2", models=5, action="reactive")),
    ("support weapon 2013", dict(cell="3/2", column="I2", kind="support", track=4,
                                 ruleset="tactics-2013")),
    ("hero cheat death", dict(cell="4/2", column="I3", kind="hero", track=3,
                              skills_t=["cheat death"])),
    ("expert + medal", dict(cell="3/2", column="V1", track=4, skills=["expert",
                                                                      "medal of honor"])),
    ("2009 berserk sustained laser", dict(cell="3/1", column="I2", models=6,
                                          ruleset="tactics-2009", keywords=["laser"],
                                          action="sustained", skills=["berserk"])),
    ("cutting killing spree", dict(cell="2/1", column="I4", models=3, keywords=["cutting"],
                                   skills=["killing spree"], height="target-higher",
                                   cover=True)),
]


def grid_spec(kw):
    kw = dict(kw)
    skills_t = kw.pop("skills_t", ())
    ruleset = kw.pop("ruleset", "dust-1947")
    cell, column = kw.pop("cell"), kw.pop("column")
    count = kw.pop("count", 1)
    keywords = kw.pop("keywords", ())
    action = kw.pop("action", "attack")
    skills = kw.pop("skills", ())
    w, c = weapon_from_cell(cell, count=count, keywords=keywords, column=column)
    return compile_attack([(w, c)], Target(column=column, skills=frozenset(skills_t), **kw),
                          Situation(action=action, skills=frozenset(skills)), ruleset)


TRIALS = 200_000


@pytest.fixture(scope="module")
def grid_results():
    specs = [grid_spec(kw) for _, kw in GRID]
    mc = simulate_batch(specs, TRIALS, seed=20261122)
    return [(name, evaluate(s), m) for (name, _), s, m in zip(GRID, specs, mc, strict=True)]


def _chi2_ok(exact_pmf, mc_pmf, trials):
    exp = np.asarray(exact_pmf) * trials
    obs = np.asarray(mc_pmf[: len(exp)]) * trials
    # pool bins with fewer than 5 expected counts into their neighbour
    e_p, o_p, e_acc, o_acc = [], [], 0.0, 0.0
    for e, o in zip(exp, obs, strict=True):
        e_acc += e
        o_acc += o
        if e_acc >= 5:
            e_p.append(e_acc)
            o_p.append(o_acc)
            e_acc = o_acc = 0.0
    if e_acc and e_p:
        e_p[-1] += e_acc
        o_p[-1] += o_acc
    if len(e_p) < 2:
        return 1.0
    return stats.chisquare(o_p, np.asarray(e_p) * sum(o_p) / sum(e_p)).pvalue


@pytest.mark.parametrize("i", range(len(GRID)), ids=[n for n, _ in GRID])
def test_mc_matches_exact(grid_results, i):
    name, ex, mc = grid_results[i]
    for q in ("hits", "unsaved", "damage", "models_killed", "single_damage"):
        e, m = getattr(ex, q), getattr(mc, q)
        se = e.std() / np.sqrt(TRIALS)  # standard error under the exact distribution
        assert abs(e.mean() - m.mean()) <= 5 * se + 1e-12, (name, q, e.mean(), m.mean(), se)
    p = ex.p_destroyed
    assert abs(p - mc.p_destroyed) <= 5 * np.sqrt(p * (1 - p) / TRIALS) + 1 / TRIALS
    assert _chi2_ok(ex.damage.probs, mc.damage.probs, TRIALS) > 1e-6, name
    if ex.token is not None:
        for k, p in ex.token.items():
            assert abs(p - mc.token[k]) <= 5 * np.sqrt(p * (1 - p) / TRIALS) + 1e-9


# -- reproducibility -----------------------------------------------------------------------------
def test_same_seed_same_numbers_any_thread_count():
    specs = [grid_spec(kw) for _, kw in GRID[:6]]
    one = simulate_batch(specs, 100_000, seed=7, threads=1)
    two = simulate_batch(specs, 100_000, seed=7, threads=2)
    again = simulate_batch(specs, 100_000, seed=7, threads=2)
    other = simulate_batch(specs, 100_000, seed=8, threads=2)
    for a, b, c, _d in zip(one, two, again, other, strict=True):
        assert np.array_equal(a.damage.probs, b.damage.probs)
        assert np.array_equal(a.hits.probs, c.hits.probs)
        assert a.hits.mean() == b.hits.mean()
    assert any(not np.array_equal(a.hits.probs, d.hits.probs) for a, d in zip(one, other,
                                                                             strict=True))


def test_trials_must_be_positive():
    with pytest.raises(DustsimError, match="trials"):
        simulate_batch([grid_spec(GRID[0][1])], 0)
