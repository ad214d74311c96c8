// The figure fitted to the chart's width. The server does not know the screen; the element
// does, at every draw (a turned phone redraws).
// - A title wider than the room left of plotly's modebar goes below the modebar's row (plotly
//   shows the modebar on hover, and on a touch screen after a tap) and wraps to the width.
// - Below NARROW_WIDTH (a phone held upright; half of a 1280 px slide is wider) the panels of a
//   figure are stacked in one column (narrow.js), the figure's phone variant used (useNarrow)
//   and an animation's slider put under its buttons (fitPlayer).
// - Tiles in a grid flow to the width (tiles.js).
// Not for st.plotly_chart (AppTest, PE_PLOTLY_REACT=0), which draws the figure as sent.

import { LINE, MARGIN } from "./defaults.js";
import { fitNarrow } from "./narrow.js";
import { isObject } from "./objects.js";
import { fontsOf, lines, widest, wrap } from "./text.js";
import { fitTiles } from "./tiles.js";

export const NARROW_WIDTH = 480;
const MODEBAR_WIDTH = 230;  // plotly's 2-D modebar and the fullscreen button: 8 icons, 224 px
const MODEBAR_ROOM = 40;  // its height (26 px, 30 in presentation mode's larger type) and a gap

// Fitted in place: `spec` as drawn at `width` px (and `height` px, when that is fixed);
// `modebar`: false when the chart shows none (a short window's slide: slide.js).
export function fitToWidth(spec, width, height, modebar = true) {
  const font = fontsOf(spec.layout);
  const narrow = width < NARROW_WIDTH;
  const titleRoom = fitTitle(spec.layout, width, font, narrow, modebar);
  if (narrow) {
    useNarrow(spec);
    decadesOnly(spec.layout);
    fitNarrow(spec, width, font, titleRoom);
    fitPlayer(spec.layout, font);
  }
  fitTiles(spec, width, font, height);
}

// The title beside the modebar if it fits there, else under the modebar's row, wrapped to the
// width (on a phone, always). Returns the room it takes at the top, or 0 where it stays. With
// no `modebar`, a title that fits the width stays.
export function fitTitle(layout, width, font, narrow, modebar = true) {
  if (!isObject(layout.title) || !layout.title.text) return narrow ? MODEBAR_ROOM : 0;
  const title = layout.title;
  const template = isObject(layout.template) && isObject(layout.template.layout)
    ? layout.template.layout : {};
  const templateTitle = isObject(template.title) ? template.title : {};
  const f = font([templateTitle.font, title.font], Math.round(font([]).size * 1.4));
  f.bold = f.bold || /<b>/i.test(title.text);
  const left = (title.x ?? templateTitle.x ?? 0.5) * width;
  if (!narrow && left + widest(title.text, f) <= width - (modebar ? MODEBAR_WIDTH : 0) - 8) {
    return 0;
  }
  title.text = wrap(title.text, width - left - 12, f);
  // plotly centres a title's lines on its anchor line, top-anchored or not: lift the anchor by
  // half of the added lines.
  const count = lines(title.text).length;
  const pad = MODEBAR_ROOM + (count - 1) * f.size * LINE / 2;
  Object.assign(title, { y: 1, yref: "container", yanchor: "top", automargin: true,
                         pad: { ...(title.pad || {}), t: pad } });
  if (!narrow) {  // all below moves down as much (notes over the plot live in the margin)
    const added = MODEBAR_ROOM + (count - 1) * f.size * LINE;
    layout.margin = { ...(isObject(layout.margin) ? layout.margin : {}) };
    layout.margin.t = (layout.margin.t ?? MARGIN.t) + added;
    layout.height += added;
  }
  return MODEBAR_ROOM + count * f.size * LINE + 12;
}

// On a phone a log axis labels its powers of ten alone: between them plotly labels the 2s and
// 5s at three quarters of the axis's type (9 px of 12), where they fit or not.
export function decadesOnly(layout) {
  for (const [name, axis] of Object.entries(layout)) {
    if (/^[xy]axis\d*$/.test(name) && isObject(axis) && axis.type === "log"
        && axis.dtick === undefined && !axis.tickvals) {
      axis.dtick = 1;
    }
  }
}

// A figure may say what differs on a phone: layout.meta.narrow.data = {trace index: {attribute:
// value}} (word-position's point labels, placed by the server again for a phone's square plot).
export function useNarrow(spec) {
  const meta = spec.layout.meta;
  const given = isObject(meta) && isObject(meta.narrow) && isObject(meta.narrow.data)
    ? meta.narrow.data : {};
  for (const [index, values] of Object.entries(given)) {
    const trace = spec.data[Number(index)];
    if (isObject(trace) && isObject(values)) Object.assign(trace, values);
  }
}

// On a phone, an animation's slider beside its play and pause buttons (the clocks': the slider
// from 22% of the width) ran under them: the slider goes below the buttons, the plot's width.
export function fitPlayer(layout, font) {
  const menus = Array.isArray(layout.updatemenus) ? layout.updatemenus : [];
  if (!Array.isArray(layout.sliders) || !menus.some(m => m.type === "buttons")) return;
  // Below the lowest row of buttons (plotly's buttons: the text's line and ~20 px of padding).
  const below = Math.max(...menus.filter(m => m.type === "buttons")
    .map(m => (isObject(m.pad) ? m.pad.t ?? 0 : 0))) + font([]).size * LINE + 24;
  for (const slider of layout.sliders) {
    if (!isObject(slider) || !(slider.x > 0)) continue;
    slider.x = 0;
    slider.len = 1;
    slider.pad = { ...(isObject(slider.pad) ? slider.pad : {}) };
    slider.pad.t = Math.max(slider.pad.t ?? 20, below);
  }
}
