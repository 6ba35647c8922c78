"""A readable what-if (issue 26): the summary in words, and the patch chart that always marks
each changed card's fair cost and band."""

import json

import numpy as np
import pandas as pd

from dustsim.review.charts import patch_chart
from dustsim.review.whatif import summary_text, with_bands


def _diff():
    before = pd.DataFrame({"unit": ["P", "A", "B", "C"], "ap": [13, 10, 20, 30],
                           "fair_ap": [14.8, 10, 15, 30], "fair_low": [8.6, 8, 12, 25],
                           "fair_high": [24.6, 12, 18, 36],
                           "verdict": ["in band", "in band", "over-costed", "in band"],
                           "rank_value_per_ap": [3, 1, 4, 2], "strength": [0.5, 0, 0, 1]})
    after = before.copy()
    after.loc[0, "ap"] = 11
    after["rank_value_per_ap"] = [1, 2, 4, 3]
    diff = before.merge(after, on="unit", suffixes=("_before", "_after"))
    diff["rank_move"] = diff["rank_value_per_ap_before"] - diff["rank_value_per_ap_after"]
    diff["changed"] = diff["ap_before"] != diff["ap_after"]
    diff["verdict_changed"] = diff["verdict_before"] != diff["verdict_after"]
    return with_bands(diff[[c for c in diff if "fair_low" not in c and "fair_high" not in c]],
                      before, after)


def test_summary_names_cost_band_verdict_and_rank_of_n():
    text = summary_text(_diff(), ["P"])
    lines = text.splitlines()
    assert lines[0] == "P: printed cost 13 -> 11 AP"
    assert "14.8 AP (90 % band 8.6–24.6 AP)  ->  14.8 AP (90 % band 8.6–24.6 AP) (unchanged)" \
        in lines[1]
    assert "in band  ->  in band (unchanged)" in lines[2]
    assert "3 of 4  ->  1 of 4" in lines[3]
    # A and C move down one each; B stays and is not listed
    assert "ranks that move most (2 other cards move):" in text
    assert "A" in text and "1 of 4 -> 2 of 4  (down 1)" in text and "\n  B " not in text


def test_patch_chart_marks_an_unmoved_fair_cost_and_its_band():
    d = _diff()
    fig = patch_chart(d, "t")
    ax = fig.axes[0]
    fair = [ln for ln in ax.lines if ln.get_marker() == "|"]
    # the one changed card: its fair cost before and after, though it did not move
    assert sorted(float(ln.get_xdata()[0]) for ln in fair) == [14.8, 14.8]
    segs = [s for coll in ax.collections for s in coll.get_segments()]
    spans = sorted((float(s[0][0]), float(s[1][0])) for s in segs)
    assert spans == [(8.6, 24.6), (8.6, 24.6)]
    printed = sorted(float(ln.get_xdata()[0]) for ln in ax.lines if ln.get_marker() in "ox")
    assert printed == [11.0, 13.0]
    assert not np.isnan([t.get_position()[1] for t in ax.get_yticklabels()]).any()


def test_whatif_cli_prints_words_and_json_frame(small_report, capsys):
    from dustsim.cli.shell import main

    args = ["whatif", "--unit", "Pounder", "--ap", "11", "--baseline", str(small_report),
            "--quiet"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("Pounder: printed cost 13 -> 11 AP")
    assert " of " in out and "90 % band" in out and "verdict" in out
    assert main([*args, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    p = next(r for r in rows if r["unit"] == "Pounder")
    assert p["ap_after"] == 11 and p["fair_low_before"] < p["fair_ap_before"] < \
        p["fair_high_before"] and p["ranked_after"] >= p["rank_value_per_ap_after"]
