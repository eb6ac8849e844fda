"""The paper's source types no number: the build refuses digits in its prose."""

from __future__ import annotations

from figures.paper import PAPER_DIR, SOURCE, module, typed_numbers


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
