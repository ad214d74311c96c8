"""`PositionalEncoding` as a torch module, like the articles' (001, 003): a buffer added to x.

Imported lazily by `core.__getattr__`, so `import core` never pays for `import torch` unless
asked.
"""

from __future__ import annotations

import numpy as np
import torch

from core import limits
from core._checks import check_choice, check_even_d_model, check_int
from core.sinusoidal import LAYOUTS, Layout, sinusoidal_encoding


class PositionalEncoding(torch.nn.Module):
    """x -> x + PE[:seq] for x of shape ``(batch, seq, d_model)``.

    ``pe`` is a buffer of shape ``(1, max_len, d_model)``, float32: it moves with ``.to()`` and is
    saved in the state dict, but it is not a parameter (nothing trains it).
    """

    pe: torch.Tensor

    def __init__(
        self,
        d_model: int,
        max_len: int = 5000,
        base: float = limits.DEFAULT_BASE,
        layout: Layout = "interleaved",
    ) -> None:
        super().__init__()
        self.d_model = check_even_d_model("d_model", d_model)
        self.max_len = check_int(
            "max_len", max_len, minimum=1, maximum=limits.MAX_TORCH_ELEMENTS // self.d_model
        )
        self.layout = check_choice("layout", layout, LAYOUTS)
        table = sinusoidal_encoding(max_len, d_model, base=base, layout=layout, dtype=np.float32)
        self.register_buffer("pe", torch.from_numpy(table).unsqueeze(0))  # (1, max_len, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 3 or x.shape[-1] != self.d_model:
            raise ValueError(
                f"x has shape {tuple(x.shape)}: it must be (batch, seq, d_model={self.d_model})"
            )
        seq = x.shape[1]
        if seq > self.max_len:
            raise ValueError(
                f"x has seq={seq} positions, more than max_len={self.max_len}: "
                f"build PositionalEncoding with max_len >= {seq}"
            )
        return x + self.pe[:, :seq]
