"""DeepSeek-V3.2's unbiased KL estimate: k3 weighted by the importance ratio."""

from analysis.tables import ROUNDING_NOISE
from figures.ledger import CONTRADICTED, SUPPORTED, Claim

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2)", order=11,
    short="the KL estimate weighted by the importance ratio is unbiased off policy",
    stated="DeepSeek-V3.2: the k3 estimate of the KL divergence, weighted by the ratio of the "
           "current policy to the sampler's, gives an unbiased gradient of the KL term when "
           "rollouts are off-policy",
    metric="norm of the mean error of the estimator's gradient against the exact KL gradient, "
           "over runs",
    analogue="the KL estimator weighted by the importance ratio in every cell of the KL study, "
             "on and off policy: the largest of its mean bias norms",
    table="kl_estimators", rows="estimator == 'k3_is'", pick="largest:bias",
    cells=("environment", "lr", "lag", "state", "budget", "estimator", "runs"),
    estimate=("bias", "bias_low", "bias_high"), spec=".3g",
    # A mean bias norm below this is a double's rounding in sums of probabilities, not a bias.
    judged=f"bias < {ROUNDING_NOISE!r}",
    verdicts={"True": (SUPPORTED, "every cell's mean bias norm is rounding: zero, as the algebra "
                                  "says where the sampler covers the policy (not tested under "
                                  "truncation, where it should fail)"),
              "False": (CONTRADICTED, "a mean bias norm above rounding")})
