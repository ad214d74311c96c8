"""`core.PositionalEncoding`: a buffer, equal to the numpy table, adds it, refuses long inputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import core
from tests import reference


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_buffer_equals_sinusoidal_encoding(layout):
    module = core.PositionalEncoding(64, max_len=300, layout=layout)
    assert module.pe.shape == (1, 300, 64)
    assert "pe" in dict(module.named_buffers()) and not list(module.parameters())
    expected = core.sinusoidal_encoding(300, 64, layout=layout, dtype=np.float64)
    np.testing.assert_allclose(module.pe[0].numpy(), expected, atol=1e-6)


def test_default_max_len_and_the_articles_module():
    module = core.PositionalEncoding(32)
    assert module.pe.shape == (1, 5000, 32)
    article = reference.article_torch_div_term(50, 32)  # 001's div_term module, small positions
    np.testing.assert_allclose(module.pe[0, :50].numpy(), article.numpy(), atol=1e-5)


def test_forward_adds_the_first_seq_rows():
    module = core.PositionalEncoding(8, max_len=20)
    x = torch.randn(3, 7, 8, generator=torch.Generator().manual_seed(0))
    out = module(x)
    torch.testing.assert_close(out - x, module.pe[:, :7].expand(3, 7, 8))


def test_forward_refuses_too_long_and_wrong_shapes():
    module = core.PositionalEncoding(8, max_len=4)
    with pytest.raises(ValueError, match="seq=5 positions, more than max_len=4"):
        module(torch.zeros(1, 5, 8))
    with pytest.raises(ValueError, match="d_model=8"):
        module(torch.zeros(1, 3, 6))
    with pytest.raises(ValueError, match="d_model=7"):
        core.PositionalEncoding(7)
