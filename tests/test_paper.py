"""The paper: its source types no number (the build refuses digits in its prose), and the PDF built
from the whole pipeline reads as a paper: no Typst source left as text, no stray glyph, every work
it names cited where it names it, and a body of at most ``BODY_PAGES`` pages."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import pymupdf
import pytest
import yaml

from figures.paper import PAPER_DIR, SOURCE, module, typed_numbers

REFERENCES = PAPER_DIR / "references.yml"
WORKS = {"REINFORCE": "williams", "successive rejects": "audibert", "sequential halving": "karnin",
         "GRPO": "shao", "Dr. GRPO": "liu", "RLOO": "ahmadian", "Wilson": "wilson",
         "Newcombe": "newcombe", "Holm": "holm", "Waudby-Smith": "waudby-smith",
         "DeepSeek": "deepseek", "GRESO": "zheng", "Knapsack RL": "li", "ScaleRL": "khatri",
         "SPEED-RL": "zhang", "MoPPS": "qu", "Sutton and Barto": "sutton"}
"""Each work the paper names, as it names it, with its key in ``references.yml``: a name in the
text must be followed, at one of its places at least, by its citation."""
CITED_WITHIN = 120
"""Characters after a work's name within which its citation counts as the name's (a sentence's
clause: "as GRESO does [11]", "Knapsack RL [13] instead solves ...")."""
BODY_PAGES = 13
"""The most pages the paper's body (everything before the bibliography) may take."""
STRAY = ("\N{PRIME}", "\N{DOUBLE PRIME}", "\N{REPLACEMENT CHARACTER}")
"""Glyphs no sentence of the paper means: primes (Typst's smart quote after a digit, "k3's"
set as k3 and a prime) and the glyph of a character no font holds."""


def test_the_paper_source_has_no_typed_number() -> None:
    assert typed_numbers((PAPER_DIR / SOURCE).read_text()) == []


def test_typed_numbers_are_found_in_prose_and_captions_but_not_in_code() -> None:
    assert typed_numbers("Accuracy is 0.9 at #Budget rollouts.") == [
        "Accuracy is 0.9 at  rollouts."]
    assert typed_numbers('#fig("accuracy_band", width: 75%)[Bands are 95% intervals.]') == [
        "[Bands are 95% intervals.]"]
    assert typed_numbers('#fig("accuracy_band", width: 75%)[Bands are #Level intervals.]') == []
    assert typed_numbers("// a comment with 3 digits\nSee @fig-band and <fig-2>.") == []
    assert typed_numbers('"Equivalent" within "2 points".') == ['"Equivalent" within "2 points".']


def test_macros_are_typst_string_constants() -> None:
    assert module({"B": '2 "x"', "A": "0.5"}, {"headline": "mine"}) == (
        '#let A = "0.5"\n#let B = "2 \\"x\\""\n#let study = (headline: "mine", )\n')
    assert module({}, {}).endswith("#let study = (:)\n")


def letters(text: str) -> str:
    """``text`` as its letters and digits only, lower case: a title found in a bibliography
    entry whatever the lines, hyphens and case of its setting."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def bibliography_numbers(bibliography: str, references: dict[str, dict]) -> dict[str, int]:
    """The number the PDF's bibliography gives each entry of ``references`` it lists (an entry
    that no citation uses is not listed), found by the start of the entry's title."""
    entries = re.split(r"^\[(\d+)\]", bibliography, flags=re.MULTILINE)
    numbered = {int(number): letters(entry) for number, entry in zip(entries[1::2], entries[2::2],
                                                                     strict=True)}
    return {key: number for key, entry in references.items()
            for number, listed in numbered.items() if letters(entry["title"])[:40] in listed}


def citations(text: str) -> set[int]:
    """The numbers of the citations in ``text``: "[3]", "[3], [5]", and 3 to 5 for "[3]", an en
    dash and "[5]"."""
    found = {int(n) for n in re.findall(r"\[(\d+)\]", text)}
    for low, high in re.findall("\\[(\\d+)\\]\\s*[\N{EN DASH}-]\\s*\\[(\\d+)\\]", text):
        found |= set(range(int(low), int(high) + 1))
    return found


def section(text: str, title: str) -> str:
    """The text of the numbered top-level section ``title`` ("3. Methods"), to the next one."""
    found = re.search(rf"^\d+\. {re.escape(title)}$(.*?)(?=^\d+\. [A-Z]|\Z)", text,
                      flags=re.MULTILINE | re.DOTALL)
    return found.group(1) if found else ""


def defects(text: str, macros: Iterable[str], references: dict[str, dict]) -> list[str]:
    """What in a paper's text (its pages' text, in order) is not meant to be read: a Typst
    label or reference, a macro's name (``#Name``, or a name of ``macros`` with two capitals or
    more, which no sentence writes), a control character or ``STRAY`` glyph, a work of
    ``WORKS`` named without its citation or without an entry of ``references``, and Methods
    without the betting test's reference."""
    body, _, bibliography = text.rpartition("\nBibliography\n")
    found = [f"Typst source left as text: {m!r}" for m in re.findall(
        r"<[a-z]+-[\w-]*>|@[\w-]+|#[A-Za-z][\w-]*", body)]
    named = [re.escape(name) for name in macros if len(re.findall("[A-Z]", name)) > 1]
    if named:
        found += [f"macro name left as text: {m!r}"
                  for m in re.findall(rf"\b(?:{'|'.join(named)})\b", body)]
    found += [f"stray glyph {unicodedata.name(c, hex(ord(c)))} in {body[max(i - 30, 0):i + 30]!r}"
              for i, c in enumerate(body) if c in STRAY
              or (unicodedata.category(c) in ("Cc", "Co") and c not in "\n\t")]
    numbers = bibliography_numbers(bibliography, references)
    # A name broken over two lines at its hyphen is one name; a line break is a space.
    prose = re.sub(r"\s+", " ", re.sub(r"-\n", "-", body))
    for name, key in WORKS.items():
        places = [m.end() for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?!\w)", prose)]
        if not places:
            continue
        if key not in numbers:
            found.append(f"{name} is named, and the bibliography lists no {key}")
        elif not any(numbers[key] in citations(prose[at:at + CITED_WITHIN]) for at in places):
            found.append(f"{name} is named without its citation [{numbers[key]}]")
    methods = re.sub(r"\s+", " ", re.sub(r"-\n", "-", section(body, "Methods")))
    if "waudby-smith" not in numbers or not re.search(
            rf"Waudby-Smith and Ramdas[^.]{{0,{CITED_WITHIN}}}\[{numbers['waudby-smith']}\]",
            methods):
        found.append("Methods does not cite the betting test (Waudby-Smith and Ramdas)")
    return found


def test_defects_find_source_stray_glyphs_and_works_named_without_citation() -> None:
    references = {"waudby-smith": {"title": "Estimating means by betting"},
                  "zheng": {"title": "Act only when it pays"}}
    bibliography = ("\nBibliography\n[1] I. Waudby-Smith, \u201cEstimating means by\nbetting,\u201d"
                    "\n[2] H. Zheng, \u201cAct only when it\npays,\u201d\n")
    methods = "3. Methods\nBetting tests (Waudby-Smith and Ramdas [1]) bound a mean.\n"
    clean = (f"{methods}4. Results\nSkipping prompts (as GRESO does [2]) saves rollouts."
             f"{bibliography}")
    assert defects(clean, ["HeadlineSeeds", "Level"], references) == []
    for text, defect in (
            ("See @fig-band and <fig-band>.", "Typst source left as text: '@fig-band'"),
            ("Seeds: #HeadlineSeeds.", "Typst source left as text: '#HeadlineSeeds'"),
            ("Seeds: HeadlineSeeds.", "macro name left as text: 'HeadlineSeeds'"),
            ("in 53 (\x001923\x1fexact\x03)", "stray glyph"),
            ("while k3\N{PRIME}s pulls", "stray glyph PRIME"),
            ("as GRESO does.", "GRESO is named without its citation [2]"),
            ("as ScaleRL does [2].", "ScaleRL is named, and the bibliography lists no"),
            ("with DeepSeek-V3.2's masking", "DeepSeek is named, and the bibliography lists no")):
        found = defects(f"{methods}4. Results\n{text}{bibliography}", ["HeadlineSeeds"],
                        references)
        assert any(one.startswith(defect) for one in found), (text, found)
    # "Level" is a word as well as a macro: only its "#" marks it as source.
    assert defects(clean.replace("saves", "Level saves"), ["Level"], references) == []
    assert defects(clean.replace("Waudby-Smith and Ramdas [1]", "betting"), [], references) == [
        "Methods does not cite the betting test (Waudby-Smith and Ramdas)"]


@pytest.mark.slow
def test_the_paper_reads_as_a_paper(study_outputs: Path, study_paper: Path) -> None:
    pdf = study_paper
    pages = [page.get_text() for page in pymupdf.open(pdf)]
    macros = re.findall(r"^#let ([A-Z]\w*) =",
                        (study_outputs / "paper" / "numbers.typ").read_text(), flags=re.MULTILINE)
    references = yaml.safe_load(REFERENCES.read_text())
    assert defects("".join(pages), macros, references) == []
    # The body's last page: the bibliography's first, if the body's text ends on it.
    first = next(at for at, page in enumerate(pages) if "\nBibliography\n" in f"\n{page}")
    last = first + 1 if pages[first].partition("Bibliography")[0].strip() else first
    assert last <= BODY_PAGES, f"the body runs onto page {last}"


def test_the_papers_roles_are_the_analysis_roles() -> None:
    # The analysis refuses a role by the tables analysis.paper_roles says it reads; the paper
    # writes a role's numbers with figures.named.ROLES: the two name the same roles.
    from analysis.paper_roles import PAPER_ROLES
    from figures.named import ROLES

    assert set(ROLES) == set(PAPER_ROLES)
