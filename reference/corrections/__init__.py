"""The off-policy corrections' references, one module each, mirroring ``study/corrections/``: a
weight defines ``weight(rho, advantage, parameters)``, a rollout's weight from its importance
ratio and advantage, a mask ``keeps(rho, advantage, parameters)``, whether it keeps the rollout;
``parameters`` are the correction's own, in the order it declares them. The support
(``keep_mask``) is ``reference.offpolicy``'s own operation and has no module here."""
