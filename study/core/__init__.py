"""The numba layer: the random generator, the exponential, normal draws, the kernel's drivers and
the protocol learners implement (``hooks``). It imports nothing from the rest of the package.
(``streams`` holds plain constants and loads no numba, so the specification layer may read it.)"""
