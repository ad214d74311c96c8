"""core.learned_tables: files written here by numpy, safetensors' own writer and torch are read
back exactly, every bad file is refused with its reason, and the lenses' numbers match values
known without the app: the sinusoid's offset-only share is 1 and its dominant wavelengths are
2 pi 10000^(2i/d), a planted period is found, the offset-only share equals a loop's."""

from __future__ import annotations

import io
import math
import pickle

import numpy as np
import pytest
from safetensors.numpy import save as save_safetensors

from core import learned_tables as lt
from core import learned_vs_sinusoidal as lvs
from core import limits
from tests import reference


def npy_bytes(array: np.ndarray, **kwargs) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, **kwargs)
    return buffer.getvalue()


def csv_bytes(array: np.ndarray, delimiter: str = ",", header: str = "") -> bytes:
    buffer = io.StringIO()
    np.savetxt(buffer, array, delimiter=delimiter, fmt="%.9g", header=header, comments="")
    return buffer.getvalue().encode()


def written(array: np.ndarray, kind: str) -> tuple[bytes, str]:
    """`array` as a file of `kind`, and the file's name."""
    if kind == "npy":
        return npy_bytes(array), "table.npy"
    if kind == "safetensors":
        return save_safetensors({"wpe.weight": np.ascontiguousarray(array)}), "model.safetensors"
    return csv_bytes(array, "," if kind == "csv" else "\t"), f"table.{kind}"


# --- the sinusoid: offset-only share 1, wavelengths 2 pi 10000^(2i/d) ---------------------------
@pytest.mark.parametrize("kind", ["npy", "safetensors", "csv", "tsv"])
def test_a_sinusoid_file_has_offset_only_share_one_and_the_papers_wavelengths(kind):
    n, d = 512, 128
    sinusoid = reference.loop_interleaved(n, d).astype(np.float32)  # the paper's formula, loops
    table = lt.read_table(*written(sinusoid, kind))
    np.testing.assert_allclose(table, sinusoid, rtol=1e-6 if kind in ("csv", "tsv") else 0)
    lenses = lt.lens_numbers(table)
    assert lenses.offset_only_share == pytest.approx(1.0, abs=1e-9)
    # Column j's wavelength: 2 pi 10000^(2 floor(j/2) / d), the paper's. The spectrum reads
    # m = n - 1 positions (position 0 skipped): frequency bins 1/m apart, and the peak is the
    # bin nearest the true frequency, for every column with at least two cycles in the table.
    m = n - 1
    truth = np.array([2 * math.pi * 10000 ** (2 * (j // 2) / d) for j in range(d)])
    np.testing.assert_allclose(lenses.ladder, truth, rtol=1e-12)
    seen = truth <= m / 2
    assert seen.sum() == 2 * 26  # pairs 0..25 fit two cycles in 511 positions
    bins_off = np.abs(m / lenses.waves.period[seen] - m / truth[seen])
    assert bins_off.max() <= 0.5  # within the spectrum's resolution (half a bin each way)
    assert lt.wavelength_resolution(n) == pytest.approx(1 / m)


def test_a_planted_period_is_found():
    rng = np.random.default_rng(7)
    n = 513  # m = 512 positions after position 0: period 32 is bin 16 exactly
    table = 0.05 * rng.standard_normal((n, 48))
    positions = np.arange(n)
    table[:, 5] += np.sin(2 * np.pi * positions / 32 + 0.3)
    table[:, 9] += np.cos(2 * np.pi * positions / 45.7)  # between bins: 512 / 45.7 = 11.2
    waves = lt.lens_numbers(lt.read_table(npy_bytes(table.astype(np.float32)),
                                          "planted.npy")).waves
    assert waves.period[5] == 32.0 and waves.share[5] > 0.9
    assert abs(512 / waves.period[9] - 512 / 45.7) <= 0.5
    noise = [j for j in range(48) if j not in (5, 9)]
    assert waves.share[noise].max() < 0.2  # noise spreads over every bin


def loop_offset_only_share(matrix: np.ndarray) -> float:
    """1 - sum (S - mean of its diagonal)^2 / sum (S - mean)^2, one entry at a time."""
    n = len(matrix)
    diagonal: dict[int, list[float]] = {}
    for i in range(n):
        for j in range(n):
            diagonal.setdefault(i - j, []).append(matrix[i, j])
    means = {k: sum(v) / len(v) for k, v in diagonal.items()}
    mean = sum(sum(row) for row in matrix) / (n * n)
    residual = sum((matrix[i, j] - means[i - j]) ** 2 for i in range(n) for j in range(n))
    total = sum((matrix[i, j] - mean) ** 2 for i in range(n) for j in range(n))
    return 1 - residual / total


@pytest.mark.parametrize("n", [2, 7, 300])  # 300: more than one block of rows
def test_offset_only_share_equals_a_loop(n):
    matrix = np.random.default_rng(n).standard_normal((n, n))
    assert lvs.offset_only_share(matrix) == pytest.approx(loop_offset_only_share(matrix),
                                                          abs=1e-12)
    assert lvs.offset_only_share(np.ones((5, 5))) == 1.0  # nothing left to explain


def test_minilm_table_round_trips_exactly(weights):
    table = weights["embeddings.position_embeddings.weight"]  # (512, 384) float32
    for data, name in (written(table, "npy"), written(table, "safetensors")):
        read = lt.read_table(data, name)
        assert read.dtype == np.float32 and not read.flags.writeable
        np.testing.assert_array_equal(read, table)
    # the model's own tensors (but its 45 MB word table), one picked by name
    kept = [k for k in weights if "word_embeddings" not in k and "layer.5" not in k]
    file = save_safetensors({k: weights[k] for k in kept[:40]})
    assert len(lt.list_tensors(file)) == 40
    names = {info.name: info.shape for info in lt.list_tensors(file)}
    assert names["embeddings.position_embeddings.weight"] == (512, 384)
    picked = lt.read_table(file, "m.safetensors", tensor="embeddings.position_embeddings.weight")
    np.testing.assert_array_equal(picked, table)


# --- formats ------------------------------------------------------------------------------------
def test_safetensors_names_shapes_and_the_likeliest_table():
    rng = np.random.default_rng(0)
    file = save_safetensors({
        "transformer.wte.weight": rng.standard_normal((50, 8)).astype(np.float32),
        "transformer.wpe.weight": rng.standard_normal((16, 8)).astype(np.float32),
        "transformer.h.0.ln_1.bias": np.zeros(8, np.float32),
    })
    infos = lt.list_tensors(file)
    assert {(i.name, i.shape, i.dtype) for i in infos} == {
        ("transformer.wte.weight", (50, 8), "F32"), ("transformer.wpe.weight", (16, 8), "F32"),
        ("transformer.h.0.ln_1.bias", (8,), "F32")}
    assert lt.position_tensor(infos) == "transformer.wpe.weight"
    assert lt.read_table(file, "gpt2.safetensors").shape == (16, 8)
    with pytest.raises(lt.TableFileError) as error:
        lt.read_table(file, "gpt2.safetensors", tensor="transformer.wpe")
    assert error.value.reason == "no_tensor"
    with pytest.raises(lt.TableFileError) as error:
        lt.read_table(file, "gpt2.safetensors", tensor="transformer.h.0.ln_1.bias")
    assert error.value.reason == "not_2d"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64", "int32"])
def test_safetensors_dtypes_equal_torch(dtype):
    import torch
    from safetensors.torch import save

    values = torch.linspace(-3, 3, 40, dtype=torch.float64).reshape(10, 4).to(getattr(torch,
                                                                                       dtype))
    read = lt.read_table(save({"pos_embed": values}), "vit.safetensors")
    np.testing.assert_array_equal(read, values.to(torch.float32).numpy())


def test_npy_fortran_order_and_text_with_column_names():
    table = np.arange(12, dtype=np.float64).reshape(4, 3)
    np.testing.assert_array_equal(lt.read_table(npy_bytes(np.asfortranarray(table)), "f.npy"),
                                  table)
    data = csv_bytes(table, header="d0,d1,d2")
    np.testing.assert_array_equal(lt.read_table(data, "named.CSV"), table)


# --- bad files ----------------------------------------------------------------------------------
GOOD = np.ones((4, 3), np.float32)


def truncated_npy() -> bytes:
    return npy_bytes(GOOD)[:-5]


def truncated_safetensors() -> bytes:
    return save_safetensors({"pos": GOOD})[:-5]


def nan_table() -> bytes:
    table = GOOD.copy()
    table[2, 1] = np.nan
    return npy_bytes(table)


def header_claiming(shape) -> bytes:
    """An .npy header promising `shape` float32, and 16 bytes of data."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f4", "fortran_order": False,
                                                  "shape": shape})
    return buffer.getvalue() + bytes(16)


BAD_FILES = {
    "format": (b"\x00", "weights.pt"),
    "empty": (b"", "empty.npy"),
    "file_too_large": (bytes(limits.MAX_TABLE_FILE_BYTES + 1), "big.npy"),
    "too_large": (header_claiming((limits.MAX_TABLE_POSITIONS + 1, 8)), "long.npy"),
    "too_large_width": (header_claiming((8, limits.MAX_TABLE_WIDTH + 1)), "wide.npy"),
    "not_2d": (npy_bytes(np.ones((1, 197, 8), np.float32)), "vit.npy"),
    "too_small": (npy_bytes(np.ones((1, 8), np.float32)), "one.npy"),
    "not_finite": (nan_table(), "nan.npy"),
    "not_finite_inf": (csv_bytes(np.array([[1, 2], [np.inf, 3]])), "inf.csv"),
    "not_finite_overflow": (npy_bytes(np.array([[1e300, 1], [1, 1]])), "huge.npy"),
    "pickle": (npy_bytes(np.array([[{"a": 1}, 2]], dtype=object), allow_pickle=True), "o.npy"),
    "pickle_named_npy": (pickle.dumps(GOOD, protocol=4), "p.npy"),
    "truncated": (truncated_npy(), "cut.npy"),
    "truncated_safetensors": (truncated_safetensors(), "cut.safetensors"),
    "not_format": (csv_bytes(GOOD), "text.npy"),
    "not_format_safetensors": (npy_bytes(GOOD), "npy.safetensors"),
    "not_format_csv": (npy_bytes(GOOD)[10:] + b"\x00", "binary.csv"),
    "ragged": (b"1,2,3\n4,5\n", "ragged.csv"),
    "not_number": (b"1,2\n3,x\n", "letters.csv"),
    "dtype": (npy_bytes(np.array([[1 + 2j, 1], [1, 1]])), "complex.npy"),
    "dtype_strings": (npy_bytes(np.array([["a", "b"], ["c", "d"]])), "s.npy"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_every_bad_file_is_refused_with_its_reason(case):
    data, name = BAD_FILES[case]
    with pytest.raises(lt.TableFileError) as error:
        lt.read_table(data, name)
    expected = {"file_too_large": "file_too_large", "too_large_width": "too_large",
                "not_finite_inf": "not_finite", "not_finite_overflow": "not_finite",
                "pickle_named_npy": "pickle", "truncated_safetensors": "truncated",
                "not_format_safetensors": "not_format", "not_format_csv": "not_format",
                "dtype_strings": "dtype"}.get(case, case)
    assert error.value.reason == expected
    assert isinstance(error.value, ValueError) and str(error.value)


def test_messages_name_what_was_wrong():
    def message(data, name):
        with pytest.raises(lt.TableFileError) as error:
            lt.read_table(data, name)
        return str(error.value)

    assert "position 2, dimension 1" in message(nan_table(), "nan.npy")
    assert "pos_embed[0]" in message(*BAD_FILES["not_2d"])
    assert "4097 x 8" in message(*BAD_FILES["too_large"])
    assert "17 MB" in message(*BAD_FILES["file_too_large"])
    assert "line 2" in message(*BAD_FILES["ragged"]) and "'x'" in message(*BAD_FILES[
        "not_number"])
    assert "pickle" in message(*BAD_FILES["pickle"])
    assert ".safetensors, .npy, .csv, .tsv" in message(*BAD_FILES["format"])
    assert "is named .npy" in message(*BAD_FILES["not_format"])


def test_the_user_guides_python_example_runs(tmp_path, monkeypatch):
    """docs/user-guide.md's `core` example, on a GPT-2-sized table written here: it runs and
    prints the sinusoid's share as 1.000."""
    import contextlib
    import re
    from pathlib import Path

    guide = (Path(__file__).resolve().parent.parent / "docs" / "user-guide.md").read_text()
    section = guide[guide.index("**The same in Python.**"):guide.index("## Model configs")]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(2)
    np.save("gpt2-wpe.npy", (0.1 * rng.standard_normal((1024, 768))).astype(np.float32))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "user-guide.md", "exec"), {})
    assert "sinusoid's share 1.000" in printed.getvalue()
    assert (tmp_path / "wavelengths.html").stat().st_size > 0


def test_the_user_guides_export_lines_write_tables_the_page_reads(tmp_path, monkeypatch):
    """docs/user-guide.md's "Exporting a table" block, run: transformers' real BERT and GPT-2
    classes (small random ones built from a config: no download here) give the attribute paths
    the guide names, and each file it writes reads back as the page reads it, rows the
    positions. timm is not installed: a stand-in with timm's ViT-B/16 `pos_embed` shape
    (1, 1 + 14 * 14, 768), so the ViT line's indexing is what is checked, and its 197 rows are
    offered as a 14 x 14 grid with a class token."""
    import re
    import sys
    import types
    from pathlib import Path

    import torch
    from transformers import AutoModel, BertConfig, BertModel, GPT2Config, GPT2Model

    from core.vit_grid import grid_shapes

    small = {"bert-base-uncased": lambda: BertModel(BertConfig(
                 vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                 intermediate_size=64, max_position_embeddings=512)),
             "gpt2": lambda: GPT2Model(GPT2Config(vocab_size=64, n_embd=32, n_layer=1, n_head=2,
                                                  n_positions=1024))}
    monkeypatch.setattr(AutoModel, "from_pretrained", lambda name, **_: small[name]())
    vit = types.SimpleNamespace(pos_embed=torch.nn.Parameter(torch.randn(1, 197, 768)))
    monkeypatch.setitem(sys.modules, "timm", types.SimpleNamespace(
        create_model=lambda name, pretrained: vit))
    guide = (Path(__file__).resolve().parent.parent / "docs" / "user-guide.md").read_text()
    section = guide[guide.index("**Exporting a table**"):guide.index("**What each lens says**")]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    monkeypatch.chdir(tmp_path)
    with torch.no_grad():
        exec(compile(code, "user-guide.md", "exec"), {})
    shapes = {name: lt.read_table((tmp_path / name).read_bytes(), name, tensor=tensor).shape
              for name, tensor in [("bert-positions.npy", None), ("gpt2-wpe.npy", None),
                                   ("gpt2-wpe.safetensors", "wpe.weight"),
                                   ("vit-b16-pos-embed.npy", None)]}
    assert shapes == {"bert-positions.npy": (512, 32), "gpt2-wpe.npy": (1024, 32),
                      "gpt2-wpe.safetensors": (1024, 32), "vit-b16-pos-embed.npy": (197, 768)}
    assert (14, 14, True) in grid_shapes(197)


def test_a_zero_row_is_like_no_other_not_nan():
    """RoBERTa's padding position and MAE's class token are zero rows: their cosines are 0."""
    table = np.vstack([np.zeros((1, 4)), np.random.default_rng(3).standard_normal((9, 4))])
    lenses = lt.lens_numbers(table, anchor=0)
    matrix = lvs.full_similarity_matrix(table)
    assert np.all(matrix[0] == 0) and np.all(np.isfinite(matrix))
    assert np.isfinite(lenses.offset_only_share) and np.isfinite(lenses.summary.neighbour_mean)
    offsets, values = lenses.curves[0]
    assert np.all(values[offsets >= 0] == 0)
