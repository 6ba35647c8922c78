"""The review site in a real headless browser (Chromium from the OS packages, driven by
Playwright): pages load without console errors, tables sort and filter, links resolve.

CI installs ``chromium`` (``.ci/run``); elsewhere the tests skip when it is missing."""

from pathlib import Path

import pytest
from conftest import needs_chromium, require_chromium_in_ci

require_chromium_in_ci()
pytestmark = needs_chromium


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    pg.problems = []
    pg.on("console", lambda m: pg.problems.append(f"{m.type}: {m.text}")
          if m.type in ("error", "warning") else None)
    pg.on("pageerror", lambda e: pg.problems.append(f"pageerror: {e}"))
    pg.on("requestfailed", lambda r: pg.problems.append(f"failed: {r.url}"))
    yield pg
    ctx.close()


def _open(page, path: Path):
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-tables-ready]", timeout=20_000)


def test_every_page_loads_clean(page, small_report):
    for path in sorted(small_report.rglob("*.html")):
        if path.parent.name == "tables":
            continue
        page.goto(path.as_uri())
        if page.locator("table.dt").count():
            page.wait_for_selector("body[data-tables-ready]", timeout=20_000)
        assert not page.problems, f"{path.relative_to(small_report)}: {page.problems}"
        # every link on the page resolves (files on disk, anchors on their page)
        for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
            assert href.startswith("file://"), href
            target = Path(href.split("#")[0][len("file://"):])
            target = target / "index.html" if target.is_dir() else target
            assert target.exists(), f"{path.name}: {href}"


def _column_values(page, table, col: int) -> list[str]:
    return page.eval_on_selector_all(
        f"{table} tbody tr", f"rows => rows.map(r => r.cells[{col}].innerText)")


def test_tables_sort_filter_search(page, small_report):
    _open(page, small_report / "sections" / "rankings.html")
    table = "#scores table.dt"
    headers = page.eval_on_selector_all(f"{table} thead tr:first-child th",
                                        "ths => ths.map(t => t.innerText)")
    col = next(i for i, h in enumerate(headers) if h.startswith("Cost"))
    th = f"{table} thead tr:first-child th:nth-child({col + 1})"
    page.click(th)
    page.wait_for_selector(f"{th}[aria-sort=ascending]")  # the redraw is done
    asc = [float(v) for v in _column_values(page, table, col)]
    page.click(th)
    page.wait_for_selector(f"{th}[aria-sort=descending]")
    desc = [float(v) for v in _column_values(page, table, col)]
    assert asc == sorted(asc) and desc == sorted(desc, reverse=True) and asc != desc
    # a column filter
    unit = headers.index("Unit")
    page.fill(f"{table} thead tr.filters th:nth-child({unit + 1}) input", "Pound")
    assert _column_values(page, table, unit) == ["Pounder"]
    page.fill(f"{table} thead tr.filters th:nth-child({unit + 1}) input", "")
    assert len(_column_values(page, table, unit)) == 3
    # the global search box
    page.fill("#scores input[type=search]:not(tr.filters input)", "Ludwig")
    assert _column_values(page, table, unit) == ["Ludwig"]
    # the name links to the card's page
    page.click(f"{table} tbody a")
    page.wait_for_selector("body[data-tables-ready]")
    assert page.url.endswith("cards/ludwig.html")
    assert page.locator("h1").inner_text() == "Ludwig"
    assert not page.problems, page.problems


def test_card_page_tables(page, small_report):
    _open(page, small_report / "cards" / "pounder.html")
    assert page.locator("#offence-table table.dt tbody tr").count() == 14  # a page of rows
    assert page.locator("td.bars span.bar").count() > 14  # damage distributions drawn
    info = page.locator("#offence-table .dt-info").inner_text()
    assert "56" in info  # 14 columns x Attack/Sustained x open/cover, all present
    assert not page.problems, page.problems
