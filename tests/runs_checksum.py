"""A checksum of each column of a runs table, for the output-identity test
(``test_output_identity.py``): SHA-256 of the column's values as little-endian bytes (numbers and
booleans) or as newline-joined UTF-8 text (strings), so it depends on the values only, not on the
Parquet file's layout or pandas' hashing."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd


def column_checksums(runs: pd.DataFrame, columns: list[str]) -> dict[str, str]:
    """{column: SHA-256 hex digest of its values}."""
    found = {}
    for name in columns:
        values = runs[name].to_numpy()
        if values.dtype == object:
            data = "\n".join(map(str, values)).encode()
        else:
            data = np.ascontiguousarray(values.astype(values.dtype.newbyteorder("<"))).tobytes()
        found[name] = f"{values.dtype.str}:{hashlib.sha256(data).hexdigest()}"
    return found
