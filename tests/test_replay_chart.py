"""The board picture: from a real Board and from a replay log; PNG and SVG by the caller."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from dustsim.errors import DustsimError
from dustsim.play.board import BUILDING, MINEFIELD, TERRAIN_NAMES, TREES, make_board, open_board
from dustsim.review.board_chart import board_figure

FIXTURE = Path(__file__).parent / "data" / "replay_small.json"


def _legend(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.legends[0].get_texts()]


def _units(fig: Figure) -> list:
    """The unit markers (scatter collections of one point; objectives come as one each too,
    so they are told apart by their fill)."""
    ax = fig.axes[0]
    return [c for c in ax.collections
            if len(c.get_offsets()) == 1 and c.get_facecolor().size and
            c.get_facecolor()[0][3] > 0 and c.get_sizes()[0] == 430]


def test_real_board_with_terrain_objectives_and_zones():
    w, h = 12, 9
    terrain = np.zeros(w * h, np.int8)
    terrain[[40, 41]] = BUILDING
    terrain[53] = TREES
    terrain[80] = MINEFIELD
    deploy = np.zeros((2, w * h), bool)
    deploy[0, :2 * w] = True
    deploy[1, -w:] = True
    board = make_board("test map", w, h, terrain, deploy=deploy, objectives=[52, 55])
    fig = board_figure(board, [{"side": "A", "name": "Pounder", "kind": "vehicle",
                                "square": 20, "facing": 0},
                               {"side": "B", "name": "Ranger Combat Squad",
                                "kind": "infantry", "square": 100, "facing": 4}])
    assert isinstance(fig, Figure) and isinstance(fig.canvas, FigureCanvasAgg)
    labels = _legend(fig)
    for code in (0, BUILDING, TREES, MINEFIELD):
        assert TERRAIN_NAMES[code] in labels
    assert "trench" not in labels and "bunker" not in labels  # only the terrain drawn
    assert {"deployment A", "deployment B", "objective", "side A", "side B", "infantry",
            "vehicle"} <= set(labels)
    assert fig.axes[0].get_title() == "test map"
    assert len(_units(fig)) == 2
    for fmt, magic in (("png", b"\x89PNG"), ("svg", b"<?xml")):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt)
        assert buf.getvalue().startswith(magic)


def test_open_board_has_default_zones_and_no_units():
    fig = board_figure(open_board())
    labels = _legend(fig)
    assert labels == ["open", "deployment A", "deployment B"]
    assert _units(fig) == []
    xt = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert xt[0] == "a" and xt[-1] == "l" and len(xt) == 12


def test_from_a_log_at_a_step():
    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    start, end = board_figure(log), board_figure(log, step=None)
    assert start.axes[0].get_title() == "101 Firefight"
    # where the Rangers stand: c1 at the set-up, c3 after their move
    def pos(fig, code):
        ax = fig.axes[0]
        t = next(t for t in ax.texts if t.get_text() == code)
        return t.get_position()
    assert pos(start, "RCS") == (2.5, 0.5)
    assert pos(end, "RCS") == (2.5, 2.5)
    alphas = {t.get_text(): t.get_alpha() for t in end.axes[0].texts}
    assert alphas["HL1"] == 0.4 and alphas["HL2"] == 1.0  # squad 1 destroyed at step 19


def test_bad_input():
    with pytest.raises(DustsimError, match="square 200 is off the 12 x 9 board"):
        board_figure(open_board(), [{"side": "A", "name": "X", "kind": "infantry",
                                     "square": 200}])
    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    log["events"][2]["to"] = 500
    with pytest.raises(DustsimError, match=r"event 2 \(move\): field 'to'"):
        board_figure(log)


def test_scenario_boards_with_heights_and_cliffs():
    from dustsim.play.scenarios import build_board, find_scenario

    board = build_board(find_scenario(112), seed=1)  # Cliff Assault: two levels, a cliff face
    assert board.height_level.any() and board.cliff_mask.any()
    labels = _legend(board_figure(board))
    assert "cliff face" in labels and "height level (darker: higher)" in labels
    flat = _legend(board_figure(build_board(find_scenario(101), seed=1)))
    assert "cliff face" not in flat


def test_a_step_draws_its_event():
    """Event 46 of the recorded Firefight game: the Pounder on b7 fires at Ludwig on a1."""
    from matplotlib.text import Annotation

    log = json.loads((Path(__file__).parent / "data" / "replay_firefight.json")
                     .read_text(encoding="utf-8"))
    fig = board_figure(log, step=47)
    ax = fig.axes[0]
    assert ax.get_title() == "101 Firefight, event 46: attack"
    lines = [t for t in ax.texts if isinstance(t, Annotation) and t.xy == (0.5, 0.5)]
    assert [t.xyann for t in lines] == [(1.5, 6.5)]
    moved = board_figure(log, step=4)  # event 3: the command squad enters (a march)
    assert moved.axes[0].get_title().endswith("event 3: march")
    assert len(moved.axes[0].get_lines()) >= 1


def test_a_passenger_aboard_is_not_drawn():
    """A unit aboard its vehicle (L526-530) is not drawn over it; once placed, it is."""
    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    log["units"].append({"id": "A3", "side": "A", "name": "Ranger Weapon Squad",
                         "kind": "infantry", "armour": "I2", "models": 5,
                         "damage_track": None, "square": None, "facing": 0})
    log["events"][:0] = [
        {"turn": 0, "side": "A", "unit": "A3", "action": "special", "special": "embarked",
         "target": "A2"},
        {"turn": 0, "side": "A", "unit": "A3", "action": "special", "special": "placed",
         "target": "A2", "to": 21}]
    aboard, placed = board_figure(log, step=1), board_figure(log, step=2)
    assert "RWS" not in [t.get_text() for t in aboard.axes[0].texts]
    assert "RWS" in [t.get_text() for t in placed.axes[0].texts]
