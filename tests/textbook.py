"""An independent implementation of the textbook's gradient bandit experiment (Sutton and Barto
2018, section 2.8, Figure 2.5), written the way the classic reference implementations of the
book's figures are: numpy arrays over runs, numpy's own random generator, ``np.exp`` softmax,
and the baseline updated with the current reward before the preference step. It shares no code
and no random stream with the package, so agreement between the two is agreement in
distribution, checked statistically."""

from __future__ import annotations

import numpy as np


def gradient_bandit_curves(runs: int, steps: int, step_size: float, baseline: bool,
                           true_mean: float, arms: int,
                           seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-step fraction of runs taking the optimal action, mean reward, and variance of the
    reward across runs."""
    rng = np.random.default_rng(seed)
    q_true = rng.normal(true_mean, 1.0, (runs, arms))
    optimal = q_true.argmax(axis=1)
    preferences = np.zeros((runs, arms))
    average = np.zeros(runs)
    took_optimal = np.empty(steps)
    mean_reward = np.empty(steps)
    reward_variance = np.empty(steps)
    rows = np.arange(runs)
    for t in range(steps):
        exp = np.exp(preferences - preferences.max(axis=1, keepdims=True))
        policy = exp / exp.sum(axis=1, keepdims=True)
        cumulative = policy.cumsum(axis=1)
        action = (rng.random((runs, 1)) < cumulative).argmax(axis=1)
        reward = q_true[rows, action] + rng.normal(0.0, 1.0, runs)
        average += (reward - average) / (t + 1)
        one_hot = np.zeros((runs, arms))
        one_hot[rows, action] = 1.0
        advantage = reward - (average if baseline else 0.0)
        preferences += step_size * advantage[:, None] * (one_hot - policy)
        took_optimal[t] = np.mean(action == optimal)
        mean_reward[t] = reward.mean()
        reward_variance[t] = reward.var(ddof=1)
    return took_optimal, mean_reward, reward_variance
