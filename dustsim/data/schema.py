"""Schema checks shared by every input format: unknown keys, types and integer ranges.

Each input format (unit TOML, TOML lists, rosters, ENLIST JSON, BattleScribe XML, facts CSV,
patch files) states its keys and types next to its reader; these helpers turn a mismatch
into one :class:`~dustsim.errors.DustsimError` line naming the file, entry and field, with
the closest valid key offered for a misspelt one (``skils`` -> ``skills``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dustsim.errors import DustsimError

#: the largest integer any input field may hold (far above every printed number; keeps
#: arithmetic and Numba's int64 away from overflow)
INT_MAX = 10**9

_TYPE_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
               list: "a list", dict: "a table", type(None): "null"}


def unknown_key_message(key: str, allowed: Iterable[str]) -> str:
    """"unknown key 'skils'; did you mean 'skills'? (valid: ...)"."""
    from dustsim.data.names import did_you_mean

    allowed = list(allowed)
    return (f"unknown key {str(key)[:60]!r}{did_you_mean(str(key)[:60], allowed, 1)} "
            f"(valid: {', '.join(allowed)})")


def unknown_keys(d: dict, allowed: Iterable[str]) -> list[tuple[str, str]]:
    """``(key, message)`` for every key of ``d`` outside ``allowed``, in file order."""
    allowed = list(allowed)
    return [(str(k), unknown_key_message(k, allowed)) for k in d if k not in allowed]


def check_keys(d: dict, allowed: Iterable[str], *, file: str | None = None,
               unit: str | None = None, weapon: str | None = None, prefix: str = "") -> None:
    """Raise on the first key of ``d`` outside ``allowed``."""
    bad = unknown_keys(d, allowed)
    if bad:
        key, msg = bad[0]
        raise DustsimError(msg, file=file, unit=unit, weapon=weapon, field=prefix + key)


def type_word(types: tuple[type, ...]) -> str:
    return " or ".join(_TYPE_WORDS.get(t, t.__name__) for t in types)


def check_type(d: dict, key: str, types: tuple[type, ...], *, file: str | None = None,
               unit: str | None = None, weapon: str | None = None, prefix: str = "",
               lo: int | None = None, hi: int | None = None) -> Any:
    """``d[key]`` (None when absent) if it has one of ``types`` (bool is not an integer),
    and, for an integer, lies in ``[lo, hi]`` (default ``[-INT_MAX, INT_MAX]``)."""
    if key not in d:
        return None
    v = d[key]
    ok = isinstance(v, types) and not (isinstance(v, bool) and bool not in types)
    if not ok:
        raise DustsimError(f"must be {type_word(types)}, got {short(v)}", file=file, unit=unit,
                           weapon=weapon, field=prefix + key)
    if isinstance(v, int) and not isinstance(v, bool):
        lo_ = -INT_MAX if lo is None else lo
        hi_ = INT_MAX if hi is None else hi
        if not lo_ <= v <= hi_:
            raise DustsimError(f"must be an integer from {lo_} to {hi_}, got {short(v)}",
                               file=file, unit=unit, weapon=weapon, field=prefix + key)
    return v


def short(v: Any, n: int = 40) -> str:
    """``repr(v)`` cut to ``n`` characters (a 5,000-digit integer stays one short line)."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10**n:
        return f"an integer of about {int(v.bit_length() * 0.30103) + 1} digits"
    r = repr(v)
    return r if len(r) <= n else r[: n - 3] + "..."


def read_input_text(path: str | Path, *, cap: int | None = None, what: str = "file") -> str:
    """The UTF-8 text of a user's input file, refused in one line (naming the file) when it is
    not a regular file (``/dev/zero``, a FIFO, a folder: read forever or never), over ``cap``
    bytes (default :data:`dustsim.limits.FILE_BYTES`), missing or not UTF-8."""
    import stat

    from dustsim.limits import FILE_BYTES

    path = Path(path)
    cap = FILE_BYTES if cap is None else cap
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise DustsimError(f"{what}: not a regular file", file=str(path))
        if st.st_size > cap:
            raise DustsimError(f"{what}: {st.st_size:,} bytes, over the cap of {cap:,}",
                               file=str(path))
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise DustsimError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    except UnicodeDecodeError:
        raise DustsimError(f"{what}: not UTF-8 text", file=str(path)) from None
