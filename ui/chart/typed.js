// plotly.py's typed arrays: a numpy array in a figure's JSON is {dtype, bdata[, shape]}, the
// array's bytes (little-endian, as every browser's typed arrays) in base64, and for more than one
// dimension its shape ("2, 3"), as _plotly_utils.utils.to_typed_array_spec writes it. One
// decoder for every reader here; plotly.js decodes the figure's own.

export const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array,
                       i1: Int8Array, u4: Uint32Array, u2: Uint16Array, u1: Uint8Array };

// {values: a typed array, shape: [n] or the shape given} of a typed array's spec; else null.
export function decode(spec) {
  if (typeof spec !== "object" || spec === null || typeof spec.bdata !== "string"
      || !TYPED[spec.dtype]) return null;
  const Typed = TYPED[spec.dtype];
  const text = atob(spec.bdata);
  const bytes = new Uint8Array(text.length);  // a loop: Uint8Array.from's callback was ~5x slower
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  if (bytes.length % Typed.BYTES_PER_ELEMENT) return null;
  const values = new Typed(bytes.buffer);
  const shape = spec.shape === undefined ? [values.length]
    : String(spec.shape).split(",").map(Number);
  return { values, shape };
}

// A list of numbers: a plain array as it is, a one-dimensional typed array decoded; else null.
export function numbers(values) {
  if (Array.isArray(values)) return values;
  const typed = values && values.shape === undefined ? decode(values) : null;
  return typed ? Array.from(typed.values) : null;
}

// Rows of numbers: nested arrays (lists or typed arrays: plotly.js's decoding of a grid) as they
// are, a two-dimensional typed array's rows (views of its values); else null.
export function grid(values) {
  if (Array.isArray(values)) {
    return values.every(row => Array.isArray(row) || ArrayBuffer.isView(row)) ? values : null;
  }
  const typed = values && typeof values.shape === "string" ? decode(values) : null;
  if (!typed) return null;
  const [rows, columns] = typed.shape;
  if (!(rows * columns === typed.values.length)) return null;
  return Array.from({ length: rows },
                    (_, r) => typed.values.subarray(r * columns, (r + 1) * columns));
}
