"""Many prompts sharing one rollout budget, the reference of ``study/core/prompts.py``.

A run trains P prompts, each a Bernoulli bandit of K arms with its own softmax policy (K logits from
0; prompts share nothing), in passes. At the start of pass r the allocation rule gives each prompt i
a group size n_i (0: skipped this pass); the prompts then run their groups in a random order, prompt
i's group being n_i rollouts of its policy, updated by REINFORCE's group update
(``reference.reinforce``: a group estimator, lr (1 / n_i) A_j (onehot(a_j) - pi) rollout by rollout;
with the ``per_batch`` normalization lr (1 / G) A_j ..., G the configured group size). Rollout m of
prompt i (m counts that prompt's rollouts) draws from main-stream block (m div 2, i, 0, 0), so
prompt 0 of a run sees exactly the draws of a single-prompt run.

Streams beyond the rollouts' (Philox4x32-10 blocks of the run's key):

* pass r's order: Fisher-Yates from the identity, for q = P - 1 down to 1 swapping places q and
  floor(u (q + 1)), u word q mod 4 of block (r, q div 4, 2, 1);
* pass r's skip draw of prompt i (``skip_zero_signal``): word i mod 4 of block (r, i div 4, 3, 1);
* checkpoint C's tie-break of prompt i's greedy arm: word 0 of block (C, i, 0, 1).

Rules: one module each in ``reference/allocations/`` (``sizes(prompts, group, words, r)``), as
``study/allocations/`` declares them; ``allocate`` is the split in proportion to weights that
the variance rules share.

Checkpoint C records the state after the longest run of groups, in the order they ran, whose
rollouts add up to at most C: each prompt's greedy arm (argmax of its logits, ties broken by
the tie-break draw), per difficulty band (the prompts ranked by their best arm's value, ties by
index, band = rank BANDS div P): prompts, greedy arms that are best, the sum of the greedy arms'
values, the sum of the policies' pass rates, rollouts spent, groups run, groups without signal,
and prompts whose logits are not finite (their greedy arm counts as neither best nor valued).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reference import Answers, allocation, key_words, philox, tie_break, unit32
from reference import reinforce as policy
from reference.offpolicy import Trainer, served
from study.core.prompt_rules import STUCK_GAIN, STUCK_WRONG_MASS
from study.model.offpolicy import OffPolicy

BANDS = 4
IDLE_PASSES = 10_000
FIELDS = ("prompts", "best", "greedy_value", "pass_rate", "best_value", "rollouts", "groups",
          "zero_signal", "non_finite")
PASS_FIELDS = ("served_pass_rate", "tokens", "expected_length", "stuck")
FLOOR = 2


def allocate(weights: list[float], group: int) -> list[int]:
    """Split P G rollouts: 2 each, the other R = P (G - 2) by largest remainders of the quotas
    R w_i / sum w (equal weights when they sum to 0), the leftover one by one to the largest
    fractional parts, ties to the lower index."""
    prompts = len(weights)
    extra = prompts * (group - FLOOR)
    total = 0.0
    for w in weights:
        total += w
    if total == 0.0:
        weights, total = [1.0] * prompts, float(prompts)
    quotas = [(extra * w) / total for w in weights]
    floors = [math.floor(q) for q in quotas]
    left = extra - sum(floors)
    ranked = sorted(range(prompts), key=lambda i: (-(quotas[i] - floors[i]), i))
    sizes = [FLOOR + f for f in floors]
    for i in ranked[:left]:
        sizes[i] += 1
    return sizes


def pass_rate(weights: list[float], norm: float, values: list[float]) -> float:
    """sum pi[k] v[k], pi[k] = w[k] * (1 / sum w)."""
    inverse = 1.0 / norm
    rate = 0.0
    for w, v in zip(weights, values, strict=True):
        rate += (w * inverse) * v
    return rate


@dataclass
class Prompt:
    """What an allocation rule reads of a prompt (its policy's state, its values and counts), as
    ``reference.offpolicy.Trainer`` holds them: a prompt made by hand for a rule's test."""

    values: list[float]
    state: policy.State
    rollouts: int = 0
    groups: int = 0
    zero_signal: int = 0
    run: int = 0
    passed: int = 0
    failed: int = 0


def bands(values: list[list[float]]) -> list[int]:
    """Each prompt's difficulty band: the prompts ranked by their best arm's value, ties by
    index, band = rank BANDS div P."""
    count = len(values)
    ranked = sorted(range(count), key=lambda i: (max(values[i]), i))
    band = [0] * count
    for rank, i in enumerate(ranked):
        band[i] = rank * BANDS // count
    return band


def order_of(r: int, count: int, words: tuple[int, int]) -> list[int]:
    """Pass r's order of ``count`` prompts (the module's docstring)."""
    order = list(range(count))
    for q in range(count - 1, 0, -1):
        u = unit32(philox((r, q // 4, 2, 1), words)[q % 4])
        j = int(u * (q + 1))
        order[q], order[j] = order[j], order[q]
    return order


def run(key: np.ndarray, values: list[list[float]], lr: float, baseline: str, group: int,
        rule: str, budgets: list[int], normalization: str = "per_group",
        groups: tuple[list[int], int] | None = None) -> dict[str, list[list[float]]]:
    """One run on policy: for each field of ``FIELDS``, a list per checkpoint of its value per
    band (``run_passes`` with the learner as its own sampler and answers of no length); a
    prompt has the arms its ``values`` list."""
    found = run_passes(key, values, lr, baseline, group, budgets, OffPolicy(), rule=rule,
                       normalization=normalization, groups=groups)
    return {name: found[name] for name in FIELDS}


def run_passes(key: np.ndarray, values: list[list[float]], lr: float, baseline: str,
               group: int, budgets: list[int], offpolicy: OffPolicy, reward: str = "bernoulli",
               reward_parameters: tuple[float, ...] = (), verdict: str = "",
               verdict_parameters: tuple[float, ...] = (), lengths: list[float] | None = None,
               law: str = "fixed", tokens: bool = False, rule: str = "uniform",
               normalization: str = "per_group", groups: tuple[list[int], int] | None = None,
               arms: int = 0, verdicts: list[tuple[float, ...]] | None = None,
               prompt_lengths: list[list[float]] | None = None) -> dict[str, list[list[float]]]:
    """One run of many prompts under the allocation rule ``rule`` whose groups come from the
    sampler of ``offpolicy`` (``reference.offpolicy.Trainer``, one per prompt, drawing with the
    prompt's index as word 1 of its streams' counters) and whose answers are
    ``reference.Answers`` (of ``reward`` and the arguments after it): every pass that runs a
    group (the trainer's policy version u), every prompt's sampler is that of version u - lag
    and every prompt given n > 0 rollouts draws its group of n, its answers paid as the run's
    spending at the pass's start says; then those prompts learn in the pass's order, each step
    lr (1 / n), or lr (1 / G) ``per_batch``, each group costing its answers' tokens
    (``tokens``) or its n rollouts. A pass in which the rule runs no group is no version;
    after ``IDLE_PASSES`` of them in a row the run stops where it is. Checkpoint C records the
    state after the longest run of groups, in the order they ran, whose costs add up to at most
    C: the fields of ``FIELDS``, and of ``PASS_FIELDS`` the tokens spent on the band's prompts
    and the sums over those whose logits are finite of the served policy's pass rate (of
    version u for a prompt that has not learned in the pass, u + 1 for one that has) and the
    policy's expected answer length. The readouts are per band, or per group of ``groups``
    (each prompt's group and how many there are: a population's environments). A prompt has
    the arms its ``values`` list, the first of ``lengths`` (or of its own, ``prompt_lengths[i]``,
    where given), its verdict's parameters ``verdicts[i]`` where given, and draws the mismatch
    noise of the dataset's ``arms`` (default: its own) (``reference.offpolicy.mismatch_noise``)."""
    words = key_words(key)
    count = len(values)
    band, width = groups or (bands(values), BANDS)
    divisor = group if normalization == "per_batch" else 0
    # The draws a prompt's first passes need (more are made as they are read).
    most = 4 * group
    own = [lengths] * count if prompt_lengths is None else prompt_lengths
    trainers = [Trainer(key, list(v), lr, baseline, group, offpolicy,
                        Answers(key, list(v), reward, reward_parameters, verdict,
                                verdict_parameters, None if own[i] is None else
                                list(own[i][:len(v)]), law, tokens, budgets, most, i,
                                None if verdicts is None else tuple(verdicts[i])), arms)
                for i, v in enumerate(values)]
    record: dict[str, list[list[float]]] = {name: [] for name in FIELDS + PASS_FIELDS}
    # Each prompt's learner mass on its best arms at the previous checkpoint, from the untrained
    # policy's: the best arms' share.
    previous = [sum(x == max(v) for x in v) / len(v) for v in values]
    pending = list(budgets)
    spent = 0.0
    r = update = idle = 0
    while pending:
        sizes = allocation(rule).sizes(trainers, group, words, r)
        r += 1
        if not any(sizes):
            idle += 1
            if idle == IDLE_PASSES:
                learned = [False] * count
                while pending:
                    _pass_checkpoint(trainers, learned, band, width, key, update,
                                     pending.pop(0), record, previous)
            continue
        idle = 0
        costs = []
        for t, size in zip(trainers, sizes, strict=True):
            t.sample(update)
            costs.append(t.paying.cost(t.draw(size, spent), size) if size else 0.0)
        learned = [False] * count
        for i in order_of(r - 1, count, words):
            if sizes[i] == 0:
                continue
            while pending and pending[0] < spent + costs[i]:
                _pass_checkpoint(trainers, learned, band, width, key, update, pending.pop(0),
                                 record, previous)
            if not pending:
                break
            trainers[i].learn(divisor)
            learned[i] = True
            spent += costs[i]
        update += 1
    return record


def _pass_checkpoint(trainers: list[Trainer], learned: list[bool], band: list[int], width: int,
                     key: np.ndarray, r: int, budget: int,
                     record: dict[str, list[list[float]]], previous: list[float]) -> None:
    row = {name: [0] * width if name in ("prompts", "best", "rollouts", "groups", "zero_signal",
                                         "non_finite", "stuck") else [0.0] * width
           for name in FIELDS + PASS_FIELDS}
    for i, t in enumerate(trainers):
        b, state, values = band[i], t.state, t.values
        row["prompts"][b] += 1
        row["best_value"][b] += max(values)
        row["rollouts"][b] += t.rollouts
        row["groups"][b] += t.groups
        row["zero_signal"][b] += t.zero_signal
        row["tokens"][b] += t.spent_tokens
        if not all(math.isfinite(x) for x in state.logits):
            row["non_finite"][b] += 1
            row["stuck"][b] += 1
            previous[i] = math.nan
            continue
        greedy = tie_break(state.logits, key, budget, i)
        row["best"][b] += values[greedy] == max(values)
        row["greedy_value"][b] += values[greedy]
        weights, norm = policy.prepare(state)
        row["pass_rate"][b] += pass_rate(weights, norm, values)
        rate, on_best = served(state.logits, t.noise(r + learned[i]), t.offpolicy, values)
        row["served_pass_rate"][b] += rate
        # Stuck (study.core.prompt_rules.STUCK_WRONG_MASS): served a wrong answer at least as
        # often as a right one, the learner's mass on the best arms not risen since the
        # previous checkpoint.
        mass = pass_rate(weights, norm, [float(v == max(values)) for v in values])
        row["stuck"][b] += (not 1.0 - on_best < STUCK_WRONG_MASS
                            and not mass > previous[i] + STUCK_GAIN)
        previous[i] = mass
        row["expected_length"][b] += pass_rate(weights, norm, t.paying.means)
    for name in FIELDS + PASS_FIELDS:
        record[name].append(row[name])
