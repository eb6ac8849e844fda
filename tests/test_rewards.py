"""The reward models: each declared once, with a reference and a stream of its own."""

from __future__ import annotations

import reference
from study.core.streams import MAIN_C2, MAIN_C3, NOISE_C2, NOISE_C3, TIE_BREAK_C3
from study.spec import registry

INSTANCE_C2 = 2
"""c2 of the instance draws' counter (numpy's Philox4x64, ``study.core.streams.INSTANCE``)."""


def test_every_reward_model_has_a_reference_and_a_stream_range_of_its_own() -> None:
    taken = {(MAIN_C2, MAIN_C3), (INSTANCE_C2, 0)}
    for model in registry.reward_models():
        module = reference.reward_model(model.name)
        assert callable(module.own) and callable(module.outcome), model.name
        assert model.values in ("probs", "means")
        if model.stream is None:
            continue
        # c3 = 1 holds the tie-break ranges, whatever c2; the others must not meet.
        assert model.stream[1] != TIE_BREAK_C3 and model.stream not in taken, model.name
        taken.add(model.stream)
    assert registry.reward_model("gaussian").stream == (NOISE_C2, NOISE_C3)
