"""One error type for bad input: it names the file, unit and field in one line."""

from __future__ import annotations


def printable(text: object) -> str:
    """``text`` safe to print on one terminal line: control and format characters (ANSI
    escapes, carriage returns, newlines, bidirectional overrides) written as ``\\x1b``-style
    escapes, so a name from a file cannot forge or hide output (``fake: legal``)."""
    import unicodedata

    s = str(text)
    if s.isprintable():
        return s
    out = []
    for ch in s:
        if ch == " " or unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp"):
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii") if ord(ch) < 0x10000
                       else f"\\U{ord(ch):08x}")
    return "".join(out)


class DustsimError(Exception):
    """Bad input or an impossible request. ``str()`` is a one-line message for the CLI."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        unit: str | None = None,
        weapon: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.unit = unit
        self.weapon = weapon
        self.field = field

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(str(self.file))
        if self.unit:
            parts.append(f"unit {self.unit!r}")
        if self.weapon:
            parts.append(f"weapon {self.weapon!r}")
        if self.field:
            parts.append(f"field {self.field!r}")
        where = ": ".join(parts)
        msg = " ".join(self.message.split())
        return printable(f"{where}: {msg}" if where else msg)
