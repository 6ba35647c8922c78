"""The board as a picture: terrain, deployment zones, objectives and units (matplotlib).

:func:`board_figure` draws a :class:`dustsim.play.board.Board` (or anything with its
``width``, ``height``, ``terrain``, ``objectives`` and ``deploy``), optionally with units on it,
or a battle replay log (its ``board``, and its units as they stand after a given step). It
returns a :class:`matplotlib.figure.Figure` with its own Agg canvas: no pyplot, no backend
set, so it shows inline in notebooks and the caller saves it as PNG or SVG
(``fig.savefig("board.svg")``). Side A's table edge (row 0) is at the bottom, as on the
replay page; squares are named like ``c4`` (column letter, row from A's edge); the terrain
colours are the page's (:data:`dustsim.review.replay.TERRAIN_STYLE`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from dustsim.errors import DustsimError
from dustsim.play.board import TERRAIN_NAMES, footprint_squares
from dustsim.review.replay import (
    ATTACKS,
    FACING_STEPS,
    MOVES,
    square_name,
    terrain_style,
    unit_codes,
    unit_labels,
    unit_states,
    validate_log,
)

SIDE_COLOURS = {"A": "#1d5fbf", "B": "#c0302b"}
STYLE = {"figure.dpi": 110, "savefig.dpi": 150, "font.size": 9, "axes.titlesize": 11,
         "axes.titleweight": "bold"}


def _squares(zone: Any, n: int) -> list[int]:
    """Squares of a zone given as a boolean mask over the board or as square indices."""
    a = np.asarray(zone if zone is not None else [], dtype=None)
    if a.size == 0:
        return []
    if a.dtype == bool:
        if a.size != n:
            raise DustsimError(f"a deployment mask needs {n} squares, got {a.size}",
                               field="deploy")
        return [int(s) for s in np.flatnonzero(a)]
    return [int(s) for s in a.reshape(-1)]


def _board_parts(board: Any) -> dict:
    """The drawing's inputs from a Board-like object or a log's ``board`` object."""
    get = board.get if isinstance(board, Mapping) else (lambda k, d=None: getattr(board, k, d))
    width, height = int(get("width")), int(get("height"))
    n = width * height
    terrain = np.asarray(get("terrain"), dtype=int).reshape(-1)
    if terrain.size != n:
        raise DustsimError(f"terrain needs {n} squares, got {terrain.size}", field="terrain")
    names = list(get("terrain_names", None) or TERRAIN_NAMES)
    deploy = get("deploy", None)
    zones = [_squares(z, n) for z in deploy] if deploy is not None else [[], []]
    level = get("height_level", None)
    level = np.zeros(n, int) if level is None else np.asarray(level, dtype=int).reshape(-1)
    cliff = get("cliff_mask", None)
    cliff = np.zeros(n, int) if cliff is None else np.asarray(cliff, dtype=int).reshape(-1)
    return {"name": get("name", "") or "", "width": width, "height": height,
            "level": level, "cliff": cliff,
            "terrain": terrain, "names": names, "zones": zones,
            "objectives": _squares(get("objectives", ()), n)}


def _xy(s: int, width: int) -> tuple[float, float]:
    return s % width + 0.5, s // width + 0.5


def _zone_outline(squares: Sequence[int], width: int, height: int) -> list:
    """The boundary segments of a set of squares (for a dashed zone outline)."""
    inside = set(squares)
    segs = []
    for s in inside:
        c, r = s % width, s // width
        if r == 0 or s - width not in inside:
            segs.append([(c, r), (c + 1, r)])
        if r == height - 1 or s + width not in inside:
            segs.append([(c, r + 1), (c + 1, r + 1)])
        if c == 0 or s - 1 not in inside:
            segs.append([(c, r), (c, r + 1)])
        if c == width - 1 or s + 1 not in inside:
            segs.append([(c + 1, r), (c + 1, r + 1)])
    return segs


def _short(name: str) -> str:
    words = [w for w in name.replace("-", " ").split() if w[:1].isalnum()]
    return ("".join(w[0] for w in words[:3]) if len(words) > 1 else name[:3]).upper()


def board_figure(source: Any, units: Sequence[Mapping] | None = None, *,
                 step: int | None = 0, title: str | None = None,
                 square_size: float = 0.62) -> Figure:
    """The board with its terrain, deployment zones, objectives and units.

    ``source``: a Board (duck-typed: ``width``, ``height``, ``terrain``, ``objectives``,
    ``deploy`` as a ``bool[2, n]`` mask or square lists, optional ``terrain_names``) or a
    replay log (checked; its units are drawn as they stand after ``step`` events, ``None``:
    the end, with the step's own event over the board: a move's path, an attack's sight
    line). ``units``: for a Board, dicts with ``side``, ``name``, ``kind``, ``square`` and
    optionally ``facing``, ``destroyed``. ``square_size``: inches per square.
    """
    if isinstance(source, Mapping) and "board" in source:
        validate_log(source)
        parts = _board_parts(source["board"])
        labels, codes = unit_labels(source), unit_codes(source)
        states = unit_states(source, step)
        drawn = [{**u, "label": labels[u["id"]], "short": codes[u["id"]],
                  # a passenger aboard (L526) is in its vehicle, not drawn on the board
                  "square": None if st.aboard is not None else st.square,
                  "facing": st.facing, "destroyed": st.destroyed}
                 for u in source["units"] for st in (states[u["id"]],)]
        sc = source.get("scenario") or {}
        default_title = " ".join(str(x) for x in (sc.get("number"), sc.get("name"))
                                 if x is not None)
        overlay = None
        if step:  # the step's own event drawn over the board: its path or its sight line
            ev = source["events"][step - 1]
            before = unit_states(source, step - 1)
            overlay = (ev, {uid: st.square for uid, st in before.items()})
            default_title += f", event {step - 1}: {ev['action']}"
    else:
        parts = _board_parts(source)
        drawn = [dict(u) for u in units or ()]
        default_title = parts["name"]
        overlay = None
    w, h = parts["width"], parts["height"]
    for u in drawn:
        s = u.get("square")
        if s is not None and not 0 <= int(s) < w * h:
            raise DustsimError(f"square {s} is off the {w} x {h} board",
                               unit=str(u.get("name", "")), field="square")
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(w * square_size + 1.6, h * square_size + 1.3),
                     layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        _draw_terrain(ax, parts)
        if overlay is not None:
            _draw_event(ax, *overlay, w)
        _draw_units(ax, drawn, w)
        ax.set_xlim(0, w)
        ax.set_ylim(0, h)
        ax.set_aspect("equal")
        ax.set_xticks(np.arange(w) + 0.5, [square_name(c, w)[:-1] for c in range(w)])
        ax.set_yticks(np.arange(h) + 0.5, [str(r + 1) for r in range(h)])
        ax.tick_params(length=0)
        for sp in ax.spines.values():
            sp.set_color("#444")
        low, high = _edges(parts)
        ax.set_xlabel(f"side {low}'s table edge", color=SIDE_COLOURS[low], fontweight="bold")
        top = ax.secondary_xaxis("top")
        top.set_xticks([])
        top.set_xlabel(f"side {high}'s table edge", color=SIDE_COLOURS[high],
                       fontweight="bold")
        if title or default_title:
            ax.set_title(title if title is not None else default_title, pad=22)
        _legend(fig, ax, parts, drawn)
    return fig


def _edges(parts: dict) -> tuple[str, str]:
    """(side at row 0, side at the last row): A at row 0 unless the deployment zones say the
    sides stand the other way (a battle gives the attacker the scenario's first zone)."""
    rows = [np.mean([s // parts["width"] for s in z]) if z else None for z in parts["zones"]]
    return ("B", "A") if None not in rows and rows[0] > rows[1] else ("A", "B")


def _draw_terrain(ax, parts: dict) -> None:
    w, h, terrain, names = parts["width"], parts["height"], parts["terrain"], parts["names"]
    rgb = np.zeros((h, w, 3))
    for s, code in enumerate(terrain):
        name = names[code] if 0 <= code < len(names) else f"terrain {code}"
        shade = 1.0 - 0.07 * min(int(parts["level"][s]), 6)  # higher ground darker
        rgb[s // w, s % w] = np.array(to_rgb(terrain_style(name)[0])) * shade
    ax.imshow(rgb, origin="lower", extent=(0, w, 0, h), interpolation="nearest", zorder=0)
    for s, code in enumerate(terrain):
        name = names[code] if 0 <= code < len(names) else ""
        hatch = terrain_style(name)[2]
        if hatch:
            ax.add_patch(Rectangle((s % w, s // w), 1, 1, fill=False, hatch=hatch,
                                   edgecolor=(0, 0, 0, 0.35), linewidth=0, zorder=1))
    grid = [[(c, 0), (c, h)] for c in range(w + 1)] + [[(0, r), (w, r)] for r in range(h + 1)]
    ax.add_collection(LineCollection(grid, colors="#bdb6a3", linewidths=0.6, zorder=2))
    level = parts["level"]
    if level.any():  # height levels (L3092-3098): one label where a level begins
        labelled = set()
        for s, lv in enumerate(level):
            c, r = s % w, s // w
            if lv == 0 or (r > 0 and level[s - w] == lv):
                continue
            labelled.add(s)
            if c > 0 and level[s - 1] == lv and s - 1 in labelled:
                continue
            ax.text(c + 0.06, r + 0.06, f"h{lv}", fontsize=7, color="#3b3326",
                    ha="left", va="bottom", fontweight="bold", zorder=2.2)
    faces = []
    for s, bits in enumerate(parts["cliff"]):
        c, r = s % w, s // w
        if bits & (1 << 0):  # towards row + (the board's DIRECTIONS): the top edge
            faces.append([(c, r + 1), (c + 1, r + 1)])
        if bits & (1 << 2):  # towards column +: the right edge
            faces.append([(c + 1, r), (c + 1, r + 1)])
    if faces:
        ax.add_collection(LineCollection(faces, colors="#2b2118", linewidths=3.2, zorder=2.3))
    for side, zone in zip("AB", parts["zones"], strict=False):
        if not zone:
            continue
        tint = np.zeros((h, w, 4))
        tint[..., :3] = to_rgb(SIDE_COLOURS[side])
        for s in zone:
            tint[s // w, s % w, 3] = 0.13
        ax.imshow(tint, origin="lower", extent=(0, w, 0, h), interpolation="nearest",
                  zorder=2.5)
        ax.add_collection(LineCollection(_zone_outline(zone, w, h), colors=SIDE_COLOURS[side],
                                         linewidths=1.8, linestyles=(0, (4, 2.5)), zorder=3))
    if parts["objectives"]:
        xy = np.array([_xy(s, w) for s in parts["objectives"]])
        ax.scatter(xy[:, 0], xy[:, 1], s=520, facecolors="none", edgecolors="#6b5200",
                   linewidths=1.6, linestyles="--", zorder=3.5)
        ax.scatter(xy[:, 0], xy[:, 1] + 0.28, marker="*", s=110, color="#ffd54a",
                   edgecolors="#6b5200", linewidths=0.7, zorder=3.6)


def _draw_event(ax, ev: Mapping, before: Mapping, w: int) -> None:
    """A move's path, or an attack's sight line (dashed and marked "cover" where the target
    is in cover), as the replay page draws them."""
    if ev["action"] in MOVES and ev.get("to") is not None:
        start = ev.get("from", before.get(ev["unit"]))
        pts = [s for s in [start, *(ev.get("path") or [ev["to"]])] if s is not None]
        if len(pts) >= 2:
            xy = np.array([_xy(s, w) for s in pts])
            ax.plot(xy[:, 0], xy[:, 1], color="#555", lw=2.2, ls=(0, (1, 2.5)),
                    solid_capstyle="round", zorder=3.8)
    elif ev["action"] in ATTACKS:
        a, b = before.get(ev["unit"]), before.get(ev["target"])
        if a is None or b is None:
            return
        colour = {"close-combat": "#d9480f", "reaction": "#7048e8"}.get(ev["action"], "#111")
        cover = ev.get("los") == "cover" or ev.get("cover") is True
        (x0, y0), (x1, y1) = _xy(a, w), _xy(b, w)
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=6.5,
                    arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2,
                                "linestyle": "--" if cover else "-", "shrinkA": 11,
                                "shrinkB": 11, "mutation_scale": 14})
        if cover:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2, "cover", ha="center", va="center",
                    fontsize=7, zorder=6.6, bbox={"boxstyle": "round,pad=0.2", "fc": "white",
                                                  "ec": "#333", "lw": 0.6})


def _marker(kind: str) -> str:
    k = kind.lower()
    if "aircraft" in k:
        return "D"
    if "vehicle" in k or "walker" in k or "tank" in k:
        return "s"
    return "o"


def _draw_units(ax, units: Sequence[Mapping], w: int) -> None:
    crowd: dict[int, int] = {}
    for u in units:
        s = u.get("square")
        if s is None:
            continue
        s = int(s)
        k = crowd[s] = crowd.get(s, -1) + 1  # a second unit on a square shifts aside
        x, y = _xy(s, w)
        x, y = x + 0.14 * k, y - 0.1 * k
        colour = SIDE_COLOURS.get(u.get("side"), "#444444")
        alpha = 0.4 if u.get("destroyed") else 1.0
        f = u.get("facing")
        if int(u.get("footprint") or 1) > 1 and f is not None:  # a Large/Huge vehicle's squares
            xs, ys = zip(*(_xy(q, w) for q in footprint_squares(
                w, 1 << 20, int(u["footprint"]), s, int(f))), strict=True)
            ax.add_patch(Rectangle((min(xs) - 0.45, min(ys) - 0.45), max(xs) - min(xs) + 0.9,
                                   max(ys) - min(ys) + 0.9, facecolor=colour, alpha=0.25 * alpha,
                                   edgecolor=colour, lw=1.2, zorder=3))
        if f is not None:
            dx, dy = FACING_STEPS[int(f)]
            norm = float(np.hypot(dx, dy))
            ax.annotate("", xy=(x + 0.47 * dx / norm, y + 0.47 * dy / norm), xytext=(x, y),
                        arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 1.6,
                                    "mutation_scale": 11, "alpha": alpha}, zorder=4)
        ax.scatter([x], [y], marker=_marker(str(u.get("kind", ""))), s=430, color=colour,
                   edgecolors="white", linewidths=1.5, alpha=alpha, zorder=5)
        ax.text(x, y, u.get("short") or _short(str(u.get("label") or u.get("name", "?"))),
                ha="center", va="center", color="white", fontsize=6.5, fontweight="bold",
                alpha=alpha, zorder=6)
        if u.get("destroyed"):
            ax.plot([x - 0.25, x + 0.25], [y - 0.25, y + 0.25], color="#111", lw=2, zorder=7)
            ax.plot([x - 0.25, x + 0.25], [y + 0.25, y - 0.25], color="#111", lw=2, zorder=7)


def _legend(fig: Figure, ax, parts: dict, units: Sequence[Mapping]) -> None:
    names = parts["names"]
    handles = []
    for code in sorted({int(c) for c in parts["terrain"]}):
        name = names[code] if 0 <= code < len(names) else f"terrain {code}"
        fill, _, hatch = terrain_style(name)
        handles.append(Patch(facecolor=fill, hatch=hatch, edgecolor=(0, 0, 0, 0.35),
                             label=name))
    for side, zone in zip("AB", parts["zones"], strict=False):
        if zone:
            handles.append(Patch(facecolor=(*to_rgb(SIDE_COLOURS[side]), 0.15),
                                 edgecolor=SIDE_COLOURS[side], linestyle="--",
                                 label=f"deployment {side}"))
    if parts["cliff"].any():
        handles.append(Line2D([], [], color="#2b2118", linewidth=3.2, label="cliff face"))
    if parts["level"].any():
        handles.append(Line2D([], [], marker="$h2$", color="#3b3326", linestyle="none",
                              markersize=10, label="height level (darker: higher)"))
    if parts["objectives"]:
        handles.append(Line2D([], [], marker="*", color="none", markerfacecolor="#ffd54a",
                              markeredgecolor="#6b5200", markersize=11, label="objective"))
    on_board = [u for u in units if u.get("square") is not None]
    for side in sorted({str(u.get("side")) for u in on_board}):
        handles.append(Patch(facecolor=SIDE_COLOURS.get(side, "#444"), label=f"side {side}"))
    for marker, kind in (("o", "infantry"), ("s", "vehicle"), ("D", "aircraft")):
        if any(_marker(str(u.get("kind", ""))) == marker for u in on_board):
            handles.append(Line2D([], [], marker=marker, color="none", markerfacecolor="#777",
                                  markeredgecolor="white", markersize=9, label=kind))
    if on_board:
        handles.append(Line2D([], [], marker=r"$\rightarrow$", color="#555", linestyle="none",
                              markersize=10, label="facing"))
    fig.legend(handles=handles, loc="outside right upper", frameon=False, fontsize=8)


__all__ = ["SIDE_COLOURS", "board_figure"]
