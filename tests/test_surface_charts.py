"""Charts a designer reads (issue 26): no label printed over another, no legend over a bar,
and the library's figures stay outside pyplot (a notebook shows each chart once)."""

import itertools

import numpy as np
import pandas as pd
from matplotlib.text import Text


def _overlaps(fig, texts):
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    # the text's own box (an Annotation's extent would include its leader line)
    boxes = [(t.get_text(), Text.get_window_extent(t, r)) for t in texts]
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]


def _crowded(n=80, seed=3):
    """Many squads, a few of them close together at the top (as the V4 chart's best)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 0.5, n)
    y = rng.uniform(0, 1, n)
    x[:8] = 0.9 + rng.normal(0, 0.004, 8)  # the eight labelled ones, nearly on one spot
    y[:8] = 0.5 + rng.normal(0, 0.004, 8)
    x[1], y[1] = x[0], y[0]  # two copies of one card on the same point
    return pd.DataFrame({"unit": [f"Spetsnaz Saboteur Squad {i}" for i in range(n)],
                         "bloc": ["SSU", "Allies", "Axis", "IJN"] * (n // 4),
                         "column": "V4", "action": "sustained", "cover": False,
                         "ap_destroyed_per_ap": x, "p_destroy": y, "mean_damage": 1.0,
                         "ref_size": 6})


def test_reliability_labels_do_not_overlap():
    from dustsim.review.charts import reliability_scatter

    for seed in (0, 1, 3):  # layouts where adjustText alone leaves overlaps
        fig = reliability_scatter(_crowded(seed=seed), "V4")
        texts = fig.axes[0].texts
        assert len(texts) == 7  # the two copies share one label
        assert not _overlaps(fig, texts)


def test_fair_points_labels_do_not_overlap_each_other_or_the_legend():
    from dustsim.review.charts import fair_points_scatter

    rng = np.random.default_rng(5)
    n = 120
    fair = rng.lognormal(2.5, 0.6, n)
    ap = fair * np.exp(rng.normal(0, 0.3, n))
    ap[:6] = fair[:6] * 2.2  # six over-costed cards close together
    fair[:6] = 10 + rng.normal(0, 0.05, 6)
    d = pd.DataFrame({"unit": [f"USMC Demolition Squad {i}" for i in range(n)], "fair_ap": fair,
                      "ap": ap, "bloc": "Allies", "fair_low": fair * 0.7,
                      "fair_high": fair * 1.4})
    d["residual"] = np.log(d["ap"] / d["fair_ap"])
    d["verdict"] = np.where(d["ap"] > d["fair_high"], "over-costed", "in band")
    fig = fair_points_scatter(d, label=6)
    ax = fig.axes[0]
    assert not _overlaps(fig, ax.texts)
    legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    assert not any(t.get_window_extent().overlaps(legend) for t in ax.texts)


def test_list_chart_legend_covers_no_bar():
    from types import SimpleNamespace

    from dustsim.review.list_charts import summary_chart

    units = pd.DataFrame({"unit": [f"Unit {i}" for i in range(5)],
                          "offence_share": [0.1, 0.2, 0.3, 0.25, 0.45],
                          "durability_share": [0.4, 0.1, 0.2, 0.1, 0.45]})
    ct = pd.DataFrame({"column": ["I1", "V4", "A1"], "offence": [1.0, 0.5, 0.0],
                       "can_hurt": [True, True, False]})
    s = SimpleNamespace(army=SimpleNamespace(name="Rangers"), units=units,
                        column_table=lambda: ct)
    fig = summary_chart(s)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    ax = fig.axes[1]
    legend = ax.get_legend().get_window_extent(r)
    bars = [p.get_window_extent(r) for p in ax.patches]
    assert bars and not any(b.overlaps(legend) for b in bars)
    # nor does it sit on a title (the panel's own title was drawn over it, notebook 04)
    titles = [a.title for a in fig.axes if a.get_title()]
    assert not any(t.get_window_extent(r).overlaps(legend) for t in titles)
    assert "each unit's share" in ax.get_legend().get_title().get_text()


def test_long_list_names_show_their_cut():
    from dustsim.review.list_charts import meta_heatmap

    name = "Mercenaries: Sister Luisa's Girls"
    fig = meta_heatmap(pd.DataFrame([[None, 0.6], [0.4, None]], index=[name, "B"],
                                    columns=[name, "B"]))
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[0].endswith("…") and len(labels[0]) == 28 and labels[1] == "B"


def test_list_charts_stay_out_of_pyplot():
    import matplotlib.pyplot as plt

    from dustsim.review.list_charts import meta_heatmap, points_curve

    before = plt.get_fignums()
    curve = pd.DataFrame({"side": ["a", "a", "b", "b"], "list": ["A", "A", "B", "B"],
                          "turn": [1, 2, 1, 2], "ap_left": [70, 50, 70, 40], "se": [1, 1, 1, 1]})
    points_curve(curve)
    meta_heatmap(pd.DataFrame([[0.5, 0.6], [0.4, 0.5]], index=["A", "B"], columns=["A", "B"]))
    assert plt.get_fignums() == before  # nothing for the inline backend to draw again


def test_narrow_cost_range_keeps_labelled_ticks():
    """Printed costs of 10-13 AP on a log axis had no tick between 10 and 20: the points stood
    beside an unlabelled axis. Round army-point ticks are named inside a narrow range."""
    import numpy as np
    import pandas as pd

    from dustsim.review.charts import fair_points_scatter

    d = pd.DataFrame({"unit": ["P", "L", "H"], "fair_ap": [11.1, 15.5, 12.7],
                      "ap": [13.0, 12.0, 10.0], "fair_low": [5.9, 8.6, 6.9],
                      "fair_high": [19.8, 27.0, 22.0], "verdict": ["in band"] * 3,
                      "bloc": ["Allies", "Axis", "Axis"], "judged": [True] * 3})
    d["residual"] = np.log(d["ap"] / d["fair_ap"])
    d["value_per_ap"] = d["strength"] = 1.0
    ax = fair_points_scatter(d).axes[0]
    lo, hi = ax.get_ylim()
    inside = [t for t in ax.get_yticks() if lo <= t <= hi]
    assert {10, 12} <= set(inside) and len(inside) >= 3
