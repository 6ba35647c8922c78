"""The value model (dustsim.review.value): monotone in the card, reproducible, the mapping does not
shrink, whatif and patches touch only what they change, roles named."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from dustsim.data.cards import find_card
from dustsim.errors import DustsimError
from dustsim.review import value as V
from dustsim.review.analytics import modify_card


@pytest.fixture(scope="module")
def d47(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947"]


@pytest.fixture(scope="module")
def small_field(d47):
    """Three representatives of the real field (infantry, tank, aircraft)."""
    full = {o.column: o for o in V.reference_field(d47, per_class=1)}
    return tuple(replace(full[c], weight=1 / 3) for c in ("I1", "V4", "A2"))


def _strength(cards, field_, d47, **kw):
    st = V.ValueSettings(**{"trials": 100, **kw})
    eng = V.engagements(cards, field_, d47 + [c for c in cards if c not in d47], st)
    return V.strengths(eng, field_, st.eps).set_index("unit")


def test_strictly_better_card_is_stronger(d47, small_field):
    base = find_card(d47, "Pounder")
    better = modify_card(base, add_die=base.weapons[0].name)
    better = replace(better, name="Pounder (one die more)")
    s = _strength([base, better], small_field, d47)
    diff = s.loc[better.name, "strength"] - s.loc[base.name, "strength"]
    se = math.hypot(s.loc[better.name, "strength_se"], s.loc[base.name, "strength_se"])
    assert diff > 3 * se, (diff, se)
    # more health is better too (one more point of damage track)
    tougher = replace(base, name="Pounder (tougher)", damage_track=base.damage_track + 2)
    s2 = _strength([base, tougher], small_field, d47)
    diff2 = s2.loc[tougher.name, "strength"] - s2.loc[base.name, "strength"]
    assert diff2 > 3 * math.hypot(*s2["strength_se"]), diff2


def test_reproducible_per_seed_any_batch_and_threads(d47, small_field):
    cards = [find_card(d47, n) for n in ("Pounder", "Ranger Combat Squad", "Rhino")]
    V.clear_cache()
    a = V.engagements(cards, small_field, d47, V.ValueSettings(trials=20, threads=1))
    V.clear_cache()
    b = V.engagements(cards[::-1], small_field, d47, V.ValueSettings(trials=20, threads=2))
    V.clear_cache()
    one = V.engagements(cards[1:2], small_field, d47, V.ValueSettings(trials=20))
    key = ["unit", "opponent", "distance"]
    cols = ["s_lost_unit", "s_lost_opp", "wins_unit"]
    a, b = a.set_index(key).sort_index(), b.set_index(key).sort_index()
    pd.testing.assert_frame_equal(a[cols], b[cols])
    pd.testing.assert_frame_equal(one.set_index(key).sort_index()[cols],
                                  a.loc[[cards[1].name]][cols])
    V.clear_cache()
    c = V.engagements(cards, small_field, d47, V.ValueSettings(trials=20, seed=1))
    assert not np.allclose(c.set_index(key).sort_index()["s_lost_opp"], a["s_lost_opp"])


def test_engagements_played_in_pieces_give_the_same_sums(d47, small_field, monkeypatch):
    """Above RECORD_BYTES a card's engagements are played block by block in pieces of games,
    carried on (one stream, sums in game order): bitwise the table of one kernel call."""
    cards = [find_card(d47, n) for n in ("Pounder", "Ranger Combat Squad")]
    st = V.ValueSettings(trials=7)
    V.clear_cache()
    whole = V.engagements(cards, small_field, d47, st)
    V.clear_cache()
    monkeypatch.setattr(V, "RECORD_BYTES", 3 * 8 * 8)  # pieces of 3 games
    pieces = V.engagements(cards, small_field, d47, st)
    V.clear_cache()
    pd.testing.assert_frame_equal(pieces, whole, check_exact=True)
    assert whole["s_lost_opp"].sum() > 0


def test_mapping_is_monotone_and_does_not_shrink():
    """The calibration line (value docstring, step 4): with the strength a noisy linear
    measure of log AP, the fitted map recovers the slope and the suggested costs of the
    cheapest and dearest tenth are unbiased (no saturation toward the mean)."""
    rng = np.random.default_rng(3)
    n, d_true, sd_e = 2000, 2.0, 0.6
    y = rng.normal(2.0, 0.5, n)  # log printed AP
    s = d_true * (y - 2.0) + rng.normal(0, sd_e, n)  # strength: its error is its own
    ap = np.exp(y)
    m = V.fit_mapping(s, ap, boot=50)
    assert m.b > 0
    grid = np.linspace(-3, 3, 50)
    assert (np.diff(m.fair(grid)) > 0).all()
    # slope 1/d: the least-squares slope of s on y has standard error sd_e / (sqrt(n) sd(y))
    se_d = sd_e / (np.sqrt(n) * 0.5)
    assert abs(1 / m.b - d_true) < 5 * se_d
    res = np.log(m.fair(s)) - y  # = e / d: mean 0 in every band of printed cost
    for band in (y <= np.quantile(y, 0.1), y >= np.quantile(y, 0.9)):
        se = (sd_e / d_true) / np.sqrt(band.sum())
        assert abs(res[band].mean()) < 5 * se
    # the suggested costs spread 1/r times as widely as the printed ones (the RMA: 1 time)
    r = np.corrcoef(s, y)[0, 1]
    assert r < 0.9 and m.r2 == pytest.approx(r**2)
    assert np.log(m.fair(s)).std() == pytest.approx(y.std() / r, rel=1e-9)
    lo, hi = m.band(s[:5], np.full(5, 0.05))
    assert (lo < m.fair(s[:5])).all() and (m.fair(s[:5]) < hi).all()
    with pytest.raises(DustsimError):
        V.fit_mapping([1, 2], [3, 4])


def test_not_modelled_roles_are_named(d47):
    roles = dict(V.not_modelled(find_card(d47, "Carrier")))
    assert roles.get("airlifter") is True
    assert V.main_roles(find_card(d47, "Ranger Observer Squad")) == ("Artillery Observer",)
    assert "Officer (command actions)" in V.main_roles(find_card(d47, "Panzerprinz"))
    assert "Ace Pilot" in V.main_roles(find_card(d47, "Panzerprinz"))
    assert V.main_roles(find_card(d47, "Pounder")) == ()
    rhino = dict(V.not_modelled(find_card(d47, "Rhino")))
    assert all(not main for main in rhino.values())
    # First Strike and Assassin are played for a hero alone, and such a hero plays alone
    # (LONE_RULES): their joined-hero gap is not named (Samson: First Strike only)
    assert "First Strike" not in rhino and V.not_modelled(find_card(d47, "Samson")) == ()
    assert "Assassin" not in dict(V.not_modelled(find_card(d47, "Goliath")))
    # the engagements run on the line, where a Large vehicle's second square does not exist
    # (played on the grid only): named as partly played, not silently counted as played
    pershing = dict(V.not_modelled(find_card(d47, "Pershing II")))
    assert any(k.startswith("rule partly played: Large") for k in pershing), pershing
    assert not pershing[next(k for k in pershing if k.startswith("rule partly played"))]
    # a rule of the card's own that no engine plays is main: a lower bound, never over-costed
    sum_ = find_card(d47, "Professor Sum")
    assert set(V.main_roles(sum_)) == {"rule not played: Master Deceiver",
                                       "rule not played: Poison Master"}
    assert "special rule" in V.main_roles(find_card(d47, "Vasiliy"))  # Follow Me, Red Banner


@pytest.fixture(scope="module")
def small_model(d47):
    """The model on a 40-card slice of the edition (cheap; the report runs the whole)."""
    cards = [c for c in d47 if V.why_unplayable(c) is None][:40]
    return V.value_model(cards, V.ValueSettings(trials=4, per_class=1)), cards


def test_model_table_and_verdicts(small_model):
    vm, cards = small_model
    t = vm.table
    assert len(t) == len(cards) and vm.mapping is not None and vm.mapping.b > 0
    judged = t[t["verdict"].isin(("over-costed", "under-costed", "in band"))
               & ~t["lower_bound"]]
    assert (judged["mainly_unmodelled"] == "").all()
    # a card whose main role is not played is judged on what it plays: a lower bound, never
    # over-costed or in band (value.py step 5b)
    lower = t[t["lower_bound"]]
    assert (lower["mainly_unmodelled"] != "").all()
    assert lower["verdict"].isin(("under-costed", "lower bound")).all()
    nj = t[t["verdict"] == "not judged"]
    assert (nj["mainly_unmodelled"] != "").all()
    assert not t.loc[t["mainly_unmodelled"] != "", "in_fit"].any()
    ok = t.dropna(subset=["fair_ap"])
    assert ((ok["fair_low"] <= ok["fair_ap"]) & (ok["fair_ap"] <= ok["fair_high"])).all()
    # a higher strength always maps to a higher fair cost
    alone = ok[ok["host"] == ""].sort_values("strength")
    assert alone["fair_ap"].is_monotonic_increasing
    html = V.html_section(vm, lambda df, cols, n: df[cols].head(n).to_html())
    assert "Spearman" in html and "Reference field" in html


def test_cost_change_moves_only_that_card(small_model, monkeypatch):
    vm, cards = small_model
    judged = vm.table[vm.table["verdict"] == "in band"]
    name = judged["unit"].iloc[0]
    card = next(c for c in cards if c.name == name)
    calls = []
    real = V._card_row
    monkeypatch.setattr(V, "_card_row", lambda *a, **k: calls.append(a[0].name) or real(*a, **k))
    _after, diff = V.run_patch(cards, {name: replace(card, ap=card.ap * 10)}, vm)
    assert calls == []  # a cost change plays no engagement again
    d = diff.set_index("unit")
    assert d.loc[name, "verdict_after"] == "over-costed"
    others = d.drop(index=name)
    assert not others["verdict_changed"].any()
    assert (others["fair_ap_before"].fillna(-1) == others["fair_ap_after"].fillna(-1)).all()
    # a weapon change replays only that card's engagements
    w = card.weapons[0].name
    V.run_patch(cards, {name: modify_card(card, add_die=w)}, vm)
    assert calls == [name]


def test_patch_file_is_validated(tmp_path, d47):
    good = tmp_path / "p.toml"
    good.write_text('[[change]]\nunit = "Pounder"\nap = 11\n\n[[change]]\nunit = "Rhino"\n'
                    'add_skills = ["Lucky"]\n', encoding="utf-8")
    ch = V.load_patch(good, d47)
    assert ch["Pounder"].ap == 11 and "Lucky" in ch["Rhino"].skills
    bad = tmp_path / "b.toml"
    w = find_card(d47, "Pounder").weapons[0].name
    bad.write_text(f'[[change]]\nunit = "Pounder"\nap = 11\n\n[[change]]\nunit = "Pounder"\n'
                   f'cells = {{ "{w}:V4" = "3/x" }}\n', encoding="utf-8")
    with pytest.raises(DustsimError) as e:
        V.load_patch(bad, d47)
    assert "b.toml:5" in str(e.value) and "V4" in str(e.value)
    for text, needle in (('[[change]]\nunit = "Nobody"\n', "Nobody"),
                         ('[[change]]\nunit = "Pounder"\ncost = 3\n', "unknown key"),
                         ('[[change]]\nunit = "Pounder"\nmove = -1\n', "move"),
                         ("not toml [", "TOML")):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(DustsimError) as e:
            V.load_patch(bad, d47)
        assert needle in str(e.value) and "\n" not in str(e.value)


def test_heuristic_baseline_grows_with_dice(d47):
    base = find_card(d47, "Pounder")
    more = modify_card(base, add_die=base.weapons[0].name)
    assert V.heuristic_strength(more) > V.heuristic_strength(base) > 0


def test_report_patch_section_and_bad_patch(tmp_path):
    from dustsim.cli.shell import main

    patch = tmp_path / "proposal.toml"
    patch.write_text('[[change]]\nunit = "Pounder"\nap = 30\n', encoding="utf-8")
    out = tmp_path / "rep"
    common = ["--units", "Pounder,Rhino", "--format", "png", "--confirm", "0",
              "--duel-units", "0", "--quiet"]  # the value model as the other reports have it
    # (cached by content: one computation serves them all)
    assert main(["report", "--out", str(out), "--patch", str(patch), *common]) == 0
    diff = pd.read_csv(out / "tables" / "patch.csv")
    row = diff.set_index("unit").loc["Pounder"]
    assert row["ap_after"] == 30 and row["verdict_after"] == "over-costed"
    assert diff["changed"].sum() == 1
    html = " ".join(f.read_text(encoding="utf-8") for f in out.rglob("*.html"))
    assert "Balance patch" in html and "patch" in html
    assert (out / "charts" / "patch.png").exists()
    fp = pd.read_csv(out / "tables" / "fair_points.csv")
    assert set(fp["unit"]) == {"Pounder", "Rhino"} and "not_modelled" in fp
    bad = tmp_path / "bad.toml"
    bad.write_text('# x\n\n[[change]]\nunit = "Pounder"\nmove = "fast"\n', encoding="utf-8")
    out2 = tmp_path / "rep2"
    assert main(["report", "--out", str(out2), "--patch", str(bad), *common]) == 2
    assert not out2.exists()


def test_editions_without_costs_get_no_value(all_cards):
    for ed in ("tactics-2009", "tactics-2013"):
        cards = [c for c in all_cards if c.edition == ed]
        vm = V.value_model(cards, V.ValueSettings(trials=2))
        assert vm.mapping is None and (vm.table["verdict"] == "no value").all()
        assert (vm.table["why"] != "").all()
        assert "Reference field" in V.html_section(vm, lambda df, cols, n: df[cols].to_html())


def test_evidence_is_strong_only_where_both_lenses_agree(small_model):
    vm, _cards = small_model
    t = vm.table
    for col in ("consistency_ap", "consistency_low", "consistency_high", "evidence", "reason"):
        assert col in t
    judged = t[t["verdict"].isin(("over-costed", "under-costed", "in band"))]
    strong = judged["evidence"] == "strong"
    assert (judged.loc[strong, "verdict"] == judged.loc[strong, "consistency_verdict"]).all()
    assert (judged.loc[~strong, "verdict"] != judged.loc[~strong, "consistency_verdict"]).all()
    assert (t.loc[~t.index.isin(judged.index), "evidence"] == "").all()
    assert all(isinstance(r, str) and r for r in judged["reason"])


def test_strength_of_play_is_the_precision_weighted_mean_of_both_standardised():
    tab = pd.DataFrame({"unit": list("abcdefg"), "strength": [0.1, 0.5, 1.0, -0.2, 0.3, 0.8, 2.0],
                        "strength_se": [0.1, 0.2, 0.1, 0.3, 0.1, 0.1, 0.1],
                        "in_fit": [True] * 6 + [False],
                        "battle_value": [2.0, 5.0, 9.0, 1.0, 3.0, np.nan, 20.0],
                        "battle_value_se": [0.5, 0.5, 1.0, 0.2, 0.5, 0.5, 0.5]})
    out, scales = V._combine(tab, None)
    both = tab["in_fit"] & tab["battle_value"].notna()
    e, lb = tab["strength"], np.log(tab["battle_value"])
    ze = (e - e[both].mean()) / e[both].std()
    zb = (lb - lb[both].mean()) / lb[both].std()
    # standard errors in standard units: se / sd (the log's error is se(v) / v)
    ve = (tab["strength_se"] / e[both].std()) ** 2
    vb = (tab["battle_value_se"] / tab["battle_value"] / lb[both].std()) ** 2
    want = (ze / ve + zb / vb) / (1 / ve + 1 / vb)
    np.testing.assert_allclose(out["strength"][:5], want[:5])
    np.testing.assert_allclose(out["strength_se"][:5], np.sqrt(1 / (1 / ve + 1 / vb))[:5])
    np.testing.assert_allclose(out["battle_weight"][:5], (ve / (ve + vb))[:5])
    assert out["strength"][5] == pytest.approx(ze[5])  # no battle value: engagements alone
    assert out["battle_weight"][5] == 0.0
    assert out["strength_engagements"].tolist() == tab["strength"].tolist()
    # a patch keeps the unpatched edition's scales
    again, same = V._combine(tab.assign(strength=tab["strength"] + 1), scales)
    assert same == scales
    np.testing.assert_allclose(again["strength"][:5] - out["strength"][:5],
                               (1 - out["battle_weight"][:5]) / e[both].std())


def test_command_cards_are_valued_from_the_battles_alone(d47):
    """An officer's orders play in battles, not in one-on-one engagements: a card whose main
    roles are all command roles takes the battle value alone; an Artillery Observer (not
    played in either) keeps its engagement strength and stays out of the battle lens."""
    from dustsim.review import battle_value as B

    cmd, obs = find_card(d47, "Ranger Command Squad"), find_card(d47, "Ranger Observer Squad")
    assert set(V.main_roles(cmd)) == {"command squad actions"}
    assert B.unplayed_main_roles(cmd) == ()
    assert B.unplayed_main_roles(obs) == ("Artillery Observer",)
    names = ["a", "b", "c", "d", "e", "f", cmd.name, obs.name]
    tab = pd.DataFrame({"unit": names, "strength": [0.1, 0.5, 1.0, -0.2, 0.3, 0.8, 2.0, 1.5],
                        "strength_se": [0.1] * 8, "in_fit": [True] * 6 + [False] * 2,
                        "mainly_unmodelled": [""] * 6 + ["command squad actions",
                                                         "Artillery Observer"],
                        "battle_value": [2.0, 5.0, 9.0, 1.0, 3.0, 4.0, 6.0, 7.0],
                        "battle_value_se": [0.5] * 8})
    out, (_me, _se, mb, sb) = V._combine(tab, None, [cmd, obs])
    assert out.at[6, "strength"] == pytest.approx((np.log(6.0) - mb) / sb)  # battles only
    assert out.at[6, "valued_by"] == "battles (its command role)"
    assert out.at[7, "valued_by"] == "engagements and battles"
    assert out["battle_command"].tolist() == [False] * 6 + [True, False]


def test_needed_battles_are_the_command_cards_the_joiners_and_the_field(d47, small_field):
    """``battle_cards="needed"``: battles for the cards the engagements cannot value
    (command roles played in battles, a Commissar that must join) and for the field, whose
    cards have both figures; not for a card the engagements value, nor for an Artillery
    Observer (its role is played in neither)."""
    names = set(V.battle_needed(d47, small_field))
    assert {o.name for o in small_field} <= names
    assert "Ranger Command Squad" in names
    assert "NKVD Political Commisar Machine Gunner" in names
    assert "Ranger Observer Squad" not in names
    assert not {"Pounder", "Steel Samuraï"} & names - {o.name for o in small_field}
    with pytest.raises(DustsimError, match="battle_cards"):
        V.ValueSettings(battle_cards="some")


def test_heroes_play_joined_to_their_class_squad_unless_they_join_only_their_kind(
        d47, small_field):
    """value.py step 2: a hero plays joined to its armour's median squad (join_heroes, the
    default); a Zombie hero joins only Zombies (L3703), so it plays joined to the median
    Zombie squad of its armour (kind_host)."""
    st = V.ValueSettings(trials=2, threads=1)
    assert st.join_heroes
    hosts = V.host_squads(d47)
    maggie = find_card(d47, "Maggie")
    zombie = next(c for c in d47 if c.kind == "hero" and c.armour in hosts
                  and "zombie" in {s.strip().lower() for s in c.skills})
    host = find_card(d47, hosts[zombie.armour])
    assert "zombie" not in {s.strip().lower() for s in host.skills}
    eng = V.engagements([maggie, zombie], small_field, d47, st).set_index("unit")
    assert set(eng.loc[[maggie.name], "host"]) == {hosts[maggie.armour]}
    kin = V.kind_host(zombie, d47)
    assert kin is not None and "zombie" in {s.strip().lower() for s in kin.skills}
    assert kin.armour == zombie.armour
    assert set(eng.loc[[zombie.name], "host"]) == {kin.name}
    # an Assassin's rule is played for a lone hero only (L3427-3429): it plays alone
    assassin = next(c for c in d47 if c.kind == "hero" and c.armour == maggie.armour
                    and "assassin" in {s.strip().lower() for s in c.skills})
    eng = V.engagements([assassin], small_field, d47, st)
    assert set(eng["host"]) == {""}


def test_what_lasts_the_game_is_rationed_to_the_engagements_share(d47):
    """value.py step 2: an engagement plays 4 of a game's 8 turns (every scenario, L2460-2478),
    so a weapon's k boxes (L3288) are k/2: rounded up in half the engagements, down in the
    other half; a once-per-game skill (Fighting Spirit L3519-3521) is there in half of them."""
    assert V.TURNS == 4 and V.GAME_TURNS == 8
    falke = find_card(d47, "Falke")
    bomb = next(w for w in falke.weapons if w.ammo)
    assert bomb.ammo == 6  # the card as printed: 6 boxes of Light Bomb
    for low, want in ((False, 3), (True, 3)):
        r = V.rationed(falke, V.TURNS, low)
        assert next(w for w in r.weapons if w.name == bomb.name).ammo == want
    odd = replace(falke, weapons=tuple(replace(w, ammo=1) if w.ammo else w
                                       for w in falke.weapons))
    assert [next(w for w in V.rationed(odd, V.TURNS, low).weapons if w.ammo is not None).ammo
            for low in (False, True)] == [1, 0]  # one box: in half the engagements
    kurt = find_card(d47, "Kurt")
    assert "Fighting Spirit" in kurt.skills
    assert "Fighting Spirit" in V.rationed(kurt, V.TURNS, False).skills
    assert "Fighting Spirit" not in V.rationed(kurt, V.TURNS, True).skills
    assert V.rationed(kurt, V.GAME_TURNS, True) is kurt  # a whole game: nothing rationed
    # the cached engagement rows of one are never reused for the other (content key)
    st = V.ValueSettings(trials=4, threads=1)
    field_ = tuple(o for o in V.reference_field(d47, per_class=1) if o.column == "I1")
    a = V.engagements([falke], field_, d47, st)
    b = V.engagements([falke], field_, d47, replace(st, ration_game=False))
    assert a["settings"].iloc[0] != b["settings"].iloc[0]


def test_a_command_role_among_unplayed_roles_is_valued_from_the_battles(d47):
    """value.py step 5b: The Desert Fox's General and Officer roles play in battles, its own
    special rule nowhere: valued from the battles alone, a lower bound naming the rest; a
    card whose battles show no measurable effect keeps its engagements."""
    from dustsim.review import battle_value as B

    fox = find_card(d47, "The Desert Fox")
    assert B.commands(fox) and B.unplayed_main_roles(fox) == ("special rule",)
    names = ["a", "b", "c", "d", "e", "f", fox.name]
    tab = pd.DataFrame({"unit": names, "strength": [0.1, 0.5, 1.0, -0.2, 0.3, 0.8, -1.0],
                        "strength_se": [0.1] * 7, "in_fit": [True] * 6 + [False],
                        "host": [""] * 6 + ["PLA Demolition Squad"],
                        "mainly_unmodelled": [""] * 6 + ["special rule; General; Officer"],
                        "battle_value": [2.0, 5.0, 9.0, 1.0, 3.0, 4.0, 6.0],
                        "battle_value_se": [0.5] * 7})
    out, (_me, _se, mb, sb) = V._combine(tab, None, [fox])
    assert out.at[6, "strength"] == pytest.approx((np.log(6.0) - mb) / sb)  # battles only
    assert out.at[6, "valued_by"] == "battles (its command role; the rest not played)"
    assert out.at[6, "host"] == ""  # nothing subtracted: its marginal worth in armies
    none = tab.assign(battle_value=[2.0, 5.0, 9.0, 1.0, 3.0, 4.0, 0.01])
    kept, _ = V._combine(none, None, [fox])
    assert kept.at[6, "valued_by"] == "engagements (joined to a squad)"
    assert V.battle_needed([fox], ()) == [fox.name]
