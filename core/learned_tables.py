r"""Position tables you bring: a trained model's learned position table read from a file, and
every number the learned-vs-sinusoidal lenses draw from it.

Formats, by the file's name:

- ``.safetensors`` (Hugging Face's weights): 8 bytes giving the header's length N
  (little-endian), N bytes of JSON ``{name: {"dtype", "shape", "data_offsets": [begin, end]}}``,
  then the tensors' bytes. Read here from that layout, no framework (F64, F32, F16, BF16 and
  integers); one tensor by name (`list_tensors` gives every name, shape and dtype).
- ``.npy`` (``np.save``): read with ``allow_pickle=False``, its header checked before any data is
  read (a 100-byte file may claim 10^12 numbers).
- ``.csv`` / ``.tsv``: numbers, one position a line; a first line of column names is skipped.

A table is rows = positions, columns = dimensions: 2-D, at least 2 x 1, at most
limits.MAX_TABLE_POSITIONS x limits.MAX_TABLE_WIDTH, from a file of at most
limits.MAX_TABLE_FILE_BYTES, every entry finite. It is returned as float32 ``(n, d)``,
read-only. Anything else raises `TableFileError` (a ValueError): its ``reason`` names the
problem, its message says it in English.

The lenses (`lens_numbers`), with `core.learned_vs_sinusoidal`'s maths: the heatmap's values, the
similarity matrix S and its offset-only share

$$R^2 = 1 - \frac{\sum_{i,j} (S_{ij} - \bar S_{i-j})^2}{\sum_{i,j} (S_{ij} - \bar S)^2},$$

with $\bar S_k$ the mean of diagonal $k$ (1 when the similarity depends on the offset alone, as
the sinusoid's does); each dimension's dominant wavelength from the spectrum of its column over
the positions, beside the sinusoid's ladder $2\pi \cdot 10000^{2i/d}$; the PCA path; the offset
curves around an anchor; and the norms, which say where the table stops.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

import numpy as np

from core import learned_vs_sinusoidal as lvs
from core import limits
from core._checks import InputError, json_depth, shorten
from core.overview import Overview
from core.similarity import Metric
from core.sinusoidal import wavelengths
from core.word_position import Projection, project

TableFormat = Literal["safetensors", "npy", "csv", "tsv"]
FORMATS: dict[str, TableFormat] = {
    ".safetensors": "safetensors", ".npy": "npy", ".csv": "csv", ".tsv": "tsv",
}
ALLOWED = ", ".join(FORMATS)

# safetensors' dtype names, as numpy reads them (little-endian); BF16 is widened by hand.
_SAFETENSORS_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2",
    "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
    "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1",
}
_MAX_HEADER = 2**20  # a safetensors header past 1 MiB names thousands of tensors: not a table
_PICKLE = (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05")  # pickle protocols 2-5
_ZIP = b"PK\x03\x04"  # torch.save's files: a zip of pickles


class TableFileError(InputError):
    """A file that does not hold a usable position table (see the module docstring):
    ``reason`` is a key of `MESSAGES`, ``details`` its values, ``str()`` the English sentence."""


# Every refusal, in English (the app's catalogues word the same reasons in each language).
MESSAGES = {
    "format": "{name} is not a table file this app reads: the name must end in one of "
              "{allowed}",
    "empty": "the file is empty",
    "file_too_large": "the file is {size_mb} MB: at most {max_mb} MB is read ({max_rows} "
                      "positions x {max_cols} dimensions of float32)",
    "pickle": "the {format} file is a Python pickle, which can run code when read: it is not "
              "read. Save the table with numpy.save or safetensors",
    "not_format": "the file is named {format}, but its content is not a {format} file's",
    "truncated": "the {format} file is cut short: it promises {expected} bytes, it holds {got}",
    "not_2d": "the table has shape {shape}: a position table is 2-D, rows = positions and "
              "columns = dimensions (a ViT's pos_embed of shape (1, N, d): save pos_embed[0])",
    "too_small": "the table has shape {shape}: at least 2 positions and 1 dimension are needed",
    "too_large": "the table is {rows} x {cols}: at most {max_rows} positions x {max_cols} "
                 "dimensions are read",
    "dtype": "the table holds {dtype} values: only real numbers are read",
    "not_finite": "the table holds {count} values that are NaN or infinite (or beyond "
                  "float32), the first at position {position}, dimension {dimension}",
    "no_tensor": "the file has no tensor named {tensor}",
    "no_table": "no tensor of the file is a 2-D table of at most {max_rows} x {max_cols}: "
                "{tensors}",
    "ragged": "line {line} has {count} values, the first line {expected}: every position "
              "needs the same number of dimensions",
    "not_number": "line {line} holds '{text}', not a number",
}


def _refuse(reason: str, **details: object) -> TableFileError:
    """The error for `reason` (a key of MESSAGES) with these details."""
    return TableFileError(reason, MESSAGES[reason].format(**details), **details)


@dataclass(frozen=True)
class TensorInfo:
    """One tensor of a safetensors file, as its header describes it."""

    name: str
    shape: tuple[int, ...]
    dtype: str  # safetensors' name: "F32", "BF16", ...

    @property
    def usable(self) -> bool:
        """2-D, of a dtype read here, within the size caps."""
        return (len(self.shape) == 2 and self.dtype in _SAFETENSORS_DTYPES
                and 2 <= self.shape[0] <= limits.MAX_TABLE_POSITIONS
                and 1 <= self.shape[1] <= limits.MAX_TABLE_WIDTH)


# --- reading -----------------------------------------------------------------------------------
def table_format(file_name: str) -> TableFormat:
    """The format a file's name says (its extension, any case)."""
    suffix = PurePath(str(file_name)).suffix.lower()
    if suffix not in FORMATS:
        raise _refuse("format", name=shorten(file_name), allowed=ALLOWED)
    return FORMATS[suffix]


def read_table(data: bytes, file_name: str, *, tensor: str | None = None) -> np.ndarray:
    """The position table in `data`, a file's bytes, in the format its name says: ``(n, d)``
    float32, read-only. `tensor`: which tensor of a safetensors file (by default the one
    `position_tensor` picks). Raises `TableFileError` saying what is wrong."""
    kind = table_format(file_name)
    data = bytes(data)
    _check_file_size(len(data))
    _refuse_pickles(data, kind)
    if kind == "safetensors":
        table = _read_safetensors(data, tensor)
    elif kind == "npy":
        table = _read_npy(data)
    else:
        table = _read_text(data, "," if kind == "csv" else "\t", "." + kind)
    return _checked_table(table)


def list_tensors(data: bytes) -> list[TensorInfo]:
    """Every tensor of a safetensors file (in the header's order), from its header alone."""
    _check_file_size(len(data))
    _refuse_pickles(bytes(data[:8]), "safetensors")
    header, _ = _safetensors_header(data)
    return [TensorInfo(name, tuple(entry["shape"]), entry["dtype"])
            for name, entry in header.items()]


def position_tensor(tensors: list[TensorInfo]) -> str | None:
    """The likeliest position table among a file's tensors: the first usable one whose name
    says positions (``position_embeddings``, GPT-2's ``wpe``, a ViT's ``pos_embed``), else the
    first usable one; None when none is usable."""
    usable = [t for t in tensors if t.usable]
    for info in usable:
        lowered = info.name.lower()
        if "position" in lowered or "pos_emb" in lowered or lowered.split(".")[-2:-1] == ["wpe"]:
            return info.name
    return usable[0].name if usable else None


def _check_file_size(size: int) -> None:
    if size > limits.MAX_TABLE_FILE_BYTES:
        raise _refuse("file_too_large", size_mb=f"{size / 2**20:.1f}",
                      max_mb=limits.MAX_TABLE_FILE_MB, max_rows=limits.MAX_TABLE_POSITIONS,
                      max_cols=limits.MAX_TABLE_WIDTH)
    if size == 0:
        raise _refuse("empty")


def _refuse_pickles(data: bytes, kind: TableFormat) -> None:
    """Pickles (and torch.save's zips of them) are never read: they can run code."""
    if data.startswith(_PICKLE) or data.startswith(_ZIP):
        raise _refuse("pickle", format="." + kind)


def _not_format(kind: str, problem: str) -> TableFileError:
    """Not what its name says; `problem` (English) is kept in the details for the server's log."""
    return _refuse("not_format", format=kind, problem=problem)


def _truncated(kind: str, expected: int, got: int) -> TableFileError:
    return _refuse("truncated", format=kind, expected=expected, got=got)


def _check_shape(shape: tuple[int, ...]) -> None:
    """Rows = positions, columns = dimensions, within the caps (before any number is read)."""
    if len(shape) != 2:
        raise _refuse("not_2d", shape=str(tuple(shape)))
    rows, cols = shape
    if rows < 2 or cols < 1:
        raise _refuse("too_small", shape=str(tuple(shape)))
    if rows > limits.MAX_TABLE_POSITIONS or cols > limits.MAX_TABLE_WIDTH:
        raise _refuse("too_large", rows=rows, cols=cols, max_rows=limits.MAX_TABLE_POSITIONS,
                      max_cols=limits.MAX_TABLE_WIDTH)


def _checked_table(table: np.ndarray) -> np.ndarray:
    """A real table of the right shape as float32, read-only; NaN/inf (also from values past
    float32's range) refused, naming the first."""
    if table.dtype.kind not in "fiu":
        raise _refuse("dtype", dtype=str(table.dtype))
    _check_shape(table.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        table = np.ascontiguousarray(table, dtype=np.float32)  # (n, d)
    bad = ~np.isfinite(table)
    if bad.any():
        position, dimension = (int(i) for i in np.argwhere(bad)[0])
        raise _refuse("not_finite", count=int(bad.sum()), position=position,
                      dimension=dimension)
    table.setflags(write=False)
    return table


def _safetensors_header(data: bytes) -> tuple[dict[str, dict], int]:
    """The header's tensors (``__metadata__`` left out) and where their bytes start."""
    if len(data) < 8:
        raise _not_format(".safetensors", "it is shorter than the 8 bytes of a header's length")
    length = int.from_bytes(data[:8], "little")
    if length > _MAX_HEADER:
        raise _not_format(".safetensors", f"its first 8 bytes announce a header of {length} "
                          "bytes")
    if 8 + length > len(data):
        raise _truncated(".safetensors", 8 + length, len(data))
    try:
        text = bytes(data[8:8 + length]).decode("utf-8")
        if json_depth(text) > 3:
            raise ValueError("the header nests too deep")
        header = json.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise _not_format(".safetensors", f"its header is not JSON ({shorten(error, 60)})") \
            from None
    if not isinstance(header, dict):
        raise _not_format(".safetensors", "its header is not a JSON object")
    header.pop("__metadata__", None)
    for name, entry in header.items():
        if not (isinstance(entry, dict) and isinstance(entry.get("dtype"), str)
                and isinstance(entry.get("shape"), list)
                and all(isinstance(s, int) and s >= 0 for s in entry["shape"])
                and isinstance(entry.get("data_offsets"), list)
                and len(entry["data_offsets"]) == 2
                and all(isinstance(o, int) and o >= 0 for o in entry["data_offsets"])):
            raise _not_format(".safetensors", f"tensor {shorten(name)} is described wrongly")
    if not header:
        raise _not_format(".safetensors", "it holds no tensor")
    return header, 8 + length


def _read_safetensors(data: bytes, tensor: str | None) -> np.ndarray:
    header, start = _safetensors_header(data)
    tensors = [TensorInfo(name, tuple(e["shape"]), e["dtype"]) for name, e in header.items()]
    if tensor is None:
        tensor = position_tensor(tensors)
        if tensor is None:
            listed = ", ".join(f"{t.name} {t.shape}" for t in tensors[:6])
            raise _refuse("no_table", max_rows=limits.MAX_TABLE_POSITIONS,
                          max_cols=limits.MAX_TABLE_WIDTH, tensors=shorten(listed, 200))
    if tensor not in header:
        raise _refuse("no_tensor", tensor=shorten(tensor))
    entry = header[tensor]
    shape = tuple(entry["shape"])
    if entry["dtype"] not in _SAFETENSORS_DTYPES:
        raise _refuse("dtype", dtype=entry["dtype"])
    _check_shape(shape)
    dtype = np.dtype(_SAFETENSORS_DTYPES[entry["dtype"]])
    begin, end = entry["data_offsets"]
    expected = math.prod(shape) * dtype.itemsize
    if end - begin != expected:
        raise _not_format(".safetensors", f"tensor {shorten(tensor)} of shape {shape} should "
                          f"take {expected} bytes, its offsets give {end - begin}")
    if start + end > len(data):
        raise _truncated(".safetensors", start + end, len(data))
    values = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=start + begin)
    if entry["dtype"] == "BF16":  # bfloat16: the high half of a float32
        values = (values.astype(np.uint32) << 16).view(np.float32)
    return values.reshape(shape)


def _read_npy(data: bytes) -> np.ndarray:
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
    except ValueError:
        raise _not_format(".npy", "it does not start with numpy's magic bytes") from None
    try:
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"format version {version} is not read")
    except ValueError as error:
        raise _not_format(".npy", f"its header cannot be read ({shorten(error, 60)})") from None
    if dtype.hasobject:
        raise _refuse("pickle", format=".npy")
    if dtype.kind not in "fiu" or dtype.subdtype is not None or dtype.names:
        raise _refuse("dtype", dtype=str(dtype))
    _check_shape(tuple(shape))
    expected = math.prod(shape) * dtype.itemsize
    got = len(data) - stream.tell()
    if got < expected:
        raise _truncated(".npy", expected, got)
    values = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=stream.tell())
    return values.reshape(shape[::-1]).T if fortran else values.reshape(shape)


def _read_text(data: bytes, delimiter: str, kind: str) -> np.ndarray:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _not_format(kind, "it is not UTF-8 text") from None
    if "\x00" in text:
        raise _not_format(kind, "it holds binary data, not text")
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise _refuse("empty")
    first = _fields(lines[0], delimiter, 1, kind)
    if first is None:  # column names
        lines = lines[1:]
        if not lines:
            raise _refuse("too_small", shape="(0, 0)")
        first = _fields(lines[0], delimiter, 2, kind)
        offset = 2
    else:
        offset = 1
    width = len(first)  # type: ignore[arg-type]
    _check_shape((len(lines), width))  # before the numbers are read
    table = np.empty((len(lines), width))  # (n, d)
    for row, line in enumerate(lines):
        values = first if row == 0 else _fields(line, delimiter, row + offset, kind, strict=True)
        if len(values) != width:  # type: ignore[arg-type]
            raise _refuse("ragged", line=row + offset, count=len(values),  # type: ignore[arg-type]
                          expected=width)
        table[row] = values
    return table


def _fields(line: str, delimiter: str, number: int, kind: str,
            strict: bool = False) -> list[float] | None:
    """A line's numbers; None for a first line that is not numbers (column names)."""
    cells = [cell.strip() for cell in line.split(delimiter)]
    try:
        return [float(cell) for cell in cells]
    except ValueError:
        if not strict and number == 1:
            return None
        bad = next(c for c in cells if not _is_number(c))
        raise _refuse("not_number", line=number, text=shorten(bad, 30)) from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# --- the lenses --------------------------------------------------------------------------------
def sinusoid_for(table: np.ndarray, rows: int | None = None) -> np.ndarray:
    """The sinusoid beside a table: the paper's (interleaved, base 10000), `rows` positions (the
    table's by default), the table's width; an odd width d is the first d columns of d + 1.
    ``(rows, d)`` float64."""
    from core.sinusoidal import sinusoidal_encoding

    n, d = np.shape(table)
    return sinusoidal_encoding(rows or n, d + d % 2, dtype="float64")[:, :d]


def sinusoid_ladder(d_model: int) -> np.ndarray:
    """The sinusoid's wavelength for each column ``(d,)``: 2*pi * 10000^(2i/d) for columns 2i and
    2i + 1 (the interleaved layout; an odd width counts as d + 1)."""
    return np.repeat(wavelengths(d_model + d_model % 2), 2)[:d_model]


def wavelength_resolution(rows: int) -> float:
    """How finely the spectrum of a column over `rows` positions tells frequencies apart:
    1 / m cycles per position, m = rows - 1 (`lvs.dominant_waves` skips position 0), so a
    dominant period P = m / k stands for any true period within one bin of it."""
    return 1.0 / (rows - 1)


@dataclass(frozen=True, eq=False)
class LensNumbers:
    """Every number the learned-vs-sinusoidal lenses draw from one table."""

    summary: lvs.TableSummary  # |P_0|, the mean |P_p| after it, the neighbours' similarity
    heatmap: Overview  # the table as the heatmap draws it
    heatmap_range: float  # its colour scale: [-r, r]
    similarity: Overview  # S as the similarity heatmap draws it
    offset_only_share: float  # the variance of S that its diagonals' means explain
    toeplitz_deviation: float  # RMS of S about its diagonals' means
    waves: lvs.DominantWaves  # each column's dominant period and its share of the variance
    ladder: np.ndarray  # (d,) the sinusoid's wavelengths, column by column
    projection: Projection  # the PCA path, 2-D
    curves: dict[int, tuple[np.ndarray, np.ndarray]]  # {anchor: (offsets, similarity)}
    curve_spread: float  # the largest gap between the anchors' curves at one offset
    norms: np.ndarray  # (n,) |P_p|: where the table stops


def lens_numbers(table: np.ndarray, *, metric: Metric = "cosine", anchor: int = 100,
                 max_offset: int = 128, heatmap_rows: int = 256,
                 heatmap_cols: int = 384) -> LensNumbers:
    """`LensNumbers` of a table ``(n, d)`` (a `read_table` result, or any array). The similarity
    matrix is built whole: (n, n) float64, 128 MB at 4096 positions. `anchor` is clamped to the
    table; the curves are those of it and of 0, n/3 and 2n/3."""
    table = np.asarray(table, dtype=np.float64)  # (n, d)
    rows = table.shape[0]
    matrix = lvs.full_similarity_matrix(table, metric)  # (n, n)
    anchors = lvs.comparison_anchors(min(anchor, rows - 1), rows)
    curves = lvs.offset_similarity_curves(table, anchors, min(max_offset, rows - 1), metric)
    return LensNumbers(
        summary=lvs.summarize_table(table, metric),
        heatmap=lvs.table_overview(table, heatmap_rows, heatmap_cols),
        heatmap_range=lvs.symmetric_range(table),
        similarity=lvs.table_overview(matrix, heatmap_rows, heatmap_rows),
        offset_only_share=lvs.offset_only_share(matrix),
        toeplitz_deviation=lvs.toeplitz_deviation(matrix),
        waves=lvs.dominant_waves(table),
        ladder=sinusoid_ladder(table.shape[1]),
        projection=project(table, 2, seed=0),
        curves=curves,
        curve_spread=lvs.curve_spread(curves),
        norms=lvs.position_norms(table),
    )
