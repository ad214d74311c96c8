// A live state drawn as pictures (live.js). A state that gives heatmaps new cells, on a colour
// range of their own that the state keeps (and, of the layout, a new title at most), is drawn as
// pictures over those heatmaps: one layout image each, a pixel per cell, coloured as plotly.js
// colours the trace (its colour scale and range as drawn). plotly.js draws a layout image alone
// ("arraydraw", a few ms), where a heatmap's new z computes and lays out the whole figure again
// (its axes' labels measured, its colour bar: 30-60 ms a step for the order page's pair). The
// server's run on release draws the heatmaps themselves, and the pictures go (its figure has
// none). (A state's customdata, the hover's numbers, waits for the server's draw: the pointer is
// on the slider meanwhile.)

import { rgba } from "./colour.js";
import { grid } from "./typed.js";

const PICTURE_DATA = new Set(["z", "customdata"]), PICTURE_LAYOUT = new Set(["title.text"]);

// Whether a state's update (a Plotly.update's data, layout, traces) may be drawn as pictures:
// new cells for each of its traces, and at most a title.
export function picturable(data, layout, traces) {
  return Boolean(data.z) && Object.keys(data).every(key => PICTURE_DATA.has(key))
    && traces.length === data.z.length
    && Object.keys(layout).every(key => PICTURE_LAYOUT.has(key));
}

// A state's pictures (or null), made once per figure sent (a drag comes back over the same
// states): `live` is the figure's states of one control, `index` the state's, `update` its
// [data, layout, traces] as drawn (live.js: arrays it makes, made).
const picturesMade = new WeakMap();
export function picturesOf(gd, state, live, index, update) {
  const made = picturesMade.get(live) || new Map();
  picturesMade.set(live, made);
  const opacityOf = trace => (state.hidden && trace in state.hidden ? state.hidden[trace]
                                                                     : gd.data[trace].opacity ?? 1);
  if (!made.has(index)) made.set(index, heatmapPictures(gd, opacityOf, ...update));
  return made.get(index);
}

// The layout images that draw `data.z` over the heatmaps `traces` of chart `gd` as plotly.js
// drew them (with `.sharp`: whether each is drawn without smoothing), or null when the state or
// a trace is not such (module's comment).
function heatmapPictures(gd, opacityOf, data, layout, traces) {
  if (!picturable(data, layout, traces)) return null;
  const full = gd._fullLayout;
  const pictures = [];
  for (const [j, index] of traces.entries()) {
    const trace = (gd._fullData || [])[index];
    const drawn = gd.calcdata && gd.calcdata[index] && gd.calcdata[index][0];
    if (!trace || trace.type !== "heatmap" || trace.visible !== true || !drawn
        || trace.xgap || trace.ygap) return null;  // (gaps between cells: not drawn here)
    const colours = trace.coloraxis ? full[trace.coloraxis] : trace;
    const [auto, low, high] = trace.coloraxis ? [colours.cauto, colours.cmin, colours.cmax]
                                              : [trace.zauto, trace.zmin, trace.zmax];
    const rows = grid(data.z[j]);
    const xAxis = full[`xaxis${trace.xaxis.slice(1)}`];
    const yAxis = full[`yaxis${trace.yaxis.slice(1)}`];
    const across = cellEdges(drawn.x, xAxis), down = cellEdges(drawn.y, yAxis);
    const own = ownPicture(gd, index);
    if (auto !== false || !(high > low) || !rows || !across || !down || !own
        || typeof xAxis.p2r !== "function" || typeof yAxis.p2r !== "function"
        || rows.length !== drawn.y.length - 1
        || rows.some(row => row.length !== drawn.x.length - 1)) return null;
    const [height, width] = [rows.length, rows[0].length];
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d");
    const pixels = context.createImageData(width, height);
    paintCells(rows, {
      scale: colourScale(colours.colorscale, colours.reversescale), low, high,
      opacity: opacityOf(index),  // the figure's (a preview hides the trace)
      // The image's first column is the leftmost cell, its first row the top one.
      leftToRight: across[1] > across[0], topDown: down[1] < down[0],
    }, pixels.data);
    context.putImageData(pixels, 0, 0);
    // Exactly over the heatmap's own picture (placed from the cells' edges, it could fall a
    // fraction of a pixel off, and the cells' edges blended).
    const [x0, x1] = [own.x, own.x + own.width].map(p => xAxis.p2r(p));
    const [y0, y1] = [own.y, own.y + own.height].map(p => yAxis.p2r(p));
    pictures.push({
      source: canvas.toDataURL("image/png"), layer: "above", sizing: "stretch",
      xref: trace.xaxis, yref: trace.yaxis, xanchor: "left", yanchor: "top",
      x: x0, y: y0, sizex: Math.abs(x1 - x0), sizey: Math.abs(y1 - y0),
    });
  }
  // Drawn as plotly.js draws the heatmap's own picture (a pixel a cell too): without smoothing
  // for cells with edges (zsmooth false), smoothed for "fast" ones.
  pictures.sharp = traces.map(index => !gd._fullData[index].zsmooth);
  return pictures;
}

// A plotly colour scale ([[at, colour], ...]) as [[at, [r, g, b, a]], ...], reversed if asked.
export function colourScale(colorscale, reversed) {
  const scale = colorscale.map(([at, colour]) => [Number(at), rgba(colour)]);
  return reversed ? scale.map(([at, c]) => [1 - at, c]).reverse() : scale;
}

// `rows` of numbers as RGBA pixels (into `out`, four bytes a cell, row after row), coloured as
// plotly.js colours a heatmap: the value's place in [low, high] (clamped) on the colour scale,
// interpolated linearly between its stops; no number, no cell (transparent). `leftToRight` and
// `topDown` say which way the cells run in the picture.
export function paintCells(rows, { scale, low, high, opacity, leftToRight, topDown },
                           out = new Uint8ClampedArray(4 * rows.length * rows[0].length)) {
  const [height, width] = [rows.length, rows[0].length];
  for (let r = 0; r < height; r++) {
    const row = rows[topDown ? r : height - 1 - r];
    for (let c = 0; c < width; c++) {
      const v = Number(row[leftToRight ? c : width - 1 - c]);
      if (!Number.isFinite(v)) continue;  // no cell: transparent, as plotly.js leaves it
      const t = Math.min(1, Math.max(0, (v - low) / (high - low)));
      let k = 1;
      while (k < scale.length - 1 && scale[k][0] < t) k++;
      const [a0, ca] = scale[k - 1], [a1, cb] = scale[k];
      const w = a1 > a0 ? Math.min(1, Math.max(0, (t - a0) / (a1 - a0))) : 1;
      const at = 4 * (r * width + c);
      for (let i = 0; i < 3; i++) out[at + i] = Math.round(ca[i] + (cb[i] - ca[i]) * w);
      out[at + 3] = Math.round(255 * opacity * (ca[3] + (cb[3] - ca[3]) * w));
    }
  }
  return out;
}

// The first and last edges of a heatmap's cells along an axis (plotly.js's calc: equal steps),
// as fractions of the axis's range, or null.
export function cellEdges(edges, axis) {
  if (!edges || edges.length < 2 || !axis || !Array.isArray(axis.range)
      || !["linear", "category"].includes(axis.type)) return null;
  const [low, high] = axis.range.map(Number);
  const step = (edges[edges.length - 1] - edges[0]) / (edges.length - 1);
  if (!(high !== low) || !edges.every((e, i) => Math.abs(e - edges[0] - i * step)
                                         <= 1e-6 * Math.abs(step) * edges.length)) return null;
  return [(edges[0] - low) / (high - low), (edges[edges.length - 1] - low) / (high - low)];
}

// Where plotly.js drew trace `index`'s heatmap: its image's box in the subplot's pixels.
function ownPicture(gd, index) {
  const group = [...gd.querySelectorAll(".heatmaplayer .hm")].find(g => Array.isArray(g.__data__)
    && g.__data__[0] && g.__data__[0].trace && g.__data__[0].trace.index === index);
  const image = group && group.querySelector("image");
  if (!image) return null;
  const [x, y, width, height] = ["x", "y", "width", "height"].map(
    name => Number(image.getAttribute(name)));
  return [x, y, width, height].every(Number.isFinite) && width > 0 && height > 0
    ? { x, y, width, height } : null;
}
