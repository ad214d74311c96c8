// Tiles that flow to the width. A figure of equal tiles in a grid, described by the server as
// layout.meta.tiles = {count, columns, dx, dy} (tile k centred at x = (k % columns) dx,
// y = -floor(k / columns) dy in the axes' units, with equal scales and set ranges: the
// wavelength clocks) is laid out again with fewer columns where a tile would be narrower than
// the widest text of its traces (a phone's 390 px had eight clocks of 45 px a row, their labels
// over each other). Every point of every trace and animation frame moves with its tile; the
// ranges and the height follow.

import { DEFAULT_HEIGHT, LINE, MARGIN } from "./defaults.js";
import { isObject } from "./objects.js";
import { widest } from "./text.js";
import { numbers } from "./typed.js";

// `spec` laid out again in place at `width` px (and `height` px, when that is fixed).
export function fitTiles(spec, width, font, height) {
  const layout = spec.layout;
  const tiles = isObject(layout.meta) && isObject(layout.meta.tiles) ? layout.meta.tiles : null;
  const { xaxis, yaxis } = layout;
  if (!tiles || !isObject(xaxis) || !isObject(yaxis) || !Array.isArray(xaxis.range)
      || !Array.isArray(yaxis.range)) return;
  const { count, columns, dx, dy } = tiles;
  if (!(columns > 1 && count > 0 && dx > 0 && dy > 0)) return;
  const margin = isObject(layout.margin) ? layout.margin : (layout.margin = {});
  // Laid out again, with no tick labels to make room for, the tiles take the sides too.
  const bare = xaxis.visible === false && yaxis.visible === false;
  const side = (value, unset) => (bare ? Math.min(value ?? unset, 10) : value ?? unset);
  const plotWidth = width - side(margin.l, MARGIN.l) - side(margin.r, MARGIN.r);
  let text = 0;
  for (const t of spec.data) {
    if (!Array.isArray(t.text) || !String(t.mode || "").includes("text")) continue;
    const f = font([t.textfont]);
    for (const s of t.text) text = Math.max(text, widest(String(s), f));
  }
  const [x0, x1] = xaxis.range.map(Number), [y0, y1] = yaxis.range.map(Number);
  const spanX = k => x1 - x0 - (columns - k) * dx;
  const added = k => Math.ceil(count / k) - Math.ceil(count / columns);
  const spanY = k => y1 - y0 + added(k) * dy;
  // The tiles keep their aspect: a plot of a given height (a slide's, full screen's; the
  // figure's own as it is) may bound them before its width does; a page's figure laid out
  // again grows to its tiles' height. A slider under the plot (the clocks') takes room of its
  // own below the bottom margin: its value's line, its rail, its labels.
  const sliders = Array.isArray(layout.sliders) ? layout.sliders.filter(isObject) : [];
  const below = sliders.length ? Math.max(...sliders.map(s => (isObject(s.pad) ? s.pad.t ?? 20
    : 20))) + 3 * LINE * font([]).size : 0;
  const plotHeight = (height || layout.height || DEFAULT_HEIGHT) - (margin.t ?? MARGIN.t)
    - (margin.b ?? MARGIN.b) - below;
  const tileWidth = k => dx * Math.min(plotWidth / spanX(k),
    (height || k === columns ? Math.max(plotHeight, 1) : Infinity) / spanY(k));
  // (A tile keeps some width spare: plotly may add to the margins, for a long title.)
  const fits = k => 0.95 * tileWidth(k) >= text + 8;
  let k = columns;
  while (k > 1 && !fits(k)) k -= 1;
  if (!fits(k)) {  // none fits (a fixed height): the widest tiles
    for (let j = columns; j >= 1; j -= 1) if (tileWidth(j) > tileWidth(k)) k = j;
  }
  if (k === columns) return;
  [margin.l, margin.r] = [side(margin.l, MARGIN.l), side(margin.r, MARGIN.r)];
  const move = trace => {
    const xs = numbers(trace.x), ys = numbers(trace.y);
    if (!xs || !ys || xs.length !== ys.length) return;
    const x = xs.slice(), y = ys.slice();
    for (let i = 0; i < x.length; i += 1) {
      if (x[i] === null || y[i] === null) continue;
      const column = Math.round(x[i] / dx), row = Math.round(-y[i] / dy);
      const index = row * columns + column;
      x[i] += (index % k - column) * dx;
      y[i] -= (Math.floor(index / k) - row) * dy;
    }
    trace.x = x;
    trace.y = y;
  };
  spec.data.forEach(move);
  for (const frame of Array.isArray(spec.frames) ? spec.frames : []) {
    if (Array.isArray(frame.data)) frame.data.forEach(move);
  }
  xaxis.range = [x0, x1 - (columns - k) * dx];
  yaxis.range = [y0 - added(k) * dy, y1];
  const grown = spanY(k) * plotWidth / spanX(k);
  layout.height = Math.round((margin.t ?? MARGIN.t) + grown + (margin.b ?? MARGIN.b) + below);
}
