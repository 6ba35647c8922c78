"""Compact text and HTML views of results for the REPL and Jupyter (``repr``,
``_repr_html_``): the headline numbers, never the raw arrays."""

from __future__ import annotations

import html
import math


def num(v, digits: int = 4) -> str:
    """A readable number ('?' when unknown)."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "?"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    return f"{v:.{digits}g}"


def with_se(v, se) -> str:
    return num(v) + (f" ± {num(se, 2)}" if se else "")


def text(kind: str, head: str, items: list[tuple[str, str]]) -> str:
    """``Kind(head; a=1, b=2)`` on one line."""
    body = ", ".join(f"{k} {v}" for k, v in items)
    return f"{kind}({head}; {body})" if head else f"{kind}({body})"


def table(title: str, items: list[tuple[str, str]], pmf: list[float] | None = None,
          pmf_label: str = "k") -> str:
    """A small HTML table of label/value rows, and optionally a distribution as bars."""
    e = html.escape
    rows = "".join(f"<tr><th style='text-align:left'>{e(k)}</th><td>{e(v)}</td></tr>"
                   for k, v in items)
    out = f"<div><b>{e(title)}</b><table>{rows}</table>"
    if pmf:
        top = max(pmf) or 1.0
        bars = "".join(
            f"<tr><td>{k}</td><td>{p:.4f}</td><td><div style='background:#1f5fa8;height:10px;"
            f"width:{round(160 * p / top)}px'></div></td></tr>" for k, p in enumerate(pmf))
        out += (f"<table><tr><th>{e(pmf_label)}</th><th>P(= {e(pmf_label)})</th><th></th>"
                f"</tr>{bars}</table>")
    return out + "</div>"
