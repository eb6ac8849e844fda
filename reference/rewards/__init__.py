"""The reward models' references, one module each, mirroring ``study/rewards/``: each defines
``own(key, n, prompt)``, the model's own draws of pulls 0 .. n - 1 of prompt ``prompt`` (word 1
of its stream's counter; None for a model without a stream of its own), and ``outcome(value,
u_reward, own, parameters)``, the reward of a pull of an arm with value ``value`` given its
reward draw, its own draw (0.0 when there is none) and the model's parameters; a shaping
(``study.rewards``: a length-constraint model) defines ``shaped(reward, length, on,
parameters)``, and ``cut`` and ``lifted_at`` where it has them, instead."""
