"""The replay page in headless Chromium (OS package, driven by Playwright, as
``test_browser.py`` drives the review site): no console errors, the step control moves the
game forward and back, and what the page shows follows the hand-written log.

CI installs ``chromium``; elsewhere the tests skip when it is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import needs_chromium, require_chromium_in_ci

from dustsim.review.replay import event_text, write_replay

FIXTURE = Path(__file__).parent / "data" / "replay_small.json"

require_chromium_in_ci()
pytestmark = needs_chromium


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1360, "height": 1000})
    pg = ctx.new_page()
    pg.problems = []
    pg.on("console", lambda m: pg.problems.append(f"{m.type}: {m.text}")
          if m.type in ("error", "warning") else None)
    pg.on("pageerror", lambda e: pg.problems.append(f"pageerror: {e}"))
    pg.on("request", lambda r: pg.problems.append(f"request: {r.url}")
          if not r.url.startswith("file://") else None)
    yield pg
    ctx.close()


@pytest.fixture(scope="module")
def replay(tmp_path_factory) -> tuple[Path, dict]:
    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    path = write_replay(log, tmp_path_factory.mktemp("replay") / "game.html")
    return path, log


def _step(page) -> int:
    return int(page.get_attribute("body", "data-step"))


def _at(page, n: int) -> None:
    page.wait_for_selector(f"body[data-step='{n}']")


def test_replay_steps(page, replay):
    path, log = replay
    n = len(log["events"])
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    assert _step(page) == 0
    assert page.inner_text("#step-no") == f"Step 0 of {n}"
    # the set-up: every unit drawn on its square, none destroyed
    assert page.locator("#board g.unit").count() == 4
    setup_text = page.inner_text("#step-text")
    page.click("#next")
    _at(page, 1)
    assert page.inner_text("#step-text") == event_text(log, 0) != setup_text
    assert "initiative: side A" in page.inner_text("#turn-info")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    _at(page, 3)
    assert page.inner_text("#step-text") == event_text(log, 2)  # the Rangers' move
    assert page.locator("#board polyline").count() == 1  # its path
    assert page.inner_text("#units tbody tr:nth-child(1) td:nth-child(3)") == "c3"
    page.keyboard.press("ArrowRight")
    _at(page, 4)  # the attack: a sight line marked "cover", the dice, the casualty
    assert page.locator("#board line").count() == 1
    assert "cover" in page.eval_on_selector("#board", "s => s.textContent")
    assert page.locator("#details .die").count() == 5
    assert page.locator("#details .die.P").count() == 2
    assert page.inner_text("#units tbody tr:nth-child(3) td:nth-child(4)") == "2/3"
    page.keyboard.press("ArrowLeft")
    _at(page, 3)
    assert page.locator("#board line").count() == 0
    assert page.inner_text("#units tbody tr:nth-child(3) td:nth-child(4)") == "3/3"
    # the slider: straight to the squad's destruction
    page.eval_on_selector("#slider", "s => { s.value = '19'; "
                          "s.dispatchEvent(new Event('input', {bubbles: true})); }")
    _at(page, 19)
    assert page.inner_text("#step-text") == "Heavy Laser Grenadier Squad 1 is destroyed."
    assert "gone" in page.get_attribute("#units tbody tr:nth-child(3)", "class")
    assert page.get_attribute("#board g.unit[data-unit='B1']", "opacity") == "0.38"
    # the event list: a click jumps there and marks it
    page.click("#events li[data-step='13']")
    _at(page, 13)
    assert page.get_attribute("#events li[data-step='13']", "class").endswith("current")
    assert page.locator("#details .die").count() == 7  # 4 rolled, 3 re-rolled
    # play runs on by itself until paused
    page.click("#play")
    _at(page, 14)
    _at(page, 15)
    page.click("#play")
    stopped = _step(page)
    page.keyboard.press("End")
    _at(page, n)
    assert stopped < n
    assert "Side A wins by victory points" in page.inner_text("#step-text")
    page.keyboard.press("PageUp")  # back to the start of turn 2
    _at(page, 16)
    page.keyboard.press("Home")
    _at(page, 0)
    assert not page.problems, page.problems


def test_replay_screenshot(page, replay, tmp_path):
    """A picture of a step in mid-game (looked at by a person when the page changes)."""
    path, _ = replay
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    page.click("#events li[data-step='10']")
    _at(page, 10)
    out = tmp_path / "replay.png"
    page.screenshot(path=str(out), full_page=True)
    assert out.stat().st_size > 20_000
    assert not page.problems, page.problems


def test_real_game_page(page, tmp_path):
    """A battle's own log (9 x 12 Firefight; side A enters from the far edge as the defender)
    plays to its end without a console error."""
    log = json.loads((Path(__file__).parent / "data" / "replay_firefight.json")
                     .read_text(encoding="utf-8"))
    path = write_replay(log, tmp_path / "firefight.html")
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    # A deploys at the top row here: the edges are named from the zones
    assert "side A" in page.inner_html("#edge-top") and "side B" in page.inner_html(
        "#edge-bottom")
    page.keyboard.press("PageDown")
    page.keyboard.press("PageDown")
    _at(page, next(i + 1 for i, e in enumerate(log["events"]) if e["turn"] == 2))
    page.keyboard.press("End")
    _at(page, len(log["events"]))
    assert page.locator("#units tr.gone").count() == sum(
        e["action"] == "destroyed" for e in log["events"])
    assert not page.problems, page.problems


def test_close_combat_objective_exit(page, tmp_path):
    from test_replay import late_game

    log = late_game(json.loads(FIXTURE.read_text(encoding="utf-8")))
    path = write_replay(log, tmp_path / "late.html")
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    page.click("#events li[data-step='28']")  # the close combat: an orange line
    _at(page, 28)
    assert page.get_attribute("#board line", "stroke") == "#d9480f"
    assert page.text_content("#step-tag") == "Close combat"
    page.click("#events li[data-step='30']")  # objective 1 (h5) now framed in A's colour
    _at(page, 30)
    frames = page.eval_on_selector_all("#board rect[rx='6']", "rs => rs.map(r => "
                                       "r.getAttribute('stroke'))")
    assert "#1d5fbf" in frames
    units_before = page.locator("#board g.unit").count()
    page.click("#events li[data-step='33']")  # the Rangers leave the board
    _at(page, 33)
    assert page.locator("#board g.unit").count() == units_before - 1
    assert page.inner_text("#units tbody tr:nth-child(1) td:nth-child(3)") == "—"
    assert not page.problems, page.problems


def test_a_large_vehicle_is_drawn_over_both_its_squares(page, tmp_path):
    """A Large vehicle (``footprint`` 2) holds its square and the one behind it (L504):
    the Pounder on i2 facing B's edge also holds i1 — one outline over both, and the
    units table names both squares."""
    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    pounder = next(u for u in log["units"] if u["id"] == "A2")
    assert pounder["square"] == 20 and pounder["facing"] == 0  # i2, towards row + 1
    pounder["footprint"] = 2
    log["events"] = log["events"][:2]  # the set-up and the first steps only
    path = write_replay(log, tmp_path / "large.html")
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    box = page.locator("#board g.unit[data-unit='A2'] rect.footprint")
    assert box.count() == 1
    cell = float(page.get_attribute("#board g.unit[data-unit='A2'] rect.footprint", "width"))
    tall = float(page.get_attribute("#board g.unit[data-unit='A2'] rect.footprint", "height"))
    assert tall > 1.8 * cell  # two squares in a column, one wide
    assert page.locator("#board g.unit[data-unit='A1'] rect.footprint").count() == 0
    assert "i2+i1" in page.inner_text("#units")
    assert page.problems == []


def test_a_special_action_is_named_in_the_step_tag(page, tmp_path):
    """A special action's tag names it (it read 'undefined' for the grid's special events)."""
    log = json.loads((Path(__file__).parent / "data" / "replay_firefight.json")
                     .read_text(encoding="utf-8"))
    log["events"][5:5] = [{"turn": 1, "side": "A", "unit": 0, "action": "special",
                           "special": "psychic-scream", "square": 72, "target": 8, "hits": 1,
                           "damage": 1, "casualties": 1, "text": "A scream."}]
    path = write_replay(log, tmp_path / "special.html")
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    page.click("#events li[data-step='6']")
    _at(page, 6)
    assert page.text_content("#step-tag") == "Special: psychic-scream"
    assert not page.problems, page.problems
