"""Safe output: checked before the work starts, written beside, swapped into place atomically.

Rules (README "Output safety"):

* Every output **folder** dustsim writes holds a marker file, :data:`MARKER`. ``--force``
  replaces only a folder holding that marker, or an empty folder. Anything else (a folder of
  your own, ``.``, your home folder, a file, a symbolic link) is refused in one line naming
  the path; nothing is touched.
* An output **file** (``--csv``, ``--chart``) is replaced with ``--force`` only when it is a
  regular file; a folder, a symbolic link or a device is refused.
* Paths are checked by :func:`check_output_dir` / :func:`check_output_file` before any
  computation, so a bad ``--out`` costs nothing.
* The new output is written into a hidden temporary sibling ``.NAME.PID-XXXXXXXX``, the
  writer's PID in its name (the one ``mkdir`` that creates it also says whose it is; the PID
  file and the marker follow inside); when complete, it is swapped with the old one by
  ``renameat2(RENAME_EXCHANGE)`` (Linux), else the old one is first renamed to the visible
  ``NAME.old-dustsim`` and removed only once the new one is in place. At every instant the
  path holds the old or the new output, never nothing.
* A killed run (SIGKILL, power loss) can leave its temporary sibling behind, at any step;
  the next run writing beside it removes every such sibling whose name names a process that
  no longer runs (and, as older versions named them ``.NAME.XXXXXXXX``, every such folder
  whose PID file names a dead process or that holds the marker and no PID file: an old
  output the dead run was deleting).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

from dustsim.errors import DustsimError

MARKER = ".dustsim-output"
PID_FILE = ".dustsim-pid"
OLD_SUFFIX = ".old-dustsim"
#: bytes the longest sibling name adds to an output's name (``.NAME.<pid>-<8 random>``)
SIBLING_EXTRA = 24
NAME_MAX = 255
PATH_MAX = 4096
#: outputs this process has put in place (folders and files, in order): a signal that lands
#: after one was published must not be reported as "no partial output was kept"
PUBLISHED: list[str] = []
_TMP_RE = r"\.{name}\.[A-Za-z0-9_]{{8}}"  # an older dustsim's folder (its PID file inside)
_TMP_FILE_RE = r"\.{name}\.(\d+)-[A-Za-z0-9_]{{8}}"  # a file or folder: the writer's PID


# -- checks before the work ---------------------------------------------------------------------
def _check_path_text(path: Path, what: str) -> None:
    text = str(path)
    if not text or text.strip() == "":
        raise DustsimError(f"{what} is empty")
    if "\0" in text:
        raise DustsimError(f"{what} {text!r} contains a NUL character")
    if len(os.fsencode(text)) > PATH_MAX:
        raise DustsimError(f"{what} is longer than {PATH_MAX} bytes; use a shorter path")
    for part in path.parts:
        if len(os.fsencode(part)) > NAME_MAX:
            raise DustsimError(f"{what}: a name in {text[:60]!r}... is longer than {NAME_MAX} "
                               "bytes; use a shorter name")
    # the output's siblings (``.NAME.<pid>-<random>``, ``NAME.old-dustsim``) must fit too
    if len(os.fsencode(path.name)) > NAME_MAX - SIBLING_EXTRA:
        raise DustsimError(f"{what}: the name {path.name[:40]!r}... is longer than "
                           f"{NAME_MAX - SIBLING_EXTRA} bytes (dustsim writes beside it under "
                           "a longer name first); use a shorter name")


def has_marker(folder: Path) -> bool:
    """``folder`` holds the marker as a regular file of its own: a symbolic link named like
    the marker does not count (``--force`` must not follow it)."""
    import stat

    try:
        return stat.S_ISREG(os.lstat(folder / MARKER).st_mode)
    except OSError:
        return False


def _check_parent(path: Path, what: str) -> None:
    parent = path.absolute().parent
    if not parent.is_dir():
        raise DustsimError(f"{what} {str(path)!r}: folder {str(parent)!r} does not exist; "
                           "create it first")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DustsimError(f"{what} {str(path)!r}: folder {str(parent)!r} is not writable")


def _protected(path: Path) -> str | None:
    """Why ``path`` may never be replaced (the working folder, a parent of it, home, /)."""
    try:
        real = path.resolve()
        cwd = Path.cwd().resolve()
    except (OSError, RuntimeError):
        return None
    if real == cwd or real in cwd.parents:
        return "is the working folder or contains it"
    home = Path.home().resolve() if "HOME" in os.environ else None
    if home is not None and (real == home or real in home.parents):
        return "is the home folder or contains it"
    if real == Path(real.anchor):
        return "is the root folder"
    return None


def is_dustsim_output(path: Path) -> bool:
    """A folder dustsim wrote (it holds the marker) or an empty folder."""
    try:
        return has_marker(path) or not any(path.iterdir())
    except OSError:
        return False


def check_output_dir(path: str | Path, force: bool, what: str = "--out") -> Path:
    """Refuse, in one line, an output folder that cannot or may not be (re)written."""
    path = Path(path)
    _check_path_text(path, what)
    if path.name in ("", ".", ".."):
        raise DustsimError(f"{what} {str(path)!r} is not a folder name; name a new folder")
    if path.is_symlink():
        raise DustsimError(f"{what} {str(path)!r} is a symbolic link; refusing to replace it; "
                           "name a new folder")
    why = _protected(path)
    if why:
        raise DustsimError(f"{what} {str(path)!r} {why}; name a new folder")
    if path.exists():
        if not path.is_dir():
            raise DustsimError(f"{what} {str(path)!r} exists and is not a folder; refusing to "
                               "replace it; name a new folder")
        if not force:
            raise DustsimError(f"{what} {str(path)!r} exists; pass --force to replace it")
        if not is_dustsim_output(path):
            raise DustsimError(f"{what} {str(path)!r} is a non-empty folder dustsim did not "
                               f"write (no {MARKER} file); refusing to replace it even with "
                               "--force; name a new folder")
    _check_parent(path, what)
    return path


def check_output_file(path: str | Path, force: bool, what: str = "--csv") -> Path:
    """Refuse, in one line, an output file that cannot or may not be (re)written."""
    path = Path(path)
    _check_path_text(path, what)
    if path.name in ("", ".", "..") or str(path).endswith(os.sep):
        raise DustsimError(f"{what} {str(path)!r} is not a file name")
    if path.is_symlink():
        raise DustsimError(f"{what} {str(path)!r} is a symbolic link; refusing to replace it")
    if path.exists():
        if path.is_dir():
            raise DustsimError(f"{what} {str(path)!r} is a folder; give a file name")
        if not path.is_file():
            raise DustsimError(f"{what} {str(path)!r} is not a regular file; refusing to "
                               "replace it")
        if not force:
            raise DustsimError(f"{what} {str(path)!r} exists; pass --force to replace it")
    _check_parent(path, what)
    return path


def check_writable(path: Path, force: bool, what: str = "output") -> None:
    """The folder check for an existing folder, else the file check."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        check_output_dir(path, force, what)
    else:
        check_output_file(path, force, what)


# -- stale temporary siblings -------------------------------------------------------------------
def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pid_in(folder: Path) -> int | None:
    try:
        return int((folder / PID_FILE).read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def clean_stale(path: Path) -> list[Path]:
    """Remove the temporary siblings of ``path`` left by dustsim runs that no longer run."""
    path = Path(path)
    parent = path.absolute().parent
    name = re.escape(path.name)
    dir_re = re.compile(_TMP_RE.format(name=name))
    file_re = re.compile(_TMP_FILE_RE.format(name=name))
    removed = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for e in entries:
        try:
            if e.is_symlink():
                continue
            if e.is_dir() and (m := file_re.fullmatch(e.name)):
                # the PID is in the name, made by the one mkdir: a run killed at any step
                # (even before it wrote anything inside) is recognised
                if not _alive(int(m.group(1))):
                    shutil.rmtree(e, ignore_errors=True)
                    removed.append(e)
            elif e.is_dir() and dir_re.fullmatch(e.name):
                pid = _pid_in(e)
                stale = (pid is not None and not _alive(pid)) or (
                    pid is None and has_marker(e))
                if stale:
                    shutil.rmtree(e, ignore_errors=True)
                    removed.append(e)
            elif e.is_file() and (m := file_re.fullmatch(e.name)) and not _alive(
                    int(m.group(1))):
                e.unlink()
                removed.append(e)
        except OSError:
            continue
    old = parent / (path.name + OLD_SUFFIX)
    if old.is_dir() and not old.is_symlink() and has_marker(old):
        shutil.rmtree(old, ignore_errors=True)
        removed.append(old)
    return removed


# -- the atomic swap ----------------------------------------------------------------------------
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2_exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2); False where unsupported."""
    import ctypes  # here, not at import: only a directory swap needs it
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                   ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM while the output is swapped (delivered right after)."""
    sigs = {signal.SIGINT, signal.SIGTERM}
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    except (AttributeError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _publish(tmp: Path, path: Path) -> None:
    with _signals_held():
        PUBLISHED.append(str(path))
        if path.exists() or path.is_symlink():
            if _renameat2_exchange(tmp, path):
                shutil.rmtree(tmp, ignore_errors=True)
                return
            old = path.with_name(path.name + OLD_SUFFIX)
            if old.exists():
                if old.is_dir() and not old.is_symlink() and has_marker(old):
                    shutil.rmtree(old)
                else:
                    raise DustsimError(f"{str(old)!r} is in the way of the replacement; "
                                       "move it away")
            path.rename(old)
            tmp.rename(path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(path)


def _temp_name(path: Path) -> Path:
    """A free ``.NAME.PID-XXXXXXXX`` sibling of ``path`` (the form ``clean_stale`` knows):
    the writer's PID is in the name, so the folder is recognisable from the moment it exists."""
    import secrets

    chars = "abcdefghijklmnopqrstuvwxyz0123456789_"
    parent = path.absolute().parent
    while True:
        rand = "".join(secrets.choice(chars) for _ in range(8))
        tmp = parent / f".{path.name}.{os.getpid()}-{rand}"
        if not os.path.lexists(tmp):
            return tmp


@contextlib.contextmanager
def atomic_dir(path: str | Path, *, force: bool = False, what: str = "--out") -> Iterator[Path]:
    """Yield a temporary folder that replaces ``path`` only if the block succeeds."""
    path = check_output_dir(path, force, what)
    clean_stale(path)
    tmp: Path | None = _temp_name(path)  # named before it exists: an interrupt right after
    try:                                  # the mkdir still finds it to clean
        try:
            os.mkdir(tmp, 0o700)
        except FileExistsError:  # taken meanwhile: not ours to remove
            taken, tmp = tmp, None
            raise DustsimError(f"{str(taken)!r} appeared while dustsim was starting to write; "
                               "run again") from None
        (tmp / PID_FILE).write_text(f"{os.getpid()}\n", encoding="ascii")
        (tmp / MARKER).write_text("written by dustsim; `--force` may replace this folder\n",
                                  encoding="utf-8")
        yield tmp
        (tmp / PID_FILE).unlink()
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes 0700; give the usual permissions
        check_output_dir(path, force, what)  # still ours to replace
        _publish(tmp, path)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise


def atomic_write_text(path: str | Path, text: str, *, force: bool = True,
                      what: str = "--csv") -> None:
    """Write a text file via a temporary sibling and ``os.replace``."""
    atomic_write_bytes(path, text.encode("utf-8"), force=force, what=what)


def atomic_write_bytes(path: str | Path, data: bytes, *, force: bool = True,
                       what: str = "--csv") -> None:
    """Write a file via a temporary sibling (named with this PID) and ``os.replace``."""
    path = check_output_file(path, force, what)
    clean_stale(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", dir=path.absolute().parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        check_output_file(path, force, what)
        with _signals_held():
            os.replace(tmp, path)
            PUBLISHED.append(str(path))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
