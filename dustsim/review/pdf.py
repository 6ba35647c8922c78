"""The whole review as one PDF (matplotlib only: no browser needed).

A title page with the contents, then each section: its introduction, its tables (the first
rows of each, formatted as on the site; the complete tables are in the site and in
``tables/``) and its charts.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from dustsim.review.site import Section, Table, column_label, format_number

A4_LANDSCAPE = (11.69, 8.27)
ROWS_PER_PAGE = 30
MAX_COLUMNS = 9


def _text_page(title: str, lines: list[str]) -> Figure:
    fig = Figure(figsize=A4_LANDSCAPE)
    fig.text(0.06, 0.92, title, fontsize=18, fontweight="bold", va="top")
    y = 0.84
    for line in lines:
        for part in textwrap.wrap(line, 120) or [""]:
            fig.text(0.06, y, part, fontsize=10, va="top")
            y -= 0.03
        y -= 0.01
    return fig


def _table_page(t: Table, section: str) -> Figure:
    df = t.frame
    cols = [c for c in (t.columns or df.columns) if c in df.columns
            and not (c.endswith("_se") or c.startswith("se_"))]
    if len(df) > 1:  # a column with one value says nothing row by row
        cols = [c for c in cols if df[c].astype(str).nunique() > 1]
    key = t.order[0] if t.order and t.order[0] in df.columns else None
    if key and key not in cols[:MAX_COLUMNS]:
        cols = [*cols[: MAX_COLUMNS - 1], key]
    cols = cols[:MAX_COLUMNS]
    if key:
        df = df.sort_values(key, ascending=t.order[1] == "asc")
    head = df[cols].head(ROWS_PER_PAGE)
    cells = [[textwrap.shorten(format_number(None if _na(v) else v), 38, placeholder="…")
              for v in row] for row in head.itertuples(index=False, name=None)]
    labels = ["\n".join(textwrap.wrap(column_label(c)[0], 16)) for c in cols]
    fig = Figure(figsize=A4_LANDSCAPE)
    fig.text(0.04, 0.96, f"{section}: {t.title}", fontsize=13, fontweight="bold", va="top")
    more = (f"first {len(head)} of {len(df):,} rows" if len(df) > len(head)
            else f"all {len(df):,} rows")
    fig.text(0.04, 0.925, f"{more}; the complete table is on the site and in tables/"
             f"{t.key}.csv", fontsize=8, va="top", color="#555")
    ax = fig.add_axes((0.03, 0.03, 0.94, 0.86))
    ax.axis("off")
    if cells:
        tab = ax.table(cellText=cells, colLabels=labels, loc="upper center", cellLoc="left")
        tab.auto_set_font_size(False)
        tab.set_fontsize(6.5)
        tab.auto_set_column_width(list(range(len(cols))))
        tab.scale(1, 1.25)
    return fig


def _na(v) -> bool:
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def write_pdf(path: Path, meta: dict, sections: list[Section], charts: dict) -> None:
    """Write the review PDF; ``charts`` maps a chart name to (caption, Figure)."""
    with PdfPages(path, metadata={"Title": meta["title"], "Creator": "dustsim"}) as pdf:
        contents = [meta["lead"], meta.get("confirmation", ""), "Contents:"]
        contents += [f"{i}. {s.title}" for i, s in enumerate(sections, 1)]
        pdf.savefig(_text_page(meta["title"], [c for c in contents if c]))
        for i, s in enumerate(sections, 1):
            pdf.savefig(_text_page(f"{i}. {s.title}", [s.intro] if s.intro else []))
            for t in s.tables:
                pdf.savefig(_table_page(t, s.title))
            for name, _caption in s.charts:
                if name in charts:
                    pdf.savefig(charts[name][1], bbox_inches="tight")
