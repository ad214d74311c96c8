// draw.js: a figure whose traces are as drawn before is given the arrays, template and ranges
// drawn before (plotly.js compares them by identity), and nothing when they changed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { keepDrawn } from "../../ui/chart/draw.js";

const figure = () => ({
  data: [{ type: "heatmap", z: { dtype: "f4", bdata: "AAAAPwAAgD8AAABAAACAwA==", shape: "2, 2" },
           x: [0, 1], colorbar: { tickvals: [0, 1] } }],
  layout: { template: { layout: { font: { size: 12 } } }, xaxis: {}, yaxis: { range: [0, 9] },
            shapes: [{ x0: 1 }], coloraxis: { colorbar: { tickvals: [1, 2, 3] } } },
});
const tracesOf = drawn => drawn.data.map(trace => JSON.stringify(trace));
// plotly.js's layout after drawing `sent`: the x axis ranged by it, the y axis the figure's.
const plottedOf = () => ({ xaxis: { autorange: true, range: [-0.5, 1.5] },
                           yaxis: { range: [0, 9] } });

test("an unchanged trace is given the arrays drawn, decoded ones as plotly.js keeps them", () => {
  const sent = figure();
  const decoded = new Float32Array([0.5, 1, 2, -4]);
  sent.data[0].z._inputArray = decoded;  // plotly.js's decoding, kept on the spec
  const next = figure();
  next.layout.shapes[0].x0 = 2;  // a change of the layout alone
  keepDrawn(next, tracesOf(next), { sent, traces: tracesOf(figure()) }, plottedOf());
  assert.equal(next.data[0].z, decoded);
  assert.equal(next.data[0].x, sent.data[0].x);
  assert.equal(next.data[0].colorbar.tickvals, sent.data[0].colorbar.tickvals);
  assert.equal(next.layout.template, sent.layout.template);
  assert.equal(next.layout.coloraxis.colorbar.tickvals, sent.layout.coloraxis.colorbar.tickvals);
  assert.deepEqual(next.layout.xaxis, { range: [-0.5, 1.5], autorange: true });  // as ranged
  assert.deepEqual(next.layout.yaxis, { range: [0, 9] });  // the figure's own range
  assert.equal(next.layout.shapes[0].x0, 2);
});

test("a changed trace, a reader's zoom or a new kind of trace: all is new", () => {
  const changed = figure();
  changed.data[0].x = [0, 2];
  const before = { sent: figure(), traces: tracesOf(figure()) };
  keepDrawn(changed, tracesOf(changed), before, plottedOf());
  assert.notEqual(changed.layout.template, before.sent.layout.template);
  assert.deepEqual(changed.layout.xaxis, {});
  const zoomed = figure();
  keepDrawn(zoomed, tracesOf(zoomed), { sent: figure(), traces: tracesOf(figure()) },
            { ...plottedOf(), xaxis: { autorange: false, range: [0.2, 0.4] } });
  assert.deepEqual(zoomed.layout.xaxis, {});  // ranged again: the zoom undone
  const surface = figure();
  surface.data[0].type = "surface";
  const sentSurface = figure();
  sentSurface.data[0].type = "surface";
  keepDrawn(surface, tracesOf(surface), { sent: sentSurface, traces: tracesOf(sentSurface) },
            plottedOf());
  assert.notEqual(surface.data[0].x, sentSurface.data[0].x);
  const first = figure();
  keepDrawn(first, tracesOf(first), { sent: undefined, traces: undefined }, {});  // first draw
  assert.deepEqual(first, figure());
});

test("an axis ranged reversed is written back as autorange true, and kept as such", () => {
  const sent = figure();
  sent.layout.yaxis = { autorange: "reversed" };
  const next = figure();
  next.layout.yaxis = { autorange: "reversed" };
  keepDrawn(next, tracesOf(next), { sent, traces: tracesOf(sent) },
            { ...plottedOf(), yaxis: { autorange: true, range: [9, 0] } });
  assert.deepEqual(next.layout.yaxis, { autorange: true, range: [9, 0] });
});
