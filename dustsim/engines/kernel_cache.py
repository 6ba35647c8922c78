"""Keep Numba's on-disk cache coherent across the kernel modules.

Numba's ``cache=True`` checks only the source file of the function it compiled, but our kernels
inline each other (the duel kernel compiles ``kernel._trial``, every kernel compiles
``rng.binom``). After an edit of one module (or a ``git checkout`` that changes only it), the
cached machine code of the others would keep the old code. So, once per process and before any
kernel is compiled, the cache files of this package's kernel modules are dropped when the
combined hash of their sources differs from the hash stamped beside the cache.

It touches only the ``__pycache__/*.nbi|*.nbc`` files of the modules below (paths relative to
the package folder); a read-only install (whose files all change together on upgrade anyway) is
left alone.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

MODULES = ("engines/rng", "engines/kernel", "play/duel_kernel", "play/list_battles", "play/epic",
           "play/battle_kernel", "review/value")
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
