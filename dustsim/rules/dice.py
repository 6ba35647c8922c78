"""The Dust die: six faces, three symbols, two faces each (RULES.md §1).

Faces are kept abstract: ``P`` (bloc/army symbol, the default success), ``T`` (target,
the offensive upgrade) and ``S`` (shield, the defensive upgrade). Every roll in the game
succeeds on a *set* of face classes; probabilities are derived from those sets, never
hard-coded. Classic dice (2 hit faces, 4 blanks) give the same probabilities: a one-class
test is 2/6, a two-class test 4/6 (2013 digest §1.2).

In the numeric engines a face class is an integer (P=0, T=1, S=2) and a success set a
3-bit mask, so that scripted dice can replay the rulebooks' worked examples.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

FACE_CLASSES: tuple[str, ...] = ("P", "T", "S")
FACE_INDEX: dict[str, int] = {f: i for i, f in enumerate(FACE_CLASSES)}
FACES_PER_CLASS = 2
SIDES = 6


@dataclass(frozen=True)
class FaceSet:
    """A set of face classes that count as a success."""

    faces: frozenset[str]

    def __post_init__(self) -> None:
        bad = set(self.faces) - set(FACE_CLASSES)
        if bad:
            raise ValueError(f"unknown die face(s) {sorted(bad)}; faces are P, T, S")

    @classmethod
    def of(cls, spec: str) -> FaceSet:
        """``FaceSet.of("PT")`` -> {P, T}; ``""`` is the empty set (never succeeds)."""
        return cls(frozenset(spec))

    def __or__(self, other: FaceSet) -> FaceSet:
        return FaceSet(self.faces | other.faces)

    @property
    def mask(self) -> int:
        """Bit mask for the kernels: bit i set when face class i succeeds."""
        return sum(1 << FACE_INDEX[f] for f in self.faces)

    @property
    def p(self) -> Fraction:
        """Probability that one die succeeds."""
        return Fraction(FACES_PER_CLASS * len(self.faces), SIDES)

    def succeeds(self, face: str) -> bool:
        return face in self.faces

    def __str__(self) -> str:
        return "".join(f for f in FACE_CLASSES if f in self.faces) or "-"


NONE = FaceSet.of("")
P = FaceSet.of("P")
PT = FaceSet.of("PT")
PS = FaceSet.of("PS")
TS = FaceSet.of("TS")
ALL = FaceSet.of("PTS")


def rerolled(p: Fraction | float, times: int = 1) -> Fraction | float:
    """Success probability when every failed die is re-rolled ``times`` times."""
    return 1 - (1 - p) ** (times + 1)


def chain_mean(p_chain: Fraction | float) -> Fraction | float:
    """Expected extra hits per initial hit of a chain (laser, cutting...): geometric."""
    return p_chain / (1 - p_chain)


def parse_faces(text: str) -> list[int]:
    """Scripted dice: ``"P T S P"`` or ``"PTSP"`` -> face-class indices [0, 1, 2, 0]."""
    out = []
    for ch in text.replace(",", " ").split() if " " in text or "," in text else text:
        ch = ch.strip().upper()
        if ch not in FACE_INDEX:
            raise ValueError(f"scripted die face {ch!r} is not one of P, T, S")
        out.append(FACE_INDEX[ch])
    return out
