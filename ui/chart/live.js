// Live states: while a Streamlit slider's thumb is dragged (its value goes to the server on
// release) or a point hovered (hover.js), the charts whose figure carries that control's states
// (`layout.meta.live[name]`: the values and, for each, a Plotly.update's [data, layout,
// traces], figures.common's live states) draw the state of the value at once. The server's run
// after the release draws the same picture from the truth. A value between two states sent
// draws the nearer. A state is drawn one of three ways: as pictures over heatmaps
// (pictures.js), as an animation of scatter traces (`live.animate`: computed and drawn without
// the rest), or as a Plotly.update. A state may carry, instead of an array, how to make it from
// one the figure already holds (`scaledArray`: ALiBi's head, one number a state).

import { picturesOf } from "./pictures.js";
import { decode, grid } from "./typed.js";

const ANIMATE_NOW = { mode: "immediate", transition: { duration: 0 },
                      frame: { duration: 0, redraw: false } };
// How long the server's figure waits for an animated preview on its way (element.js).
export const ANIMATION_WAIT_MS = 200;

// The control a slider's input belongs to: its key (Streamlit's `st-key-<key>` class).
export function liveName(input) {
  const box = input.closest('[class*="st-key-"]');
  const key = box && [...box.classList].find(c => c.startsWith("st-key-"));
  return key ? key.slice("st-key-".length) : null;
}

// The states of control `name` in the figure a chart's `state` last drew, or null.
export function liveStates(state, name) {
  const meta = state && state.sent && state.sent.layout && state.sent.layout.meta;
  return (meta && meta.live && meta.live[name]) || null;
}

// Whether a chart on the page previews control `name`.
export function previewed(name) {
  return [...document.querySelectorAll(".pe-plotly-chart")].some(
    gd => Boolean(liveStates(gd.__pePlotlyReact, name)));
}

// The index of the state of `text`, or of the nearest sent: by number, or by distance over a
// comma-separated tuple ("row,col": the ViT grid's patch); -1 when none is near.
export function nearestState(live, text) {
  const exact = live.values.indexOf(text);
  if (exact >= 0) return exact;
  const point = v => String(v).split(",").map(Number);
  const wanted = point(text);
  if (!wanted.every(Number.isFinite)) return -1;
  const distance = v => {
    const p = point(v);
    return p.length === wanted.length ? p.reduce((sum, x, i) => sum + (x - wanted[i]) ** 2, 0)
                                      : Infinity;
  };
  let best = -1;
  let bestDistance = Infinity;
  live.values.forEach((v, i) => {
    const d = distance(v);
    if (d < bestDistance) { best = i; bestDistance = d; }
  });
  return best;
}

// A state's layout as the chart shows it: Streamlit's theme draws a chart's title bold
// (theme.js), so does its preview.
export function shownLayout(layout, themeName) {
  const title = layout["title.text"];
  return typeof title === "string" && themeName === "streamlit"
    ? { ...layout, "title.text": `<b>${title}</b>` } : layout;
}

// An array of numbers as {values, shape}: a typed array's spec, plotly.js's decoding of one (an
// array with the spec's bdata, dtype and shape), rows of numbers or a list of them; else null.
// `null` in a list (JSON's NaN) is NaN.
function valuesOf(array) {
  const typed = decode(array);
  if (typed) return typed;
  const rows = grid(array);
  const number = v => (v === null ? NaN : Number(v));
  if (rows && rows.length) {
    return { values: rows.flatMap(row => Array.from(row, number)),
             shape: [rows.length, rows[0].length] };
  }
  return Array.isArray(array) && array.every(v => v === null || typeof v === "number")
    ? { values: array.map(number), shape: [array.length] } : null;
}

// The array a state makes from `sent` (the array of the same trace and attribute the figure was
// drawn with) by `spec` ({scaled: attribute, by, symlog?}: figures.common.scaled_array): each
// value times `by`, then, with `symlog`, -log10(1 + |x| / symlog) (figures.common.symlog);
// float32, as the server's arrays, in the sent array's shape (a grid's rows); null when `sent`
// holds no numbers. The server's figure at the value released is the truth (its cells).
const valuesMade = new WeakMap();  // a sent array's values, read once (every state scales them)
export function scaledArray(spec, sent) {
  const known = typeof sent === "object" && sent !== null;
  if (known && !valuesMade.has(sent)) valuesMade.set(sent, valuesOf(sent));
  const source = known ? valuesMade.get(sent) : null;
  if (!source || typeof spec.by !== "number") return null;
  const floor = spec.symlog;
  const out = new Float32Array(source.values.length);
  for (let i = 0; i < out.length; i++) {
    const x = source.values[i] * spec.by;
    out[i] = typeof floor === "number" ? -Math.log10(1 + Math.abs(x) / floor) : x;
  }
  if (source.shape.length !== 2) return out;
  const [rows, columns] = source.shape;
  return Array.from({ length: rows }, (_, r) => out.subarray(r * columns, (r + 1) * columns));
}

const isScaled = value => typeof value === "object" && value !== null && !Array.isArray(value)
  && typeof value.scaled === "string";

// A state's update ([data, layout, traces]) with the arrays it makes (`scaledArray`) made from
// `sentData` (the figure's traces as drawn); null when one cannot be made.
export function madeUpdate(update, sentData) {
  const [data, layout, traces] = update;
  if (!Object.values(data).some(values => Array.isArray(values) && values.some(isScaled))) {
    return update;
  }
  const made = {};
  for (const [attribute, values] of Object.entries(data)) {
    if (!Array.isArray(values)) {  // one value for every trace
      made[attribute] = values;
      continue;
    }
    made[attribute] = values.map((value, j) => (isScaled(value)
      ? scaledArray(value, ((sentData || [])[traces[j]] || {})[value.scaled]) : value));
    if (made[attribute].some(value => value === null)) return null;
  }
  return [made, layout, traces];
}

// State `index` of `live` as drawn on the figure `sent`: made once per figure sent (a drag comes
// back over the same states).
const updatesMade = new WeakMap();
function updateOf(live, index, sent) {
  const made = updatesMade.get(live) || new Map();
  updatesMade.set(live, made);
  if (!made.has(index)) made.set(index, madeUpdate(live.updates[index], sent && sent.data));
  return made.get(index);
}

// A Plotly.update's data ({attribute: [value for each trace]}) as an animation frame's traces
// ([{attribute: value}, one per trace]).
export function frameOf(data, traces) {
  return traces.map((_, j) => Object.fromEntries(
    Object.entries(data).map(([attribute, values]) => [attribute, values[j]])));
}

// Draws control `name`'s state of value `text` on every chart that carries its states.
// `warming`: the press on a live slider's thumb draws the state of the value it shows (the
// server's picture again) before the pointer moves: plotly.js's first update or animation of a
// page costs up to twice the next ones (~70 ms against ~35 for the similarity anchor view:
// code compiled, text measured), and that is then the press's, not the drag's first step's.
// Pictured states are cheap from the first: left alone. Each chart drawn says so with a
// "pe-live" event ({name, value}).
export function preview(name, text, warming = false) {
  for (const gd of document.querySelectorAll(".pe-plotly-chart")) {
    const state = gd.__pePlotlyReact;
    const live = liveStates(state, name);
    if (!live || !window.__pePlotly || !gd._fullLayout) continue;
    const index = nearestState(live, text);
    if (index < 0 || state.previewing === `${name}=${index}`) continue;
    const update = updateOf(live, index, state.sent);
    if (!update) continue;
    const pictures = !live.animate && picturesOf(gd, state, live, index, update);
    if (warming && (pictures || state.previewing)) continue;
    state.previewing = `${name}=${index}`;
    const [data, layout, traces] = update;
    // What is drawn is no longer the server's figure: its next draw is not skipped as
    // unchanged, and keeps no trace's arrays where the preview changed traces (a preview of
    // the layout alone leaves them as the server drew them: ALiBi's 64 heads are not
    // computed again after their outline moved).
    state.drawn = null;
    if (!pictures && (live.animate || Object.keys(data).length)) state.traces = [];
    const shown = shownLayout(layout, state.data.theme);
    let drawn;
    if (!pictures && state.hidden) {  // another state's pictures: their heatmaps back first
      const hidden = Object.keys(state.hidden).map(Number);
      window.__pePlotly.update(gd, { opacity: hidden.map(i => state.hidden[i]) }, { images: [] },
                               hidden);
      state.hidden = null;
    }
    if (pictures) {  // heatmaps' new cells as pictures over them, the heatmaps hidden
      state.hidden = state.hidden || {};  // {trace: its opacity}
      traces.forEach(i => { if (!(i in state.hidden)) state.hidden[i] = gd.data[i].opacity ?? 1; });
      drawn = window.__pePlotly.update(gd, { opacity: 0 }, { ...shown, images: pictures }, traces)
        .then(() => gd.querySelectorAll(".imagelayer image").forEach((image, k) => {
          image.style.imageRendering = pictures.sharp[k] ? "pixelated" : "";
        }));
    } else if (live.animate) {  // scatter traces moved alone: computed and drawn without the rest
      const keepers = withKeepers(gd._fullData, traces);
      const keeping = keepLayers(gd);
      drawn = window.__pePlotly.animate(
        gd, { data: [...frameOf(data, traces), ...keepers.map(() => ({}))],
              traces: [...traces, ...keepers] },
        ANIMATE_NOW);
      drawn.then(keeping, keeping);
      state.keeping = keeping;
      state.animating = drawn;
    } else {
      drawn = window.__pePlotly.update(gd, data, shown, traces);
    }
    const value = live.values[index];
    if (warming) continue;
    Promise.resolve(drawn).catch(() => undefined).then(() => {
      gd.dispatchEvent(new CustomEvent("pe-live", { detail: { name, value } }));
    });
  }
}

// The animation's traces, with one of each other subplot's scatter traces, unchanged
// (`fullData`: plotly.js's gd._fullData): plotly.js then keeps that subplot's scatter layer
// instead of taking it away (put back, the similarity offset view's second panel cost a style,
// layout and paint of its 2,000 points at each step, ~10 ms of the main thread). The trace kept
// is the one with the fewest points, lines before markers (its redraw is the cost: a line is
// one path). Other kinds of layers (a heatmap's one image) are put back (keepLayers).
export function withKeepers(fullData, traces) {
  const subplot = trace => `${trace.xaxis}${trace.yaxis}`;
  const drawn = new Set(traces.map(i => subplot(fullData[i])));
  const cost = trace => (trace.mode || "").includes("markers") ? 10 * trace._length : trace._length;
  const keepers = new Map();
  for (const trace of fullData) {
    if (trace.type !== "scatter" || trace.visible !== true || drawn.has(subplot(trace))) continue;
    const best = keepers.get(subplot(trace));
    if (!best || cost(trace) < cost(best)) keepers.set(subplot(trace), trace);
  }
  return [...keepers.values()].map(trace => trace.index);
}

// plotly.js animates the traces it is given alone, and its cartesian plot then takes away the
// layer of every other kind of trace of every subplot it draws (a join of the layers it draws):
// the order page's head map lost its heatmap, the similarity offset view its second panel.
// Until the animation ends (or the server's figure is drawn), each layer taken away is put back
// where it was, before the frame is painted (a mutation observer's callback runs before).
// Returns the function that stops.
function keepLayers(gd) {
  const places = new Map([...gd.querySelectorAll("g.mlayer")].map(
    layer => [layer, [layer.parentNode, layer.nextSibling]]));
  const observer = new MutationObserver(records => {
    for (const record of records) {
      for (const layer of record.removedNodes) {
        const place = places.get(layer);
        if (!place || layer.isConnected || !place[0].isConnected) continue;
        const [parent, next] = place;
        parent.insertBefore(layer, next && next.parentNode === parent ? next : null);
      }
    }
  });
  for (const parent of new Set([...places.values()].map(([p]) => p))) {
    observer.observe(parent, { childList: true });
  }
  return () => observer.disconnect();
}
