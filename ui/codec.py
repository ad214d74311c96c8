"""Small JSON values carried whole in a link: compact JSON, deflated, in URL-safe base64.

The tour's decks (`ui.tour`) and the RoPE config view's overlaid and pasted configs
(`ui.rope_codes`) travel this way: a link holds them, the server keeps nothing. A code from a
link is a stranger's: its length is capped before decoding, what it inflates to is capped (no
zip bomb) and so is how deep it nests (`json.loads` would recurse past Python's limit); anything
that is not such a code is a ValueError, and nothing else.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

from core._checks import json_depth

# Levels of arrays and objects a code may nest: a deck is 2 deep ([[page, query, note]]), an
# overlay 5 ([{"c": {"rope_scaling": {"long_factor": [...]}}}]).
MAX_CODE_DEPTH = 8


def pack(value: Any) -> str:
    """`value` (JSON-ready) as a URL-safe code."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(zlib.compress(text, 9)).decode().rstrip("=")


def unpack(code: str, *, max_inflated: int) -> Any:
    """The value of a `pack` code, if it inflates to at most `max_inflated` bytes of JSON nested
    at most MAX_CODE_DEPTH deep. Raises ValueError, and only ValueError, for anything else."""
    if not isinstance(code, str):
        raise ValueError(f"not a code: {type(code).__name__}")
    try:
        packed = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        inflater = zlib.decompressobj()
        text = inflater.decompress(packed, max_inflated).decode()
        if inflater.unconsumed_tail or not inflater.eof:
            raise ValueError("not a whole code, or it inflates past its cap")
        if json_depth(text) > MAX_CODE_DEPTH:
            raise ValueError(f"nests deeper than {MAX_CODE_DEPTH} levels")
        return json.loads(text)
    except ValueError as error:  # binascii.Error, UnicodeDecodeError, JSONDecodeError among them
        raise ValueError(f"not a code: {error}") from None
    except (zlib.error, RecursionError, MemoryError) as error:
        raise ValueError(f"not a code: {type(error).__name__}") from None
