"""Readable and JSON views of cards (the weapon table as printed on the card)."""

from __future__ import annotations

from dustsim.data.cards import COLUMNS, Card, weapon_to_dict


def card_json(c: Card) -> dict:
    d = {
        "name": c.name, "edition": c.edition, "bloc": c.bloc, "faction": c.faction,
        "kind": c.kind, "armour": c.armour, "ap": c.ap, "models": c.models,
        "models_source": c.models_source, "damage_track": c.damage_track, "move": c.move,
        "march_move": c.march_move, "size": c.size, "skills": list(c.skills),
        "complete": c.complete, "source": c.source, "revision": c.revision,
        "file": c.file, "flags": list(c.flags), "sources": list(c.sources),
        "capturable": c.capturable, "errata": list(c.errata),
        "conflicts": [{"field": x.field, "used": x.used, "other": x.other,
                       "used_source": x.used_source, "other_source": x.other_source}
                      for x in c.conflicts],
        "weapons": [weapon_to_dict(w) for w in c.weapons],
    }
    if c.edition == "tactics-2009":  # printed cover saves (001:L489-499); '?' where unknown
        d["cover"] = {k: dict(c.cover).get(k, "?") for k in ("soft", "hard")}
        d["cover_source"] = c.cover_source
    return d


def _fmt(v) -> str:
    if v is None:
        return "?"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def card_text(c: Card) -> str:
    size = (f"{c.models} models ({c.models_source})" if c.models is not None
            else f"damage track {_fmt(c.damage_track)}")
    lines = [
        f"{c.name}  [{c.edition}, {c.bloc}{' / ' + c.faction if c.faction else ''}]",
        f"  {c.kind or '?'}, armour {c.armour or '?'}, {size}, move {_fmt(c.move)}"
        f" / march {_fmt(c.march_move)}, {_fmt(c.ap)} AP"
        + ("" if c.size == "standard" else f", {c.size}"),
    ]
    if c.skills:
        lines.append(f"  skills: {', '.join(c.skills)}")
    if c.edition == "tactics-2009" and c.kind in (None, "squad"):
        cov = dict(c.cover)
        lines.append(f"  cover: soft {cov.get('soft', '?')}, hard {cov.get('hard', '?')}"
                     + (f" ({c.cover_source})" if c.cover_source else ""))
    if c.weapons:
        name_w = max(12, *(len(w.name) for w in c.weapons)) + 4
        head = f"  {'weapon':<{name_w}} {'rng':>4} " + " ".join(f"{col:>5}" for col in COLUMNS)
        lines.append(head)
        for w in c.weapons:
            label = (f"{w.count}x " if w.count != 1 else "") + w.name
            if w.optional:
                label += " (opt)"
            cells = " ".join(f"{cell.text:>5}" for cell in w.line)
            lines.append(f"  {label:<{name_w}} {w.range:>4} {cells}")
            extra = ", ".join(w.keywords)
            if extra:
                lines.append(f"  {'':<{name_w}}      {extra}")
    lines.append(f"  source: {c.source}" + (f" (revision {c.revision[:7]})" if c.revision else ""))
    for s in c.sources:
        if s != c.source:
            lines.append(f"  also: {s}")
    for x in c.conflicts:
        lines.append(f"  conflict {x.field}: {x.used} ({x.used_source}) used, "
                     f"{x.other} ({x.other_source}) not")
    for e in c.errata:
        lines.append(f"  erratum: {e}")
    if c.flags:
        lines.append("  notes: " + "; ".join(c.flags))
    if not c.complete:
        lines.append("  partial card: " + "; ".join(partial_reasons(c)))
    return "\n".join(lines)


def partial_reasons(c: Card) -> list[str]:
    """Why a card is partial (not :attr:`Card.complete`): each missing or inferred figure,
    named, and what follows from it. Empty for a complete card."""
    out = []
    for label, v in (("cost", c.ap), ("armour", c.armour), ("kind", c.kind)):
        if v is None:
            out.append(f"{label} unknown (no source prints it); figures that need it are "
                       "not computed")
    if c.damage_track is None:
        if c.models is None:
            what = ("squad size" if c.kind == "squad" else "damage track" if c.kind else
                    "squad size or damage track")
            out.append(f"{what} unknown (no source prints it)")
        elif c.models_source != "card":
            how = ("inferred from the weapon counts" if c.models_source == "inferred"
                   else f"from {c.models_source}")
            out.append(f"squad size {c.models} {how} (no source prints it)")
    for w in c.weapons:
        unknown = [col for col, cell in zip(COLUMNS, w.line, strict=False) if not cell.known]
        no_damage = [col for col, cell in zip(COLUMNS, w.line, strict=False)
                     if cell.known and cell.can_damage and cell.damage is None]
        if unknown:
            out.append(f"{w.name}: {_columns(unknown)} unknown ('?' in the sources)")
        if no_damage:
            out.append(f"{w.name}: damage unknown against {_columns(no_damage)}")
    return out


def _columns(cols: list[str]) -> str:
    """'every column', or the columns named: 'I1, I2, V4'."""
    return "every column" if len(cols) == len(COLUMNS) else "column " + ", ".join(cols) \
        if len(cols) == 1 else "columns " + ", ".join(cols)


def cards_table(cards: list[Card]) -> str:
    rows = [f"{'name':<48} {'edition':<13} {'bloc':<18} {'kind':<9} {'arm':<4} "
            f"{'AP':>5} {'size':>6}"]
    for c in sorted(cards, key=lambda c: (c.edition, c.bloc, c.name)):
        size = c.models if c.models is not None else c.damage_track
        rows.append(f"{c.name[:48]:<48} {c.edition:<13} {c.bloc[:18]:<18} {c.kind or '?':<9} "
                    f"{c.armour or '?':<4} {_fmt(c.ap):>5} {_fmt(size):>6}")
    rows.append(f"{len(cards)} cards")
    return "\n".join(rows)


def data_summary(cards: list[Card], *, verbose: bool = False) -> str:
    """What `dustsim validate` reports beyond validity: cards per edition, bloc and kind;
    the conflicts between sources, inferred squad sizes and errata applied (listed with
    ``verbose``, with every skill name the data uses)."""
    from collections import Counter

    lines = []
    by = Counter((c.edition, c.bloc or "-", c.kind or "?") for c in cards)
    for ed in sorted({c.edition for c in cards}):
        blocs = sorted({b for e, b, _ in by if e == ed})
        lines.append(f"{ed}: {sum(n for (e, _, _), n in by.items() if e == ed)} cards")
        for b in blocs:
            kinds = ", ".join(f"{k} {n}" for (e, bb, k), n in sorted(by.items())
                              if e == ed and bb == b)
            lines.append(f"  {b}: {kinds}")
    conflicts = [(c, x) for c in cards for x in c.conflicts]
    inferred = [c for c in cards if c.models_source == "inferred"]
    errata = [(c, e) for c in cards for e in c.errata]
    lines.append(f"conflicts between sources: {len(conflicts)} on "
                 f"{len({c.name for c, _ in conflicts})} cards; squad sizes inferred: "
                 f"{len(inferred)}; errata applied: {len(errata)}")
    if verbose:
        for c, x in conflicts:
            lines.append(f"  conflict {c.name}: {x.field}: {x.used} used ({x.used_source}), "
                         f"{x.other} not ({x.other_source})")
        for c, e in errata:
            lines.append(f"  erratum {c.name}: {e}")
        sizes = Counter(c.models for c in inferred)
        lines.append("  inferred squad sizes: " + ", ".join(
            f"{n} models x{k}" for n, k in sorted(sizes.items())))
        skills = Counter(s for c in cards for s in c.skills)
        lines.append(f"  skills used ({len(skills)}): " + "; ".join(sorted(skills)))
    return "\n".join(lines)
