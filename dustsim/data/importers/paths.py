"""Output file names from imported data: a fixed table of known blocs, or a checked slug.

Importer data (an ENLIST ``bloc``, a facts-CSV ``bloc`` column) never becomes a path as it
stands: a bloc the table knows gets its file name from the table; any other bloc must be a
plain name (ASCII letters, digits, spaces, hyphens; at most :data:`MAX_SLUG` characters)
and is written as its lower-case slug. ``..``, ``/``, absolute paths and empty names are
refused in one line naming the file, entry and field.
"""

from __future__ import annotations

import re
from pathlib import Path

from dustsim.errors import DustsimError

#: bloc (as printed) -> file name; the blocs of the bundled data
BLOC_FILES: dict[str, str] = {"Allies": "allies.toml", "Axis": "axis.toml", "SSU": "ssu.toml",
                              "Mercenaries": "mercenaries.toml", "Mythos": "mythos.toml",
                              "IJN": "ijn.toml"}
MAX_SLUG = 40
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 -]*")


def bloc_file(bloc: str, *, file: str | None = None, unit: str | None = None,
              empty: str | None = None) -> str:
    """The file name for ``bloc``: from :data:`BLOC_FILES`, else its checked slug.

    ``empty``: the file name of an empty bloc (None: an empty bloc is refused)."""
    if not isinstance(bloc, str):
        raise DustsimError(f"bloc {bloc!r} is not a string", file=file, unit=unit, field="bloc")
    name = bloc.strip()
    if not name:
        if empty is not None:
            return empty
        raise DustsimError("empty bloc; give the bloc's name (known: "
                           f"{', '.join(BLOC_FILES)})", file=file, unit=unit, field="bloc")
    for known, fname in BLOC_FILES.items():
        if name.casefold() == known.casefold():
            return fname
    if len(name) > MAX_SLUG or not _PLAIN.fullmatch(name):
        from dustsim.data.names import did_you_mean

        raise DustsimError(f"bloc {name[:60]!r} is not a known bloc ({', '.join(BLOC_FILES)})"
                           f"{did_you_mean(name[:60], BLOC_FILES)} nor a plain name (letters, "
                           f"digits, spaces, hyphens; at most {MAX_SLUG} characters)",
                           file=file, unit=unit, field="bloc")
    return re.sub(r"[ -]+", "-", name.lower()).strip("-") + ".toml"


def inside(folder: Path, rel: str) -> Path:
    """``folder / rel``, refused unless it stays inside ``folder`` (no ``..``, no absolute
    path, no empty or hidden name)."""
    p = Path(rel)
    parts = p.parts
    if (not parts or p.is_absolute() or p.anchor
            or any(x in ("", ".", "..") or x.startswith(".") for x in parts)):
        raise DustsimError(f"output file name {rel!r} would leave the output folder or be "
                           "hidden; refused", field="output")
    dest = folder / p
    base = folder.resolve()
    if base not in dest.resolve().parents:
        raise DustsimError(f"output file name {rel!r} would leave the output folder; refused",
                           field="output")
    return dest
