// typed.js: plotly.py's typed arrays decoded. The specs below are what plotly.py 6's
// _plotly_utils.utils.to_typed_array_spec writes for the numpy arrays named beside them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { decode, grid, numbers } from "../../ui/chart/typed.js";

const F8 = { dtype: "f8", bdata: "AAAAAAAA+D8AAAAAAAAAwAAAAAAAAApA" };  // [1.5, -2.0, 3.25]
const I2 = { dtype: "i2", bdata: "AQACAAMABAAFAAYA", shape: "2, 3" };  // [[1,2,3],[4,5,6]] int16
const F4 = { dtype: "f4", bdata: "AAAAPwAAgD8AAABAAACAwA==", shape: "2, 2" };  // [[.5,1],[2,-4]]
const U1 = { dtype: "u1", bdata: "Acg=" };  // [1, 200] uint8

test("decode gives the values and shape numpy had", () => {
  assert.deepEqual(Array.from(decode(F8).values), [1.5, -2, 3.25]);
  assert.deepEqual(decode(F8).shape, [3]);
  assert.ok(decode(I2).values instanceof Int16Array);
  assert.deepEqual(decode(I2).shape, [2, 3]);
  assert.deepEqual(Array.from(decode(U1).values), [1, 200]);
});

test("decode refuses what is not a typed array", () => {
  for (const bad of [null, 3, "AAAA", [1, 2], { dtype: "f8" }, { dtype: "c16", bdata: "AAAA" },
                     { dtype: "f8", bdata: "AAAA" }]) {  // (the last: 3 bytes, not 8)
    assert.equal(decode(bad), null, JSON.stringify(bad));
  }
});

test("numbers: a plain list as it is, a 1-D typed array decoded, a 2-D one refused", () => {
  const plain = [1, null, 3];
  assert.equal(numbers(plain), plain);
  assert.deepEqual(numbers(F8), [1.5, -2, 3.25]);
  assert.ok(Array.isArray(numbers(U1)));
  assert.equal(numbers(I2), null);
  assert.equal(numbers({ a: 1 }), null);
});

test("grid: rows of a 2-D typed array, nested lists as they are", () => {
  assert.deepEqual(grid(I2).map(row => Array.from(row)), [[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(grid(F4).map(row => Array.from(row)), [[0.5, 1], [2, -4]]);
  const nested = [[1, 2], [3, 4]];
  assert.equal(grid(nested), nested);
  const typedRows = [new Float32Array([1, 2]), new Float32Array([3, 4])];  // plotly.js's decoding
  assert.equal(grid(typedRows), typedRows);
  assert.equal(grid([1, 2]), null);  // a list of numbers is no grid
  assert.equal(grid(F8), null);  // no shape
  assert.equal(grid({ ...I2, shape: "3, 3" }), null);  // a shape its values do not fill
});
