"""Benchmarks: the package's kernel against reference implementations, in one process
(``make bench``; results in ``out/bench/``)."""
