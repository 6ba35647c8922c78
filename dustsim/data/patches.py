"""Balance proposals (patch files): read a TOML of changes into patched copies of cards.

Moved out of :mod:`dustsim.review.value` (which re-exports it) so that patch loading sits in
the data layer with the other input formats."""
from __future__ import annotations

from dataclasses import fields, replace

from dustsim.data.cards import COLUMNS, Card
from dustsim.data.schema import check_keys, short
from dustsim.errors import DustsimError


def _norm(s: str) -> str:
    return " ".join(s.strip().lower().replace("-", " ").split())


PATCH_FIELDS = ("ap", "cells", "skills", "add_skills", "remove_skills", "move",
                "march_move", "models", "damage_track", "armour")
#: every key a [[change]] table may hold (``weapon``: the [[change.weapon]] tables)
CHANGE_KEYS = ("unit", "weapon", *PATCH_FIELDS)
MAX_PATCH_BYTES = 1 << 20
MAX_CHANGES = 1000


def _skill_list(ch: dict, key: str, where: str, name: str) -> list[str]:
    v = ch.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise DustsimError(f"must be a list of skill names, got {short(v)}", file=where,
                           unit=name, field=key)
    return v


def load_patch(path, cards: list[Card]) -> dict[str, Card]:
    """Read a balance proposal (TOML) into patched copies of the named cards.

    Format (one table per change; every key optional)::

        [[change]]
        unit = "Pounder"
        ap = 12
        cells = { "Antitank Gun:V4" = "3/3" }   # WEAPON:COLUMN = cell
        skills = ["Damage Resilient"]            # replaces the skills
        add_skills = ["Lucky"]
        remove_skills = ["Charge"]
        move = 2
        [[change.weapon]]                        # replaces the weapon of that name, or adds
        name = "Antitank Gun"                    # one (same fields as a unit file)
        range = "8"
        line = ["-", ...]

    Every error names the file, the change's line, the unit and the field, exit code 2."""
    import tomllib
    from pathlib import Path

    from dustsim.data.cards import _weapon_from_dict, card_from_dict, card_to_dict, parse_cell

    path = Path(path)
    try:
        if path.is_file() and path.stat().st_size > MAX_PATCH_BYTES:
            raise DustsimError(f"larger than the cap of {MAX_PATCH_BYTES:,} bytes",
                               file=str(path), field="--patch")
        text = path.read_bytes().decode("utf-8")
        doc = tomllib.loads(text)
    except OSError as exc:
        raise DustsimError(exc.strerror or str(exc), file=str(path), field="--patch") from None
    except (ValueError, RecursionError) as exc:  # bad UTF-8 or TOML, 5,000-digit integers
        msg = " ".join(str(exc).split())[:120] or "nested too deeply"
        raise DustsimError(f"not a TOML file: {msg}", file=str(path), field="--patch") from None
    check_keys(doc, ("change",), file=str(path))
    lines = [i + 1 for i, ln in enumerate(text.splitlines()) if ln.strip() == "[[change]]"]
    changes = doc.get("change")
    if not isinstance(changes, list) or not changes:
        raise DustsimError("no [[change]] tables", file=str(path), field="change")
    if len(changes) > MAX_CHANGES:
        raise DustsimError(f"{len(changes)} changes; a patch holds at most {MAX_CHANGES}",
                           file=str(path), field="change")
    by_name = {c.name.lower(): c for c in cards}
    out: dict[str, Card] = {}
    for i, ch in enumerate(changes):
        where = f"{path}:{lines[i] if i < len(lines) else '?'}"
        if not isinstance(ch, dict):
            raise DustsimError("a change must be a table", file=where, field="change")
        name = ch.get("unit")
        if not isinstance(name, str) or name.lower() not in by_name:
            from dustsim.data.names import did_you_mean

            hint = did_you_mean(name, (c.name for c in cards)) if isinstance(name, str) else ""
            raise DustsimError(f"no card named {short(name)}{hint}", file=where, field="unit")
        check_keys(ch, CHANGE_KEYS, file=where, unit=name)
        card = out.get(by_name[name.lower()].name, by_name[name.lower()])
        raw = card_to_dict(card)
        raw["edition"] = card.edition
        for k in ("ap", "move", "march_move", "models", "damage_track", "armour"):
            if k in ch:
                raw[k] = ch[k]
        ap = ch.get("ap")
        if isinstance(ap, int | float) and not isinstance(ap, bool) and not ap > 0:
            raise DustsimError(f"a proposed cost must be above 0 AP, got {short(ap)} (the value "
                               "model judges cost per AP)", file=where, unit=name, field="ap")
        if "models" in ch:
            raw["models_source"] = "card"
        skills = list(_skill_list(ch, "skills", where, name) if "skills" in ch
                      else raw.get("skills", []))
        for s in _skill_list(ch, "add_skills", where, name):
            if _norm(s) in {_norm(x) for x in skills}:
                raise DustsimError(f"{card.name!r} already has the skill {s!r}", file=where,
                                   unit=name, field="add_skills")
            skills.append(s)
        rem = {_norm(s): s for s in _skill_list(ch, "remove_skills", where, name)}
        for k, s in rem.items():
            if k not in {_norm(x) for x in skills}:
                raise DustsimError(f"{card.name!r} has no skill {s!r} to remove (has: "
                                   f"{', '.join(skills) or 'none'})", file=where, unit=name,
                                   field="remove_skills")
        raw["skills"] = [s for s in skills if _norm(s) not in rem]
        weapons = list(raw.get("weapon", []))
        wlist = ch.get("weapon", [])
        if not isinstance(wlist, list):
            raise DustsimError("must be [[change.weapon]] tables", file=where, unit=name,
                               field="weapon")
        for wraw in wlist:
            if not isinstance(wraw, dict) or not isinstance(wraw.get("name"), str):
                raise DustsimError("a [[change.weapon]] needs a name", file=where, unit=name,
                                   field="weapon")
            names = [w["name"] for w in weapons]
            if wraw["name"] in names:
                base = dict(weapons[names.index(wraw["name"])])
                base.update(wraw)
                weapons[names.index(wraw["name"])] = base
            else:
                weapons.append(wraw)
        cells = ch.get("cells", {})
        if not isinstance(cells, dict):
            raise DustsimError("cells must be a table of 'WEAPON:COLUMN' = 'cell'", file=where,
                               unit=name, field="cells")
        for key, cell in cells.items():
            wname, _, col = str(key).rpartition(":")
            names = [w["name"] for w in weapons]
            if wname not in names:
                raise DustsimError(f"no weapon {wname!r} (has: {', '.join(names)})",
                                   file=where, unit=name, field=f"cells.{key}")
            if col not in COLUMNS:
                raise DustsimError(f"{col!r} is not an armour column ({' '.join(COLUMNS)})",
                                   file=where, unit=name, field=f"cells.{key}")
            try:
                parse_cell(cell)
            except ValueError as exc:
                raise DustsimError(str(exc), file=where, unit=name,
                                   field=f"cells.{key}") from None
            wd = dict(weapons[names.index(wname)])
            if not isinstance(wd.get("line"), list) or len(wd["line"]) != len(COLUMNS):
                raise DustsimError(f"weapon {wname!r} has no line of {len(COLUMNS)} cells to "
                                   "change", file=where, unit=name, field=f"cells.{key}")
            line = list(wd["line"])
            line[COLUMNS.index(col)] = cell
            wd["line"] = line
            weapons[names.index(wname)] = wd
        raw["weapon"] = weapons
        problems: list = []
        for wd in weapons:  # weapon problems first: they name the weapon
            _weapon_from_dict(wd, where, name, problems)
        new = card_from_dict(raw, where, {}, problems) if not problems else None
        if problems:
            p = problems[0]
            raise DustsimError(p.message, file=where, unit=p.unit, weapon=p.weapon,
                               field=p.field)
        assert new is not None
        keep = {f.name: getattr(card, f.name) for f in fields(Card)
                if f.name in ("source", "revision", "file", "flags", "bloc", "faction")}
        new = replace(new, **keep)
        if new == card:
            raise DustsimError("the change changes nothing on the card (each value is the "
                               "card's own)", file=where, unit=name, field="change")
        out[card.name] = new
    return out


def patched(cards: list[Card], changes: dict[str, Card]) -> list[Card]:
    return [changes.get(c.name, c) for c in cards]
