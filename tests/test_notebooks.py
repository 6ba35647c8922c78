"""The notebooks run top to bottom on a fresh install (small trial counts), and are stored
without outputs."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_the_notebooks_the_readme_describes_are_the_ones_run():
    # README "Notebooks": expected kills, ranking units, a balance review, an army list; a
    # notebook lost or renamed would otherwise just drop out of the parametrised tests below
    assert [p.stem for p in NOTEBOOKS] == ["01_expected_kills", "02_rank_units",
                                            "03_balance_review", "04_my_list"]
    for p in NOTEBOOKS:
        first = nbformat.read(p, as_version=4).cells[0]
        assert first.cell_type == "markdown" and first.source.startswith("# "), p.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path, monkeypatch):
    """Run with Jupyter's own (inline) backend: chart cells must show an image, the
    calculator its widget."""
    monkeypatch.setenv("DUSTSIM_QUICK", "1")
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=240, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors
    charts = [c for c in code if "chart" in c.metadata.get("tags", [])]
    assert charts, "every notebook shows at least one chart"
    for i, c in enumerate(code):
        # every chart exactly once: a figure made through pyplot would be drawn a second
        # time by the inline backend beside the cell's value (issue 26)
        images = sum("image/png" in o.get("data", {}) for o in c.outputs)
        expected = 1 if c in charts else 0
        assert images == expected, f"code cell {i}: {images} images\n{c.source}"
    for c in code:
        if "widget" in c.metadata.get("tags", []):
            kinds = {k for o in c.outputs for k in o.get("data", {})}
            assert "application/vnd.jupyter.widget-view+json" in kinds, c.source
    results = [o for c in code for o in c.outputs if "text/html" in o.get("data", {})
               and "AttackResult" in o["data"].get("text/plain", "")]
    for o in results:  # a result shows its headline, not its arrays
        assert len(o["data"]["text/plain"]) < 400
