"""What a designer sees first on the review site (issue 26): the finding on the index, tables
readable before (and without) JavaScript, card pages in words, partial cards explained."""

import re

import pandas as pd
import pytest

from dustsim.review.report import finding, verdict_sentence
from dustsim.review.site import Table, static_rows


def _fp(rows):
    cols = ["unit", "ap", "fair_ap", "fair_low", "fair_high", "verdict"]
    return pd.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])


def test_finding_counts_verdicts_and_names_the_furthest_outside_the_band():
    fp = _fp([("A", 10, 10, 8, 12, "in band"), ("B", 30, 10, 8, 12, "over-costed"),
              ("C", 14, 10, 8, 12, "over-costed"), ("D", 4, 10, 8, 12, "under-costed"),
              ("E", 5, 5, 4, 6, "not judged")])
    f = finding(fp, {"B": "cards/b.html"})
    assert "4 cards are judged from play: 1 look under-costed, 2 over-costed and 1 in band" \
        in f["text"]
    assert "1 not judged" in f["text"]
    # B is 30/12 = 2.5x above its band's top, D 8/4 = 2x below, C 14/12 above: that order
    assert [c["name"] for c in f["cards"]] == ["B", "D", "C"]
    assert f["cards"][0]["href"] == "cards/b.html"
    assert "printed 30 AP, suggested 10 AP (band 8–12): over-costed" in f["cards"][0]["text"]
    assert finding(_fp([("E", 5, 5, 4, 6, "not judged")])) is None  # nothing judged


def test_finding_puts_strong_evidence_first_when_the_value_model_gives_it():
    fp = _fp([("B", 30, 10, 8, 12, "over-costed"), ("C", 14, 10, 8, 12, "over-costed")])
    fp["evidence"] = ["weak", "strong"]
    assert [c["name"] for c in finding(fp)["cards"]] == ["C", "B"]


@pytest.mark.parametrize("row, words", [
    ({"verdict": "over-costed", "ap": 68, "fair_high": 48.9}, "above the band's upper end "
                                                               "(48.9 AP)"),
    ({"verdict": "under-costed", "ap": 4, "fair_low": 8}, "below the band's lower end (8 AP)"),
    ({"verdict": "not judged", "mainly_unmodelled": "transport"}, "(transport)"),
    ({"verdict": "partial data", "notes": "Gun: V4 unknown"}, "(Gun: V4 unknown)"),
    ({"verdict": "no value", "why": "no move"}, "cannot play the engagements (no move)"),
])
def test_verdict_sentence_says_what_decides_it(row, words):
    assert words in verdict_sentence(row)


def test_static_rows_follow_the_initial_order_and_format_as_the_browser():
    df = pd.DataFrame({"unit": ["a", "b", "c"], "ap": [7.0, 13.0, None],
                       "offence": [0.123456, 2.5, 1.0], "offence_se": [0.0012, 0.01, 0.1]})
    payload = Table("t", "T", df, links={"unit": "card"}, order=("ap", "desc"),
                    page_length=2).payload({"b": "cards/b.html"})
    rows = static_rows(payload)
    assert len(rows) == 2  # one page
    assert [r[0][0] for r in rows] == ["b", "a"]  # 13 AP first; unknown last
    assert rows[0][0][1] == "cards/b.html" and rows[1][0][1] is None
    assert rows[0][1] == ("13", None, True)
    assert rows[1][2][0] == "0.1235 ± 0.0012"
    assert static_rows(payload, -1)[-1][1][0] == "?"  # unknown shown '?'


def test_partial_reasons_name_the_missing_figure():
    from dustsim.data.cards import find_card, load_cards
    from dustsim.data.views import partial_reasons

    cards = load_cards()
    rangers = find_card(cards, "Ranger Combat Squad", "dust-1947")
    assert not rangers.complete
    (why,) = partial_reasons(rangers)
    assert "squad size 5" in why and "inferred from the weapon counts" in why
    assert partial_reasons(find_card(cards, "Pounder", "dust-1947")) == []
    old = find_card(cards, "Pounder", "tactics-2013")
    text = "; ".join(partial_reasons(old))
    assert "cost unknown" in text and "damage track unknown" in text
    assert "17 pdr gun: every column unknown" in text


def test_index_leads_with_the_finding_and_shows_rows_without_javascript(small_report):
    index = (small_report / "index.html").read_text(encoding="utf-8")
    fp = pd.read_csv(small_report / "tables" / "fair_points.csv")
    counts = fp["verdict"].value_counts()
    judged = sum(counts.get(v, 0) for v in ("under-costed", "over-costed", "in band"))
    head = index.split('id="headline"')[0]
    assert f"{judged} cards are judged from play" in head
    assert f"{counts.get('over-costed', 0)} over-costed" in head
    assert 'src="charts/fair_points.png"' in head  # the chart before the table
    assert head.index("The finding") < head.index("charts/fair_points.png")
    assert 'id="contents"' in index.split('id="headline"')[1]  # contents after the table
    # the table's first rows are in the HTML itself: a plain screenshot shows them
    table = index.split('id="headline"')[1].split("</table>")[0]
    rows = re.findall(r"<tr>.*?</tr>", table.split("<tbody>")[1], re.S)
    assert len(rows) == min(judged, 10)
    names = {u for u in fp["unit"] if f">{u}</a>" in table}
    assert names and names <= set(fp["unit"])


def test_card_page_in_words_with_model_details_folded(small_report):
    page = (small_report / "cards" / "pounder.html").read_text(encoding="utf-8")
    short = page.split('id="in-short"')[1].split("</section>")[0]
    fp = pd.read_csv(small_report / "tables" / "fair_points.csv").set_index("unit")
    row = fp.loc["Pounder"]
    for words in ("Printed cost", "13 AP", "Suggested cost from play", "90 % band",
                  "Verdict", row["verdict"], "Wins most often against",
                  "Loses most often against", "Not played by the model"):
        assert words in short, words
    details = page.split('id="scores"')[1].split("</section>")[0]
    assert "<details>" in details and "Model details" in details and "Strength" in details
    # internals stay in the fold (the "Strength of evidence" row is words, not the model figure)
    assert "<th>Strength</th>" not in short and "Strength joined" not in short
    # a figure that applies only to joined heroes is left out, not shown as '?'
    assert "<th>Host</th>" not in details and "Strength joined" not in details


def test_value_page_describes_the_field_it_shows(small_report):
    page = (small_report / "sections" / "value.html").read_text(encoding="utf-8")
    field = pd.read_csv(small_report / "tables" / "value_field.csv")
    per_class = field.groupby("column").size().max()
    assert per_class == 3
    assert "up to 3 cards of each armour class" in page
    assert "the median-cost card of each armour class" not in page


def test_card_summary_shows_the_value_models_reason_lens_and_evidence_where_present():
    from dustsim.data.cards import find_card, load_cards
    from dustsim.review.report import _value_summary

    card = find_card(load_cards(), "Pounder", "dust-1947")
    row = {"unit": "Pounder", "ap": 13, "fair_ap": 30.0, "fair_low": 20.0, "fair_high": 45.0,
           "verdict": "under-costed", "reason": "In play it destroys 60 % of an opponent.",
           "evidence": "strong", "consistency_ap": 25.0, "consistency_low": 18.0,
           "consistency_high": 34.0, "consistency_verdict": "under-costed", "not_modelled": ""}
    s = _value_summary(card, row, None, {})
    assert s["verdict"].startswith("under-costed: its printed 13 AP is below")
    assert s["why"] == "In play it destroys 60 % of an opponent."
    assert s["evidence"] == "strong"
    assert s["consistency"] == "25 AP (band 18–34 AP): under-costed"
    bare = _value_summary(card, {k: v for k, v in row.items() if not k.startswith(
        ("consistency", "evidence", "reason"))}, None, {})
    assert bare["consistency"] is None and bare["evidence"] == "" and bare["why"] == ""


def test_scores_table_says_why_a_card_is_partial(small_report):
    page = (small_report / "sections" / "rankings.html").read_text(encoding="utf-8")
    sc = pd.read_csv(small_report / "tables" / "scores.csv")
    assert sc["partial"].dtype == bool  # the table keeps its flag
    # Heavy Laser Grenadier Squad: 3 models, a size no source prints (inferred)
    assert sc.set_index("unit").loc["Heavy Laser Grenadier Squad", "partial"]
    assert "yes: squad size 3 inferred from the weapon counts (no source prints it)" in page


def test_card_summary_says_a_lower_bound_and_the_suggested_cost_once():
    # the Verdict row is the verdict's sentence then the value model's: the clauses of the
    # latter that restate the suggested cost and the lower bound are left out there
    from dustsim.data.cards import find_card, load_cards
    from dustsim.review.report import _value_summary

    card = find_card(load_cards(), "Red Rain", "dust-1947")
    role = "Artillery Area and indirect fire of its main weapon (Heavy Mortar)"
    reason = ("In play it destroys 34% of an opponent of the field for 78% of itself; worth "
              "at least 5.4 AP (3-8) against 10 printed: lower bound; the price list charges "
              "9.7 AP (8-13) for cards like it (Red Fury (7)); judged on what it plays: its "
              f"{role} is not played, so its fair cost is a lower bound (under-costed or a "
              "lower bound, never over-costed).")
    row = {"unit": "Red Rain", "ap": 10, "fair_ap": 5.41, "fair_low": 3.18, "fair_high": 8.45,
           "verdict": "lower bound", "mainly_unmodelled": role, "reason": reason,
           "not_modelled": ""}
    s = _value_summary(card, row, None, {})
    text = s["verdict"] + ". " + s["why"]
    assert text.count(role) == 1 and text.count("at least") == 1
    assert s["why"] == ("In play it destroys 34% of an opponent of the field for 78% of "
                        "itself; the price list charges 9.7 AP (8-13) for cards like it "
                        "(Red Fury (7)).")
    # an under-costed lower bound keeps the clause: its verdict row does not say it
    under = _value_summary(card, {**row, "verdict": "under-costed"}, None, {})
    assert role in under["why"] and "worth at least" not in under["why"]
