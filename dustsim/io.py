"""Atomic output: everything is written to a temporary sibling and moved into place at the end.

An interrupted command (error, Ctrl-C) leaves no half-written file or folder, and an existing
output is replaced only with ``force``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import DustsimError


def check_writable(path: Path, force: bool) -> None:
    if path.exists() and not force:
        raise DustsimError(f"{path} exists; pass --force to overwrite it")


@contextlib.contextmanager
def atomic_dir(path: str | Path, *, force: bool = False) -> Iterator[Path]:
    """Yield a temporary directory that replaces ``path`` only if the block succeeds."""
    path = Path(path)
    check_writable(path, force)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes 0700; give the usual permissions
    old = None
    if path.exists():
        old = path.with_name(f".{path.name}.old.{os.getpid()}")
        path.rename(old)
    tmp.rename(path)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def atomic_write_text(path: str | Path, text: str, *, force: bool = True) -> None:
    """Write a text file via a temporary file and ``os.replace``."""
    path = Path(path)
    check_writable(path, force)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
