"""A population of environments: a many-prompts dataset whose prompts come from E environments of
different difficulty, each holding its own number of prompts, as an RL dataset's prompts come from
many verifiable environments (DeepSeek-V3.2: 85,000 prompts in 1,827 environments).

The law (a ``grid.probs`` entry ``{draw = "population", ...}``, ``PARAMETERS`` in order):

* environment e's mean pass probability m_e is drawn from beta(``a``, ``b``): its difficulty
  (a, b below 1 make most environments nearly solved or nearly hopeless, as at scale);
* a prompt of environment e is a bandit of K arms whose pass probabilities are drawn per seed from
  beta(m_e c, (1 - m_e) c), c the ``concentration`` (large: an environment's prompts are alike;
  small: they spread), each parameter held in [0.001, 1000] as a drawn bandit's are;
* environment e holds n_e prompts, n_1 + ... + n_E = P: equal shares for ``sigma`` 0 (P div E
  each, the first P mod E one more), else one each and the other P - E spread by a multinomial
  draw over weights exp(sigma z_e), z_e standard normal: lognormal, heavy-tailed shares, as a
  real dataset's environments are;
* environment e's prompts have K_e arms: the entry's ``arms`` K each, or, with ``fewest_arms``
  below K, K_e drawn uniformly from ``fewest_arms`` .. K, as environments differ in how many
  answers a prompt admits. Each prompt's values are drawn for K arms, and a prompt of K_e arms
  keeps the first K_e (``Drawn.prompt_arms``; the kernels' arms past K_e are ``ABSENT``);
* environment e's verifier is exact with probability ``exact_share``, else it has the study's
  verdict noise: an exact environment's verdict has every parameter with a noise role
  (``study.rewards.ROLES``: its false-positive and false-negative rates) at 0, as a rule-based
  check next to a model-judged one (DeepSeek-V3.2 rewards some environments by rules, others by
  a generative reward model);
* environment e's answers are ``exp(length_spread z_e)`` times the study's lengths, z_e standard
  normal (``Drawn.length_factor``: a lognormal factor of median 1, as environments differ in how
  long their answers run; ``study.model.environment.Environment.prompt_lengths`` rounds fixed
  lengths to whole tokens and holds every length in [1, 1e6]).

The environments (m_e and n_e) are drawn once per study, from the root seed's own ``POPULATION``
stream (``study.core.streams``): every seed and cell of the study trains on the same population,
and the seeds differ in the prompts' values drawn within it (a study's conclusions are about
that population, as a trainer's are about its dataset). The arms are drawn after the
environments' difficulties and shares, and only where ``fewest_arms`` is below K, so a law's
difficulties and shares do not depend on its ``fewest_arms``. The verifiers and the length
factors are drawn from streams of their own (the ``POPULATION`` spawn key's children
``EXACT_STREAM`` and ``LENGTH_STREAM``), one uniform u_e and one normal z_e per environment
whatever the law's other parameters: two laws that differ in ``exact_share`` alone have the same
lengths and nested sets of exact environments (those with u_e below each share), and the laws'
other draws do not depend on either. The prompts are in environment
order, environment 0's first. An environment's difficulty band is its rank by m_e (ties by
index) times ``study.core.prompt_rules.BANDS`` div E, so a band holds whole environments.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from study.core import prompt_rules
from study.core.streams import POPULATION

NAME = "population"
"""The ``draw`` of a population's ``grid.probs`` entry."""
PARAMETERS = ("environments", "a", "b", "concentration", "sigma", "fewest_arms", "exact_share",
              "length_spread")
"""The law's parameters, in the order ``Environment.params`` holds them; the last three only up
to the last that is not its default (``defaults``): a population of K arms each, every
environment with the study's verifier and lengths, is described, in its cells' text and its
shards' keys, without them."""
OPTIONAL = 3
"""How many of ``PARAMETERS``' last have defaults (``defaults``)."""
BETA_RANGE = (1e-3, 1e3)
"""The range of a drawn bandit's beta parameters (``study.model.config``), in which a
population's prompts' are held too."""
EXACT_STREAM, LENGTH_STREAM = 1, 2
"""The second words of the spawn keys (``POPULATION``, i) of the exact verifiers' and the length
factors' streams."""
MAX_LENGTH_SPREAD = 2.0
"""The largest ``length_spread`` (two spreads make an environment's answers about 55 times as
long as the typical one's, or as short)."""
MAX_SIGMA = 5.0
"""The largest spread of the environments' log shares (exp(5) is 148: an environment about a
hundred times another's typical share)."""


def defaults(arms: int) -> tuple[float, ...]:
    """The last ``OPTIONAL`` parameters' defaults for a population of ``arms`` arms: every
    environment has K arms (``fewest_arms`` K), the study's verifier (``exact_share`` 0) and its
    lengths (``length_spread`` 0)."""
    return float(arms), 0.0, 0.0


def law(params: tuple[float, ...], arms: int) -> tuple[float, ...]:
    """Every parameter of ``PARAMETERS`` from an environment's ``params`` and its ``arms``: the
    defaults (``defaults``) of those ``params`` leaves out."""
    given = len(params) - (len(PARAMETERS) - OPTIONAL)
    if not 0 <= given <= OPTIONAL:
        raise ValueError(f"a population's law has {len(PARAMETERS) - OPTIONAL} to "
                         f"{len(PARAMETERS)} parameters, not {len(params)}")
    return (*params, *defaults(arms)[given:])


def columns(params: tuple[float, ...], arms: int) -> dict[str, float]:
    """The law's parameters as a table's columns, ``population_<name>`` (``law``)."""
    return {f"{NAME}_{name}": float(value)
            for name, value in zip(PARAMETERS, law(params, arms), strict=True)}


def stated(params: tuple[float, ...], arms: int) -> tuple[float, ...]:
    """The ``params`` an environment of ``arms`` arms holds for a law's ``PARAMETERS``: all but
    the trailing ones at their defaults (``PARAMETERS``)."""
    kept = list(law(params, arms))
    for default in reversed(defaults(arms)):
        if kept[-1] != default:
            break
        kept.pop()
    return tuple(kept)


@dataclass(frozen=True)
class Drawn:
    """A study's drawn population: each environment's mean pass probability
    (``pass_probability``, E floats: its difficulty, higher is easier), the prompts it holds
    (``holdings``, E ints summing to P), its difficulty band (E ints), its prompts' arms
    (``arms``, E ints), whether its verifier is exact (``exact``, E bools) and the factor of its
    answers' lengths (``length_factor``, E floats)."""

    pass_probability: np.ndarray
    holdings: np.ndarray
    band: np.ndarray
    arms: np.ndarray
    exact: np.ndarray
    length_factor: np.ndarray

    @property
    def environment_of(self) -> np.ndarray:
        """Each prompt's environment, (P,) int64: environment 0's prompts first."""
        return np.repeat(np.arange(len(self.holdings), dtype=np.int64), self.holdings)

    @property
    def prompt_arms(self) -> np.ndarray:
        """Each prompt's arms K_e, (P,) int64."""
        return np.repeat(self.arms, self.holdings)

    def prompt_parameters(self, concentration: float) -> tuple[np.ndarray, np.ndarray]:
        """Each prompt's beta parameters (P,) of its arms' pass probabilities."""
        low, high = BETA_RANGE
        mean = self.pass_probability[self.environment_of]
        return (np.clip(mean * concentration, low, high),
                np.clip((1.0 - mean) * concentration, low, high))


def draw(root_seed: int, prompts: int, environments: int, a: float, b: float,
         sigma: float, arms: int, fewest_arms: int, exact_share: float = 0.0,
         length_spread: float = 0.0) -> Drawn:
    """The population of a study of root seed ``root_seed`` whose dataset has ``prompts``
    prompts in ``environments`` environments of ``fewest_arms`` to ``arms`` arms, a share
    ``exact_share`` of them with exact verifiers, their lengths spread by ``length_spread`` (the
    module docstring); ValueError if there are more environments than prompts (each holds one at
    least), or a parameter is out of its range."""
    if not 1 <= environments <= prompts:
        raise ValueError(f"{environments} environments cannot hold {prompts} prompts, "
                         "one at least each")
    if not 2 <= fewest_arms <= arms:
        raise ValueError(f"fewest_arms {fewest_arms} is not in [2, {arms}] (the arms)")
    if not 0.0 <= exact_share <= 1.0:
        raise ValueError(f"exact_share {exact_share} is not in [0, 1]")
    if not 0.0 <= length_spread <= MAX_LENGTH_SPREAD:
        raise ValueError(f"length_spread {length_spread} is not in [0, {MAX_LENGTH_SPREAD:g}]")
    return _draw(int(root_seed), int(prompts), int(environments), float(a), float(b),
                 float(sigma), int(arms), int(fewest_arms), float(exact_share),
                 float(length_spread))


@cache
def _draw(root_seed: int, prompts: int, environments: int, a: float, b: float,
          sigma: float, arms: int, fewest_arms: int, exact_share: float,
          length_spread: float) -> Drawn:
    generator = _generator(root_seed)
    pass_probability = generator.beta(a, b, environments)
    if sigma == 0.0:
        holdings = np.full(environments, prompts // environments, dtype=np.int64)
        holdings[:prompts % environments] += 1
    else:
        weights = np.exp(sigma * generator.standard_normal(environments))
        holdings = 1 + generator.multinomial(prompts - environments, weights / weights.sum())
    order = np.argsort(pass_probability, kind="stable")
    band = np.empty(environments, dtype=np.int64)
    band[order] = np.arange(environments) * prompt_rules.BANDS // environments
    holdings = holdings.astype(np.int64)
    counts = (generator.integers(fewest_arms, arms + 1, environments) if fewest_arms < arms
              else np.full(environments, arms)).astype(np.int64)
    exact = (_generator(root_seed, EXACT_STREAM).random(environments) < exact_share
             if exact_share > 0.0 else np.zeros(environments, dtype=bool))
    factor = (np.exp(length_spread
                     * _generator(root_seed, LENGTH_STREAM).standard_normal(environments))
              if length_spread > 0.0 else np.ones(environments))
    for array in (pass_probability, holdings, band, counts, exact, factor):
        array.flags.writeable = False
    return Drawn(pass_probability, holdings, band, counts, exact, factor)


def _generator(root_seed: int, *child: int) -> np.random.Generator:
    """numpy's generator on the root seed's ``POPULATION`` stream, or its child ``child``."""
    state = np.random.SeedSequence(root_seed, spawn_key=(POPULATION, *child)).generate_state(
        2, np.uint64)
    return np.random.Generator(np.random.Philox(key=state))
