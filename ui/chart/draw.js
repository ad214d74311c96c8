// Diffing draws. A figure whose traces are all as drawn before (the same JSON: a change moved
// only a mark of the layout, a shape or an annotation) is given the arrays, template and axis
// ranges drawn before, so that plotly.js redraws the marks alone instead of computing every
// point again. plotly.js compares a trace's arrays and the template by identity (a new array is
// new data); a {dtype, bdata} array it decodes afresh at every draw, keeping the last decoding
// on the spec as `_inputArray`, which is given back as the array itself. It ranges its axes only
// when it computes the traces, writing the range it found into the layout: an axis it ranged
// keeps that range (a figure that sets no range of its own). Not when an axis would need ranging
// again (a reader's zoom undone, a new axis), nor for other than flat x-y traces: then all is
// new.

import { isObject } from "./objects.js";

const FLAT_TRACES = new Set(["scatter", "bar", "heatmap"]);
const AXIS = /^[xy]axis\d*$/;

// `drawn` (figure.js's, about to be drawn; `traces`: its traces' JSON) given what the draw
// before kept, in place. `last`: {sent: the figure drawn before, traces: its traces' JSON};
// `plotted`: plotly.js's layout of it (gd.layout, with the ranges it found).
export function keepDrawn(drawn, traces, last, plotted) {
  const before = last.sent;
  if (!before || traces.length !== last.traces.length
      || traces.some((k, i) => k !== last.traces[i])
      || drawn.data.some(t => !FLAT_TRACES.has(t.type || "scatter"))) return;
  const axes = new Set([...Object.keys(drawn.layout), ...Object.keys(plotted)]
    .filter(key => AXIS.test(key)));
  const ranges = [];
  for (const key of axes) {
    const axis = isObject(drawn.layout[key]) ? drawn.layout[key] : {};
    if (Array.isArray(axis.range) && !axis.autorange) continue;  // the figure's own range
    const old = plotted[key];
    // plotly.js writes an axis ranged "reversed" back as autorange true with a falling range.
    const reversed = axis.autorange === "reversed" && old && old.autorange === true
      && Array.isArray(old.range) && Number(old.range[0]) > Number(old.range[1]);
    if (!isObject(old) || !old.autorange || !Array.isArray(old.range)
        || (axis.autorange !== undefined && axis.autorange !== old.autorange && !reversed)) {
      return;
    }
    ranges.push([key, old]);
  }
  for (const [key, old] of ranges) {
    drawn.layout[key] = { ...(drawn.layout[key] || {}), range: [...old.range],
                          autorange: old.autorange };
  }
  drawn.data.forEach((trace, i) => keepArrays(trace, before.data[i]));
  if (JSON.stringify(drawn.layout.template) === JSON.stringify(before.layout.template)) {
    drawn.layout.template = before.layout.template;
  }
  keepEqualArrays(drawn.layout, before.layout);
}

const isFlat = value => Array.isArray(value)
  && value.every(v => v === null || typeof v === "number" || typeof v === "string");
// The layout's arrays of numbers or strings equal to those drawn before, given back as drawn
// (plotly.js compares them by identity too: a colour bar's new tick values, though equal, made
// it compute ALiBi's 64 heatmaps again, ~120 ms, for a title's new colour).
export function keepEqualArrays(layout, before) {
  for (const key of Object.keys(layout)) {
    const value = layout[key], kept = isObject(before) || Array.isArray(before)
      ? before[key] : undefined;
    if (kept === undefined || key === "template") continue;
    if (isFlat(value)) {
      if (isFlat(kept) && kept.length === value.length && kept.every((v, i) => v === value[i])) {
        layout[key] = kept;
      }
    } else if (isObject(value) || Array.isArray(value)) {
      keepEqualArrays(value, kept);
    }
  }
}

// `trace` with the arrays of `before` (an equal trace): arrays of numbers or strings and numpy's
// arrays; everything else stays `trace`'s own, so a legend click is undone by a rerun that
// changes the figure, as st.plotly_chart's redraw undoes it.
export function keepArrays(trace, before) {
  if (!isObject(before)) return;
  for (const key of Object.keys(trace)) {
    const value = trace[key];
    const flat = Array.isArray(value) && (value.length === 0 || !isObject(value[0])
                                          && !Array.isArray(value[0]));
    const kept = before[key];
    if ((flat || isObject(value) && "bdata" in value) && kept !== undefined) {
      trace[key] = kept && kept._inputArray ? kept._inputArray : kept;
    } else if (isObject(value)) {
      keepArrays(value, kept);
    }
  }
}
