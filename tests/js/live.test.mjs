// live.js, pictures.js, hover.js: which live state a value draws and how, on plain objects.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeCanvas } from "./fake_canvas.mjs";

installFakeCanvas();
const { frameOf, liveStates, madeUpdate, nearestState, scaledArray, shownLayout,
        withKeepers } = await import("../../ui/chart/live.js");
const { cellEdges, colourScale, paintCells, picturable } = await import("../../ui/chart/pictures.js");
const { hoverText } = await import("../../ui/chart/hover.js");

test("a value draws its own state, or the nearest sent", () => {
  const live = { values: ["0", "4", "8", "16"] };
  assert.equal(nearestState(live, "8"), 2);
  assert.equal(nearestState(live, "5"), 1);
  assert.equal(nearestState(live, "13"), 3);
  assert.equal(nearestState(live, "-3"), 0);
  assert.equal(nearestState(live, "head"), -1);  // no number, no state of its own
  const patches = { values: ["0,0", "0,5", "3,1"] };  // the ViT grid's (row, col)
  assert.equal(nearestState(patches, "2,1"), 2);
  assert.equal(nearestState(patches, "0,4"), 1);
  assert.equal(nearestState(patches, "1"), -1);  // another length: no distance
});

test("the states a chart carries are those of the figure it drew last", () => {
  const live = { values: ["1"], updates: [[{}, {}, []]] };
  const state = { sent: { layout: { meta: { live: { head: live } } } } };
  assert.equal(liveStates(state, "head"), live);
  assert.equal(liveStates(state, "layer"), null);
  assert.equal(liveStates({ sent: { layout: {} } }, "head"), null);
  assert.equal(liveStates(undefined, "head"), null);
});

test("a preview's title is bold in Streamlit's theme, as the chart's own", () => {
  assert.deepEqual(shownLayout({ "title.text": "Head 3" }, "streamlit"),
                   { "title.text": "<b>Head 3</b>" });
  const layout = { "title.text": "Head 3" };
  assert.equal(shownLayout(layout, ""), layout);
  const shapes = { shapes: [] };
  assert.equal(shownLayout(shapes, "streamlit"), shapes);
});

test("an update's data, trace by trace, is an animation frame", () => {
  assert.deepEqual(frameOf({ x: [[1, 2], [3]], y: [[4, 5], [6]] }, [2, 5]),
                   [{ x: [1, 2], y: [4, 5] }, { x: [3], y: [6] }]);
});

test("an animation keeps one cheap scatter trace of each other subplot", () => {
  const trace = (index, xaxis, mode, length, type = "scatter") => (
    { index, xaxis, yaxis: xaxis.replace("x", "y"), mode, _length: length, type,
      visible: true });
  const fullData = [
    trace(0, "x", "lines", 100),  // animated
    trace(1, "x2", "markers", 50),  // 500 by cost: markers cost ten times a line's points
    trace(2, "x2", "lines", 300),  // kept: the cheapest of x2's
    trace(3, "x3", "lines", 10, "heatmap"),  // not scatter: its layer is put back instead
    { ...trace(4, "x4", "lines", 5), visible: "legendonly" },
    trace(5, "x", "lines", 1),  // in the animated subplot
  ];
  assert.deepEqual(withKeepers(fullData, [0]), [2]);
});

test("a state is pictured when it changes heatmaps' cells and at most the title", () => {
  assert.equal(picturable({ z: [[[1]]] }, {}, [0]), true);
  assert.equal(picturable({ z: [[[1]]], customdata: [[[1]]] }, { "title.text": "t" }, [0]), true);
  assert.equal(picturable({ z: [[[1]]], x: [[0]] }, {}, [0]), false);
  assert.equal(picturable({ z: [[[1]]] }, { shapes: [] }, [0]), false);
  assert.equal(picturable({ z: [[[1]]] }, {}, [0, 1]), false);
  assert.equal(picturable({}, {}, []), false);
});

test("cells' edges as fractions of the axis, for equal steps on a linear axis only", () => {
  assert.deepEqual(cellEdges([-0.5, 0.5, 1.5, 2.5], { type: "linear", range: [-0.5, 2.5] }),
                   [0, 1]);
  assert.deepEqual(cellEdges([0, 1, 2], { type: "linear", range: [2, 0] }).map(v => v + 0),
                   [1, 0]);  // a reversed axis
  assert.equal(cellEdges([0, 1, 3], { type: "linear", range: [0, 3] }), null);  // unequal
  assert.equal(cellEdges([0, 1], { type: "log", range: [0, 1] }), null);
  assert.equal(cellEdges([0, 1], { type: "linear", range: [1, 1] }), null);
});

test("cells are coloured as plotly.js colours them: clamped, interpolated, none for NaN", () => {
  const scale = colourScale([[0, "#000000"], [0.5, "#ff0000"], [1, "#ffffff"]], false);
  assert.deepEqual(scale, [[0, [0, 0, 0, 1]], [0.5, [255, 0, 0, 1]], [1, [255, 255, 255, 1]]]);
  const rows = [[-5, 0, 5, 10, 15], [NaN, 2.5, 5, 7.5, null]];
  const paint = { scale, low: 0, high: 10, opacity: 1, leftToRight: true, topDown: true };
  const pixel = (out, r, c) => Array.from(out.slice(4 * (r * 5 + c), 4 * (r * 5 + c) + 4));
  const out = paintCells(rows, paint);
  assert.deepEqual(pixel(out, 0, 0), [0, 0, 0, 255]);  // below low: low's colour
  assert.deepEqual(pixel(out, 0, 2), [255, 0, 0, 255]);
  assert.deepEqual(pixel(out, 0, 4), [255, 255, 255, 255]);  // above high: high's colour
  assert.deepEqual(pixel(out, 1, 1), [128, 0, 0, 255]);  // halfway from black to red
  assert.deepEqual(pixel(out, 1, 0), [0, 0, 0, 0]);  // no number: transparent
  assert.deepEqual(pixel(out, 1, 4), [0, 0, 0, 255]);  // null is 0, as Number(null)
  // Rows drawn bottom-up and columns right to left flip the picture; opacity scales alpha.
  const flipped = paintCells(rows, { ...paint, leftToRight: false, topDown: false, opacity: 0.5 });
  assert.deepEqual(pixel(flipped, 0, 3), [128, 0, 0, 128]);
  const reversed = colourScale([[0, "#000000"], [1, "#ffffff"]], true);
  assert.deepEqual(reversed, [[0, [255, 255, 255, 1]], [1, [0, 0, 0, 1]]]);
});

test("a hovered point names its state: its x and y put in the template", () => {
  assert.equal(hoverText("{y},{x}", { x: 3, y: 7 }), "7,3");
  assert.equal(hoverText(undefined, { x: 12, y: 0 }), "12");
});

// [[.5, 1], [2, -4]] float32, as plotly.py writes it (typed.test.mjs).
const F4 = { dtype: "f4", bdata: "AAAAPwAAgD8AAABAAACAwA==", shape: "2, 2" };

test("a scaled array is the sent array times its factor, float32, in the sent shape", () => {
  const rows = scaledArray({ scaled: "customdata", by: -0.25 }, F4);
  assert.equal(rows.length, 2);
  assert.ok(rows[0] instanceof Float32Array);
  assert.deepEqual(rows.map(row => Array.from(row)), [[-0.125, -0.25], [-0.5, 1]]);
  // plotly.js's own decoding of a spec (rows, with the spec's bdata, dtype and shape on them)
  const decoded = Object.assign([new Float32Array([0.5, 1]), new Float32Array([2, -4])],
                                { bdata: F4.bdata, dtype: "f4", shape: "2,2" });
  assert.deepEqual(scaledArray({ scaled: "z", by: 2 }, decoded).map(row => Array.from(row)),
                   [[1, 2], [4, -8]]);
  // lists (null is JSON's NaN) and a flat list
  const listed = scaledArray({ scaled: "z", by: 3 }, [[1, null], [0.5, 2]]);
  assert.deepEqual(Array.from(listed[0]).map(String), ["3", "NaN"]);
  assert.deepEqual(Array.from(scaledArray({ scaled: "y", by: 0.1 }, [1, 2])),
                   [Math.fround(0.1), Math.fround(0.2)]);
  assert.equal(scaledArray({ scaled: "z", by: 2 }, "text"), null);
  assert.equal(scaledArray({ scaled: "z" }, F4), null);  // no factor
});

test("a scaled array on a symmetric log: -log10(1 + |x| / floor)", () => {
  const rows = scaledArray({ scaled: "customdata", by: 1, symlog: 0.5 }, F4);
  const want = [[0.5, 1], [2, -4]].map(row => row.map(
    x => Math.fround(-Math.log10(1 + Math.abs(x) / 0.5))));
  assert.deepEqual(rows.map(row => Array.from(row)), want);
  assert.ok(Number.isNaN(scaledArray({ scaled: "z", by: 1, symlog: 1 }, [[null]])[0][0]));
});

test("a state's scaled arrays are made from the sent trace's, the rest kept", () => {
  const plain = [{ z: [[[1]]] }, { "title.text": "t" }, [0]];
  assert.equal(madeUpdate(plain, []), plain);  // nothing to make: the update itself
  const sent = [{ customdata: [[1, 2]] }, { customdata: F4 }];
  const [data, layout, traces] = madeUpdate(
    [{ z: [{ scaled: "customdata", by: 2 }], customdata: [{ scaled: "customdata", by: -1 }] },
     { "title.text": "Head 2" }, [1]], sent);
  assert.deepEqual(data.z[0].map(row => Array.from(row)), [[1, 2], [4, -8]]);
  assert.deepEqual(data.customdata[0].map(row => Array.from(row)), [[-0.5, -1], [-2, 4]]);
  assert.deepEqual([layout, traces], [{ "title.text": "Head 2" }, [1]]);
  // an array the figure does not hold: no state to draw
  assert.equal(madeUpdate([{ z: [{ scaled: "x", by: 2 }] }, {}, [0]], sent), null);
});
