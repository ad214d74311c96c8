"""Small JSON values carried whole in a link: compact JSON, deflated, in URL-safe base64.

The tour's decks (`ui.tour`) and the RoPE config view's overlaid and pasted configs
(`ui.rope_config`) travel this way: a link holds them, the server keeps nothing. A code from a
link is a stranger's: its length is capped before decoding and what it inflates to is capped
(no zip bomb); anything that is not such a code is a ValueError.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Any


def pack(value: Any) -> str:
    """`value` (JSON-ready) as a URL-safe code."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(zlib.compress(text, 9)).decode().rstrip("=")


def unpack(code: str, *, max_inflated: int) -> Any:
    """The value of a `pack` code, if it inflates to at most `max_inflated` bytes of JSON."""
    try:
        packed = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        inflater = zlib.decompressobj()
        text = inflater.decompress(packed, max_inflated)
        if inflater.unconsumed_tail or not inflater.eof:
            raise ValueError("not a whole code, or it inflates past its cap")
        return json.loads(text.decode())
    except (binascii.Error, zlib.error, UnicodeDecodeError) as error:
        raise ValueError(f"not a code: {error}") from None
