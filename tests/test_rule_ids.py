"""Every rule id the code cites is defined in ``docs/rules.md``, and only known ids are.

Rule ids are one of the section letters A B C D E F S M (Abracadabra) or G H K (Four
Aces) followed by a number: ``A1``, ``E4``, ``K3``. They are read from the comments and
string literals (docstrings, messages) of every ``.py`` file of the project's packages and
tests, and from ``README.md``, in the forms the code uses:

- single ids: ``(E2)``, ``RULES.md E3``, ``K2/K3``, ``G6, G7``;
- ranges of one section: ``C1–C3``, ``S1-S4`` (every id in between is cited);
- sub-items: ``H2 b``, ``H2 (b)``, ``H2(b)`` (checked where the rule has sub-items);
- whole sections: ``(B)``, ``RULES.md A–M``, ``sections G–K`` (en dash only, so that card
  runs such as ``Q-K-A`` are not read as sections).

Not citations: ``noqa`` codes (``B018``, ``F401``) and a string literal that is nothing but
an id-like word (matplotlib's colour names ``"C1"``).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"

#: where citations are collected
SOURCE_DIRS = ("envs", "agents", "training", "arena", "records", "bench", "cli", "tests")
MARKDOWN = ("README.md", *(f"docs/{name}.md" for name in (
    "games", "agents", "integrations", "tournaments", "training", "play", "speed", "results")))

#: the sections in the order of the rule book (Abracadabra, then Four Aces)
SECTIONS = ("A", "B", "C", "D", "E", "F", "S", "M", "G", "H", "K")

#: every rule id of the rule book, section by section (Four Aces has no G5)
KNOWN_IDS = frozenset(
    [f"A{i}" for i in range(1, 4)] + [f"B{i}" for i in range(1, 4)]
    + [f"C{i}" for i in range(1, 4)] + [f"D{i}" for i in range(1, 3)]
    + [f"E{i}" for i in range(1, 5)] + [f"F{i}" for i in range(1, 3)]
    + [f"S{i}" for i in range(1, 5)] + [f"M{i}" for i in range(1, 4)]
    + [f"G{i}" for i in (1, 2, 3, 4, 6, 7)] + [f"H{i}" for i in range(1, 5)]
    + [f"K{i}" for i in range(1, 5)]
)

_L = "ABCDEFSMGHK"
_ID = rf"[{_L}]\d{{1,2}}"
_EDGE_BEFORE = r"(?<![\w.])"
_EDGE_AFTER = r"(?![\w])"
#: ``C1–C3`` / ``C1-C3``: a range of ids
ID_RANGE = re.compile(rf"{_EDGE_BEFORE}({_ID})\s*[–-]\s*({_ID}){_EDGE_AFTER}")
#: ``E3``, optionally with a sub-item: ``H2 b``, ``H2 (b)``, ``H2(b)``
ID = re.compile(rf"{_EDGE_BEFORE}({_ID}){_EDGE_AFTER}(?: ?\(([a-z])\)| ([a-z])(?![\w]))?")
_RULES_FILE = r"(?:RULES|rules)\.md "
#: ``docs/rules.md A–M``, ``sections G–K``, ``(A–S)``: a range of sections (en dash only)
SECTION_RANGE = re.compile(
    rf"(?:{_RULES_FILE}|[Ss]ections? |\(|^|\s)([{_L}])–([{_L}])(?![\w])"
)
#: ``(B)``, ``docs/rules.md B``, ``section B``: one section
SECTION = re.compile(
    rf"(?:(?:^|\s)\(([{_L}])\)|(?:{_RULES_FILE}|[Ss]ection )([{_L}])(?![\w]))"
)
#: ruff/flake8 suppressions, whose codes look like ids
NOQA = re.compile(r"noqa(?::\s*[A-Z]+\d+(?:\s*,\s*[A-Z]+\d+)*)?")


@dataclass(frozen=True)
class Citation:
    """One cited id, section or sub-item, and where."""

    kind: str  #: "id", "section" or "item"
    label: str  #: ``E3``, ``B`` or ``H2 b``
    where: str  #: ``path:line``


def citations_in(text: str, where: str) -> list[Citation]:
    """The rule citations in one comment or string."""
    text = NOQA.sub("", text)
    found = []
    for match in ID_RANGE.finditer(text):
        first, last = match.groups()
        if first[0] == last[0] and int(first[1:]) < int(last[1:]):
            found += [Citation("id", f"{first[0]}{n}", where)
                      for n in range(int(first[1:]), int(last[1:]) + 1)]
    for match in ID.finditer(text):
        rule, item = match.group(1), match.group(2) or match.group(3)
        found.append(Citation("id", rule, where))
        if item:
            found.append(Citation("item", f"{rule} {item}", where))
    for match in SECTION_RANGE.finditer(text):
        first, last = match.groups()
        found += [Citation("section", s, where) for s in SECTIONS[
            SECTIONS.index(first): SECTIONS.index(last) + 1]] or [
            Citation("section", f"{first}–{last}", where)]
    for match in SECTION.finditer(text):
        found.append(Citation("section", match.group(1) or match.group(2), where))
    return found


_TEXT_TOKENS = {tokenize.COMMENT, tokenize.STRING} | (
    {tokenize.FSTRING_MIDDLE} if hasattr(tokenize, "FSTRING_MIDDLE") else set())


def python_citations(path: Path) -> list[Citation]:
    """Citations in the comments and string literals of one Python file."""
    rel = path.relative_to(ROOT)
    found = []
    with path.open(encoding="utf-8") as f:
        tokens = list(tokenize.generate_tokens(io.StringIO(f.read()).readline))
    for token in tokens:
        if token.type not in _TEXT_TOKENS:
            continue
        body = token.string.strip("\"'rbfuRBFU") if token.type == tokenize.STRING else ""
        if re.fullmatch(_ID, body):
            continue  # a bare id-like string is a value ("C1" colours), not a citation
        found += citations_in(token.string, f"{rel}:{token.start[0]}")
    return found


def all_citations() -> list[Citation]:
    """Every citation in the project's Python files and its README."""
    found = []
    for directory in SOURCE_DIRS:
        for path in sorted((ROOT / directory).rglob("*.py")):
            if path.resolve() != Path(__file__).resolve():  # its examples are not citations
                found += python_citations(path)
    for name in MARKDOWN:
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1):
            found += citations_in(line, f"{name}:{number}")
    return found


#: ``- **A1.** text``: a rule's definition
RULE_LINE = re.compile(rf"^\s*- \*\*({_ID})\.\*\*")
#: ``  - **(a)** text``: a sub-item of the rule above
ITEM_LINE = re.compile(r"^\s+- \*\*\(([a-z])\)\*\*")
#: ``### A. Variants and cards``: a section
SECTION_LINE = re.compile(rf"^### ([{_L}])\. ")


def rule_book(text: str) -> tuple[list[str], set[str], list[str]]:
    """(rule ids in order of definition, ``"H2 b"``-style sub-items, sections) of a rule
    book in the format of ``docs/rules.md``."""
    ids, items, sections = [], set(), []
    for line in text.splitlines():
        if match := RULE_LINE.match(line):
            ids.append(match.group(1))
        elif (match := ITEM_LINE.match(line)) and ids:
            items.add(f"{ids[-1]} {match.group(1)}")
        elif match := SECTION_LINE.match(line):
            sections.append(match.group(1))
    return ids, items, sections


def missing(citations: list[Citation], text: str) -> list[str]:
    """The citations that the rule book ``text`` does not define, one line each."""
    ids, items, sections = rule_book(text)
    with_items = {item.split()[0] for item in items}
    wrong = []
    for c in citations:
        if c.kind == "id" and c.label not in ids:
            wrong.append(f"{c.where}: rule {c.label}")
        elif c.kind == "item" and c.label.split()[0] in with_items and c.label not in items:
            wrong.append(f"{c.where}: rule item {c.label}")
        elif c.kind == "section" and c.label not in sections:
            wrong.append(f"{c.where}: section {c.label}")
    return wrong


CITATIONS = all_citations()
BOOK = RULES.read_text(encoding="utf-8")


def test_the_code_cites_rules() -> None:
    """The scan finds the citations (a broken scan would pass everything)."""
    cited = {c.label for c in CITATIONS if c.kind == "id"}
    assert len(cited) > 30, sorted(cited)
    assert {c.label for c in CITATIONS if c.kind == "item"} >= {"H2 a", "H2 b"}


def test_every_cited_rule_is_in_docs_rules_md() -> None:
    wrong = missing(CITATIONS, BOOK)
    assert not wrong, "cited but not defined in docs/rules.md:\n" + "\n".join(sorted(set(wrong)))


def test_docs_rules_md_defines_exactly_the_known_ids_once() -> None:
    ids, _, sections = rule_book(BOOK)
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, f"defined twice in docs/rules.md: {duplicates}"
    assert set(ids) == KNOWN_IDS, (f"unknown: {sorted(set(ids) - KNOWN_IDS)}, "
                                   f"missing: {sorted(KNOWN_IDS - set(ids))}")
    assert sections == list(SECTIONS)


@pytest.mark.parametrize(("text", "expected"), [
    ("draw (H2 b): turn up", {"H2", "H2 b"}),
    ("# H2(b) and H2 (a)", {"H2", "H2 b", "H2 a"}),
    ("score (K2/K3) now", {"K2", "K3"}),
    ("bids (C1–C3); S1-S2", {"C1", "C2", "C3", "S1", "S2"}),
    ("RULES.md G–K; Deal (B)", {"G", "H", "K", "B"}),
    ("E3 and E4 a joker", {"E3", "E4", "E4 a"}),
    ("# noqa: B018, F401", set()),
    ("the run Q-K-A; A-K-Q-J of spades; float32 [B, 755]; 8192 games", set()),
    ("int8 x1 H200 E3x fig.C1", set()),
])
def test_citation_patterns(text: str, expected: set[str]) -> None:
    """What the extractor reads as a citation, and what it leaves alone."""
    assert {c.label for c in citations_in(text, "x")} == expected


def test_a_missing_rule_is_reported() -> None:
    """Deleting a cited rule's definition from (a copy of) the rule book fails the check."""
    cited = sorted({c.label for c in CITATIONS if c.kind == "id"})
    victim = cited[0]
    scratch = "\n".join(line for line in BOOK.splitlines()
                        if not line.lstrip().startswith(f"- **{victim}.**"))
    wrong = missing(CITATIONS, scratch)
    assert wrong and all(f"rule {victim}" in line for line in wrong), wrong
