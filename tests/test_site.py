"""The review site without a browser: readable tables, every page and link present, the
library free of global matplotlib state, the PDF written."""

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pandas as pd

from dustsim.review.site import Table, card_slugs, format_number, humanise, slugify


def test_headers_are_human():
    assert humanise("offence_per_ap") == "Offence per AP"
    assert humanise("p_win") == "P(win)"
    assert humanise("pp_lost_attacker") == "PP lost attacker"


def test_payload_readable_and_complete():
    df = pd.DataFrame({"unit": ["A", "B", "C"], "partial": [True, False, np.nan],
                       "composite": [0.5, np.nan, 0.25], "composite_se": [0.01, np.nan, 0.02],
                       "new_metric_per_ap": [1, 2, 3]})
    p = Table("t", "T", df, links={"unit": "card"}).payload({"A": "cards/a.html"})
    titles = [c["title"] for c in p["columns"]]
    assert titles == ["Unit", "Partial figures", "Composite per AP", "New metric per AP"]
    assert len(p["data"]) == 3  # every row
    comp = next(c for c in p["columns"] if c["key"] == "composite")
    assert comp["se"] is not None  # shown as value ± SE, not as its own column
    flat = json.dumps(p["data"])
    assert "true" not in flat.lower() and "nan" not in flat.lower()
    assert p["data"][0][1] == "yes" and p["data"][1][1] == "no" and p["data"][2][1] is None
    assert p["data"][1][2] is None  # unknown stays unknown ('?' on the page)


def test_numbers_and_slugs():
    assert format_number(None) == "?" and format_number(float("nan")) == "?"
    assert format_number(True) == "yes" and format_number(12345.6) == "12,346"
    assert format_number(0.123456) == "0.1235"
    assert slugify("Guaï-lo") == "guai-lo"
    s = card_slugs(["Guaï-lo", "Guai lo", "X"])
    assert len(set(s.values())) == 3


def test_library_sets_no_backend():
    code = ("import sys, matplotlib; before = matplotlib.rcParams._get_backend_or_none(); "
            "import dustsim.review.charts, dustsim.review.report, dustsim.review.pdf, "
            "dustsim.review.site; "
            "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'; "
            "assert matplotlib.rcParams._get_backend_or_none() == before; print('ok')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.links.append(a[key])


def test_site_pages_and_links(small_report):
    out = small_report
    pages = sorted(out.rglob("*.html"))
    cards = sorted((out / "cards").glob("*.html"))
    assert {"pounder.html", "ludwig.html", "heavy-laser-grenadier-squad.html",
            "index.html"} <= {p.name for p in cards}
    parsed = {}
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        parsed[page] = parser
    for page, parser in parsed.items():
        for link in parser.links:
            u = urlparse(link)
            assert not u.scheme and not u.netloc, f"{page.name}: external {link}"  # offline
            target = (page.parent / unquote(u.path)).resolve() if u.path else page
            if target.is_dir():
                target = target / "index.html"
            assert target.exists(), f"{page.relative_to(out)} -> {link}"
            if u.fragment and target.suffix == ".html":
                assert u.fragment in parsed[target].ids, f"{page.name} -> {link}"
    card = (out / "cards" / "pounder.html").read_text(encoding="utf-8")
    for part in ("The card as printed", "Antitank Gun", "Offence against every armour column",
                 "Best and worst matchups", "Durability", "What the model does not value",
                 "What-if sensitivities", "Sources", "516c407"):
        assert part in card, part
    # no Python spellings on any page's visible tables
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for blob in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', text,
                               re.S):
            data = json.loads(blob)
            cells = [v for row in data["data"] for v in row if isinstance(v, str)]
            assert not {"True", "False", "nan", "None"} & set(cells), page.name
            assert all(c["title"] != c["key"] or c["key"] in ("z",)
                       for c in data["columns"] if "_" in c["key"]), page.name
    pdf = (out / "review.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page(?!s)", pdf)) > 10


def test_section_from_any_table_renders(tmp_path):
    """A new table (another engineer's section) renders with no template change."""
    from dustsim.review.site import Section, write_site

    df = pd.DataFrame({"unit": ["A"], "list_strength_per_ap": [0.5], "legal": [True]})
    from dustsim.review.report import _table_html

    sec = Section("lists", "Army lists", "intro", (Table("lists", "Lists", df),),
                  html=_table_html(df, ["unit", "legal"]))
    write_site(tmp_path, meta={"title": "T", "lead": "", "confirmation": "", "edition": "e",
                               "engine": "exact", "seed": 0, "dustsim": "0", "sources": [],
                               "settings_json": "{}"},
               sections=[sec], cards=[], headline=[], card_table=None)
    page = (tmp_path / "sections" / "lists.html").read_text(encoding="utf-8")
    assert "List strength per AP" in page and '"yes"' in page
    assert "<td>yes</td>" in page and "True" not in page
    assert "sections/lists.html" in (tmp_path / "index.html").read_text(encoding="utf-8")
    assert Path(tmp_path / "assets" / "datatables.js").stat().st_size > 100_000


def test_cards_on_one_point_share_one_label():
    """Two cards with the same printed and suggested cost get one label, not two on top of
    each other (copies such as "Assault Truck" and "Assault Truck (DS)")."""
    from dustsim.review.charts import fair_points_scatter

    fair = pd.DataFrame({"unit": ["Truck", "Truck (DS)", "Tank", "Jeep"],
                         "fair_ap": [7.7, 7.7, 20.0, 10.0], "ap": [14, 14, 20, 6],
                         "bloc": ["Allies"] * 4})
    fair["residual"] = np.log(fair["ap"] / fair["fair_ap"])
    fig = fair_points_scatter(fair, label=2)
    labels = sorted(t.get_text() for t in fig.axes[0].texts)
    assert labels == ["Jeep", "Tank", "Truck, Truck (DS)"]
