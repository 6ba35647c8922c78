"""A disk cache of parsed and validated cards: a command that needs two cards does not parse
every unit file (about 0.2 s of the 0.3 s an exact ``dustsim attack`` may take).

The key is a hash of everything the result depends on: each unit file's path and bytes, the
source of the modules that parse and validate them (``dustsim/data``, ``dustsim/rules``,
``limits``, ``errors``), and the Python version. Any change gives a new key, so a stale entry
is never read; only a load without problems is stored. The cache lives in
``$DUSTSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/dustsim``, else ``~/.cache/dustsim``;
``DUSTSIM_CARD_CACHE=0`` turns it off. A cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
SOURCES = ("data", "rules", "limits.py", "errors.py")
KEEP = 4  # cache files kept (one per data set and code version)


def cache_dir() -> Path:
    env = os.environ.get("DUSTSIM_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "dustsim"


def enabled() -> bool:
    return os.environ.get("DUSTSIM_CARD_CACHE", "1") not in ("0", "", "no", "false")


def key(files: Iterable[Path]) -> str:
    """Hash of the unit files (paths and bytes), the parsing code and the Python version."""
    h = hashlib.blake2b(digest_size=16)
    h.update(sys.version.encode())
    code = []
    for s in SOURCES:
        p = PACKAGE / s
        code += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    for f in [*code, *files]:
        h.update(str(f).encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()


def cached(files: list[Path], load: Callable[[], list]) -> list:
    """``load()``, or the cards it returned before for the same files and code."""
    import stat

    from dustsim.limits import FILE_BYTES

    if not enabled():
        return load()
    try:
        # only regular files within the size cap are hashed (``/dev/zero`` would be read until
        # memory runs out); anything else goes to ``load()``, which refuses it in one line
        for f in files:
            st = f.stat()
            if not stat.S_ISREG(st.st_mode) or st.st_size > FILE_BYTES:
                return load()
        k = key(files)
    except OSError:
        return load()
    path = cache_dir() / f"cards-{k}.pickle"
    try:
        return pickle.loads(path.read_bytes())
    except Exception:  # absent, unreadable or from another version: load afresh
        pass
    cards = load()
    store(path, cards, "cards-*.pickle", KEEP)
    return cards


def store(path: Path, obj: object, pattern: str, keep: int) -> None:
    """Pickle ``obj`` to ``path`` atomically (a temporary file, then a rename) and keep the
    newest ``keep`` files of the folder matching ``pattern``; a cache that cannot be written
    is ignored (the card cache and :mod:`dustsim.review.value_cache`)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, path)
        old = sorted(path.parent.glob(pattern), key=lambda p: p.stat().st_mtime)
        for p in old[:-keep]:
            p.unlink(missing_ok=True)
    except OSError:
        pass
