"""Every per-die probability of RULES.md §2 and the digests, derived from face sets."""

from fractions import Fraction as F

import pytest

from dustsim.rules.dice import PS, PT, TS, FaceSet, P, chain_mean, parse_faces, rerolled
from dustsim.rules.rulesets import OPTIONS, RULESET_IDS, fighting_spirit_faces, get_ruleset

R09, R13, R47 = (get_ruleset(r) for r in ("tactics-2009", "tactics-2013", "dust-1947"))


def test_face_classes_are_thirds():
    assert P.p == F(1, 3) and PT.p == F(2, 3) and PS.p == F(2, 3)
    assert FaceSet.of("PTS").p == 1 and FaceSet.of("").p == 0
    assert (PT | PT).p == F(2, 3)  # two upgrades never go beyond 2/3
    with pytest.raises(ValueError):
        FaceSet.of("X")


def test_parse_faces():
    assert parse_faces("PTS") == [0, 1, 2]
    assert parse_faces("P T, S") == [0, 1, 2]
    with pytest.raises(ValueError):
        parse_faces("PQ")


@pytest.mark.parametrize("rs", [R09, R13, R47])
def test_to_hit_and_sustained(rs):
    assert rs.p_hit() == F(1, 3)
    assert rs.p_hit(sustained=True) == F(5, 9)
    assert rs.p_chain == F(1, 3)
    assert rs.p_hit() * (1 + chain_mean(rs.p_chain)) == F(1, 2)  # 0.5 hits per laser die
    assert rs.p_hit(sustained=True) * (1 + chain_mean(rs.p_chain)) == F(5, 6)
    assert rs.p_resilient == F(1, 3)


def test_upgraded_hits():
    assert R13.p_hit(upgraded=True) == F(2, 3)
    assert R47.p_hit(upgraded=True, sustained=True) == F(8, 9)
    assert R09.p_hit(upgraded=True) == F(2, 3)  # Spotter reverses the roll (4 blanks)
    assert fighting_spirit_faces(R09).p == 1  # literal 2009 reading (default)
    assert fighting_spirit_faces(R09.with_options(fighting_spirit="reversed")).p == F(2, 3)
    assert fighting_spirit_faces(R13).p == F(2, 3)


def test_saves_infantry():
    # 2009: no save in the open; cover per card: hit save 1/3, miss save 2/3
    assert R09.save("infantry").p == 0
    assert R09.save("infantry", cover=True, cover_2009="hit-save").p == F(1, 3)
    assert R09.save("infantry", cover=True, cover_2009="miss-save").p == F(2, 3)
    assert R09.save("infantry", cover=True, cover_2009="no-save").p == 0
    for rs in (R13, R47):
        assert rs.save("infantry").p == F(1, 3)
        assert rs.save("infantry", cover=True).p == F(2, 3)


def test_saves_vehicles_and_aircraft():
    assert R09.save("vehicle", cover=True).p == 0
    assert R13.save("vehicle").p == 0 and R13.save("vehicle", cover=True).p == F(1, 3)
    assert R47.save("vehicle", cover=True).p == F(1, 3)
    assert R47.save("vehicle", small_vehicle=True).p == F(1, 3)  # small: always in cover
    assert R47.save("aircraft", aircraft_moved="move").p == F(1, 3)
    assert R47.save("aircraft", aircraft_moved="march").p == F(2, 3)
    assert R47.save("aircraft").p == 0


def test_weapon_keywords_vs_saves_1947():
    """1947 digest §7.4."""
    kw = frozenset
    assert R47.save("infantry", keywords=kw({"artillery"})).p == 0
    assert R47.save("infantry", cover=True, keywords=kw({"artillery"})).p == F(2, 3)
    assert R47.save("infantry", cover=True, keywords=kw({"grenade"})).p == F(1, 3)
    assert R47.save("vehicle", cover=True, keywords=kw({"grenade"})).p == F(1, 3)
    assert R47.save("infantry", cover=True, keywords=kw({"phaser"})).p == F(1, 3)
    assert R47.save("vehicle", cover=True, keywords=kw({"phaser"})).p == 0
    for k in ("flame", "sniper"):
        assert R47.save("infantry", cover=True, keywords=kw({k})).p == 0
        assert R47.save("vehicle", cover=True, keywords=kw({k})).p == 0
    assert R47.save("infantry", cover=True, close_combat=True).p == 0
    # 2013: grenades deny vehicles their cover; spray denies everything
    assert R13.save("vehicle", cover=True, keywords=kw({"grenade"})).p == 0
    assert R13.save("infantry", cover=True, keywords=kw({"grenade"})).p == F(1, 3)
    assert R13.save("infantry", keywords=kw({"spray"})).p == 0


def test_skills_fortifications_height_1947():
    sk = frozenset
    assert R47.save("infantry", cover=True, skills=sk({"steel guard"})).p == F(2, 3)
    assert R47.save("infantry", skills=sk({"zombie"})).p == F(2, 3)
    assert R47.save("infantry", keywords=sk({"artillery"}), skills=sk({"steel guard"})).p \
        == F(2, 3)
    assert R47.save("infantry", keywords=sk({"artillery"}), skills=sk({"zombie"})).p == 0
    assert R47.save("infantry", skills=sk({"superhuman"})).p == F(2, 3)
    assert R47.save("infantry", fortification="bunker").p == F(7, 9)
    assert R47.save("infantry", cover=True, fortification="bunker").p == F(8, 9)
    assert R47.save("infantry", fortification="strongpoint").p == F(5, 9)
    assert R47.save("infantry", cover=True, fortification="strongpoint").p == F(7, 9)
    assert R47.save("infantry", cover=True, close_combat=True,
                    fortification="bunker").p == F(2, 3)
    assert R47.save("infantry", height="attacker-higher").p == 0
    assert R47.save("infantry", cover=True, height="attacker-higher").p == F(1, 3)
    assert R47.save("infantry", height="target-higher").p == F(2, 3)
    assert R47.save("infantry", cover=True, height="target-higher").p == F(8, 9)
    assert R47.save("vehicle", height="target-higher").p == F(1, 3)
    assert R47.save("vehicle", cover=True, height="target-higher").p == F(2, 3)
    assert R47.save("vehicle", cover=True, height="attacker-higher").p == 0


def test_models_per_hit_and_resilience_modes():
    assert R09.models_per_hit(2) == 2
    assert R13.models_per_hit(2) == 1 and R47.models_per_hit(2) == 1
    assert R09.option("resilience") == "per-damage-point"
    assert R13.option("resilience") == "per-hit-marked"
    assert R47.option("resilience") == "pooled"


def test_reactive_and_suppression_rolls():
    assert R47.reactive_pmf() == {"sustained": F(1, 9), "attack": F(4, 9), "nothing": F(4, 9)}
    assert R47.reactive_pmf(dice=2, faces=PS) == {"sustained": F(4, 9), "attack": F(4, 9),
                                                  "nothing": F(1, 9)}
    assert R47.reactive_pmf(dice=1) == {"sustained": 0, "attack": F(1, 3), "nothing": F(2, 3)}
    assert R47.suppression_removal_pmf() == {"clear": F(1, 9), "step": F(4, 9), "none": F(4, 9)}
    assert R47.suppression_removal_pmf(3) == {"clear": F(7, 27), "step": F(12, 27),
                                              "none": F(8, 27)}
    with pytest.raises(ValueError):
        R13.suppression_removal_pmf()
    # worked example 003:L757: a Suppressed unit rolls one success of two -> Under Fire
    assert R47.token_after_removal("suppressed", "PT") == "under-fire"
    assert R47.token_after_removal("suppressed", "PP") == "none"
    assert R47.token_after_removal("under-fire", "TS") == "under-fire"


def test_rerolled_and_options():
    assert rerolled(F(1, 3)) == F(5, 9) and rerolled(F(1, 3), 2) == F(19, 27)
    assert set(RULESET_IDS) == {"tactics-2009", "tactics-2013", "dust-1947", "epic"}
    for opt in OPTIONS.values():
        for rid, default in opt.default.items():
            assert default in opt.choices
            assert get_ruleset(rid).option(opt.name) == default
            assert opt.source and opt.doc
    with pytest.raises(ValueError, match="no option"):
        get_ruleset("dust-1947", fighting_spirit="all")
    with pytest.raises(ValueError, match="not one of"):
        get_ruleset("dust-1947", resilience="sometimes")
    with pytest.raises(ValueError, match="unknown ruleset"):
        get_ruleset("warfare")
    assert TS.p == F(2, 3)
