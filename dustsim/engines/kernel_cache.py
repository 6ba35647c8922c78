"""Keep Numba's on-disk cache coherent across the kernel modules.

Numba's ``cache=True`` checks only the source file of the function it compiled, but our kernels
inline each other (the duel kernel compiles ``kernel._trial``, every kernel compiles
``rng.binom``). After an edit of one module (or a ``git checkout`` that changes only it), the
cached machine code of the others would keep the old code. So, once per process and before any
kernel is compiled, the cache files of this package's kernel modules are dropped when the
combined hash of their sources differs from the hash stamped beside the cache.

The modules (:data:`MODULES`, paths relative to the package folder) are derived, not listed by
hand: every module that compiles a Numba kernel (imports ``numba``), and every dustsim module
such a module imports (at any depth: a kernel built inside a function sees that function's
imports), since their constants and functions are compiled into the kernels
(``play/duel_layout``'s constants into the duel kernels, ``rules/attack``'s allocation codes
into the attack kernel). It touches only the ``__pycache__/*.nbi|*.nbc`` files of those
modules; a read-only install (whose files all change together on upgrade anyway) is left
alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from pathlib import Path

_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)"
                     rb"|import[ \t]+([^\n#]*))", re.M)


def _imports(src: bytes) -> set[str]:
    """Every module (and ``module.name``) an import statement of ``src`` names."""
    out = set()
    for frm, names, plain in _IMPORT.findall(src):
        if frm:
            mod = frm.decode()
            out.add(mod)
            for n in names.strip(b"()").split(b","):
                if n.split():
                    out.add(f"{mod}.{n.split()[0].decode()}")
        else:
            out.update(n.split()[0].decode() for n in plain.split(b",") if n.split())
    return out


def kernel_modules(root: Path) -> tuple[str, ...]:
    """The kernel modules under the package folder ``root`` and the dustsim modules they
    import (sorted paths without ``.py``)."""
    kernels, deps = set(), set()
    for f in sorted(root.rglob("*.py")):
        src = f.read_bytes()
        if b"numba" not in src:  # cheap filter before reading the imports
            continue
        imported = _imports(src)
        if any(m == "numba" or m.startswith("numba.") for m in imported):
            kernels.add(f.relative_to(root).with_suffix("").as_posix())
            for m in imported:
                rel = Path(*m.split(".")[1:]) if m.startswith(f"{root.name}.") else None
                if rel is not None and (root / rel).with_suffix(".py").is_file():
                    deps.add(rel.as_posix())
    return tuple(sorted(kernels | deps))


MODULES = kernel_modules(Path(__file__).resolve().parents[1])
_done = False


def sources_hash(root: Path) -> str:
    h = hashlib.sha256()
    for m in MODULES:
        p = root / f"{m}.py"
        if p.exists():
            h.update(m.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def refresh(root: Path | None = None) -> bool:
    """Drop stale kernel cache files; ``True`` when files were dropped. Idempotent."""
    global _done
    if _done and root is None:
        return False
    _done = _done or root is None
    root = Path(__file__).resolve().parents[1] if root is None else root
    stamp = root / "__pycache__" / "dustsim-kernels.stamp"
    digest = sources_hash(root)
    with contextlib.suppress(OSError):
        if stamp.read_text() == digest:
            return False
    dropped = False
    with contextlib.suppress(OSError):
        for m in MODULES:
            folder, name = (root / m).parent / "__pycache__", Path(m).name
            for f in list(folder.glob(f"{name}.*.nbi")) + list(folder.glob(f"{name}.*.nbc")):
                f.unlink()
                dropped = True
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    return dropped
