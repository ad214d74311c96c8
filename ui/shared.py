"""Arrays cached once for every session (`st.cache_resource`)."""

from __future__ import annotations

import numpy as np


def read_only(array: np.ndarray) -> np.ndarray:
    """`array`, marked read-only: a cache_resource value is one object shared by every session
    (cache_data would hand each call a pickled copy), so nobody may change it in place."""
    array.flags.writeable = False
    return array
