"""Event sentences of the grid battle's special actions read as English (one hit, two hits)."""
from __future__ import annotations

import numpy as np
import pytest

from dustsim.play import battle_kernel as BK
from dustsim.play.battle import _special
from dustsim.play.board import OPEN


@pytest.mark.parametrize(("kind", "hits", "words"), [
    (BK.SP_SCREAM, 1, "1 hit, 2 damage."), (BK.SP_SCREAM, 2, "2 hits, 2 damage."),
    (BK.SP_AREA, 1, "1 hit, 2 damage."), (BK.SP_AREA, 0, "0 hits, 2 damage."),
])
def test_scream_and_area_count_hits_in_english(kind, hits, words):
    r = np.zeros(BK.L_X + 1, dtype=np.int64)
    r[BK.L_X], r[BK.L_TARGET], r[BK.L_HITS], r[BK.L_DAMAGE] = kind, 1, hits, 2
    r[BK.L_D0], r[BK.L_D1] = 0, 1
    ev = _special(r, "Avatar", 9, ["A", "Rangers"], np.zeros(1, dtype=np.int64),
                  np.full(108, OPEN, dtype=np.int8))
    assert ev["text"].endswith(words) and "strikes Rangers" in ev["text"]


def test_artillery_area_names_the_artillery_area():
    r = np.zeros(BK.L_X + 1, dtype=np.int64)
    r[BK.L_X], r[BK.L_TARGET], r[BK.L_HITS], r[BK.L_DAMAGE] = BK.SP_ARTY, 1, 2, 2
    r[BK.L_D0], r[BK.L_D1] = 0, 1
    ev = _special(r, "Mortar", 9, ["A", "Rangers"], np.zeros(1, dtype=np.int64),
                  np.full(108, OPEN, dtype=np.int8))
    assert ev["special"] == "artillery"
    assert ev["text"].startswith("Mortar's artillery strikes Rangers in the Artillery Area")
    assert ev["text"].endswith("2 hits, 2 damage.")


def test_whole_game_sentences_name_fire_from_aboard_token_steps_and_the_winner():
    """Read as a player would (QA): a passenger's fire says it comes from aboard its vehicle
    (L528), a removal roll that steps Suppressed down says so (L741), the last event says who
    won and how."""
    from dustsim.army.lists import parse_list_toml
    from dustsim.data.cards import load_cards
    from dustsim.play import battle as B

    cards = load_cards()
    a = parse_list_toml('name = "a"\npoints = 75\n[[unit]]\ncard = "Hanomag"\n[[unit]]\n'
                        'card = "Heavy Grenadier Assault Squad"\ntransport = "Hanomag"\n',
                        cards, "a.toml")
    b = parse_list_toml('name = "b"\npoints = 75\n[[unit]]\ncard = "Ranger Combat Squad"\n'
                        'count = 2\n', cards, "b.toml")
    spec = B.prepare(a, b, scenario="101", seed=0)
    fired_aboard = 0
    for seed in range(6):
        log = B.event_log(spec, seed=seed)
        aboard = set()
        for ev in log["events"]:
            if ev["action"] == "special" and ev.get("special") == "embarked":
                aboard.add(ev["unit"])
            elif ev["action"] == "special" and ev.get("special") in ("dismount", "placed"):
                aboard.discard(ev["unit"])
            elif ev["action"] == "attack" and ev["unit"] in aboard:
                assert "from aboard the Hanomag" in ev["text"], ev["text"]
                fired_aboard += 1
            elif ev["action"] == "token-removed":
                assert ev["text"].endswith(("loses its token.", "now under fire.")), ev["text"]
        end = log["events"][-1]
        assert end["action"] == "end"
        assert end["text"] == "The game ends in a draw." or end["text"].startswith(
            f"The game ends: side {end['winner']} wins ")
    assert fired_aboard > 0
