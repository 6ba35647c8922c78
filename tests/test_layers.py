"""Layers run one way (README, "Package layout"): every import of every dustsim module, the
function-level ones included, goes to its own layer or a lower one, and no two subpackages
import each other."""

import ast
import functools
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "dustsim"

#: the layers, lowest first; a module may import its own layer and the ones before it.
#: ``api`` (the Python API), ``bench`` and ``aot_build`` (it imports every kernel) sit on the
#: review layer; the command line is the shell over all of them, and ``python -m dustsim``
#: over that.
LAYERS = ("data", "rules", "engines", "play", "army", "review", "api", "cli", "__main__")
#: top-level modules that form a layer with others
GROUPS = {"bench": "api", "aot_build": "api"}
#: base utilities, importable from anywhere; they import nothing of dustsim's layers
BASE = ("errors", "limits", "io")


def _module(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _root_constants() -> set[str]:
    """Names ``dustsim/__init__.py`` assigns itself (``DEFAULT_TRIALS``, ``__version__``...):
    importing them is importing a base constant, not the curated API it re-exports."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    return {t.id for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


def rank(module: str) -> tuple[int, str]:
    """(layer rank, layer) of a dustsim module: base -1, then the layers in order."""
    parts = module.split(".")
    first = GROUPS.get(parts[1], parts[1]) if len(parts) > 1 else "__main__"
    if first in BASE:
        return -1, "base"
    if first in LAYERS:
        return LAYERS.index(first), first
    raise AssertionError(f"{module} is in no layer: add it to tests/test_layers.py and the "
                         f"README's table")


@functools.cache
def imports(path: Path) -> list[tuple[int, str]]:
    """(line, dustsim module) of every import in the file, at any depth."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    constants = _root_constants()
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("dustsim")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            if base == "dustsim":  # from dustsim import io / api / DEFAULT_TRIALS
                for a in node.names:
                    if a.name in constants:
                        out.append((node.lineno, "dustsim.limits"))  # a base constant
                    else:
                        out.append((node.lineno, f"dustsim.{a.name}"))
            elif base.startswith("dustsim"):
                out.append((node.lineno, base))
    return sorted(out)


def _files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer():
    for f in _files():
        rank(_module(f))


def test_imports_go_down_only():
    bad = []
    for f in _files():
        mod = _module(f)
        if mod == "dustsim":
            continue  # the package root: constants, and the curated API re-exported lazily
        r, group = rank(mod)
        for line, target in imports(f):
            t, tgroup = rank(target)
            if t > r:
                bad.append(f"{f.relative_to(PACKAGE.parent)}:{line}: {mod} ({group}) imports "
                           f"{target} ({tgroup})")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_no_cycle_between_subpackages():
    edges: dict[str, dict[str, str]] = {}
    for f in _files():
        mod = _module(f)
        if mod == "dustsim":
            continue
        _, group = rank(mod)
        for line, target in imports(f):
            _, tgroup = rank(target)
            if tgroup != group:
                edges.setdefault(group, {}).setdefault(
                    tgroup, f"{f.relative_to(PACKAGE.parent)}:{line}")
    def reach(a: str) -> set[str]:
        seen, todo = set(), [a]
        while todo:
            for b in edges.get(todo.pop(), {}):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return seen

    # an import a -> b closes a cycle when a can be reached back from b
    cycles = [f"{a} -> {b} ({where}) and back" for a, out in sorted(edges.items())
              for b, where in sorted(out.items()) if a in reach(b)]
    assert not cycles, "cycles between subpackages:\n" + "\n".join(cycles)


def test_the_checker_sees_function_level_and_relative_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "dustsim"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("DEFAULT_TRIALS = 1\n")
    f = pkg / "data" / "x.py"
    f.write_text("def g():\n    from dustsim.review import value\n    from ..cli import shell\n"
                 "    from dustsim import DEFAULT_TRIALS, api\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    assert imports.__wrapped__(f) == [(2, "dustsim.review"), (3, "dustsim.cli"),
                          (4, "dustsim.api"), (4, "dustsim.limits")]
