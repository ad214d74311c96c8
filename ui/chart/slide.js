// A chart on a slide of the tour. ui/player.py lays a slide out: its container keyed SLIDE and
// CSS that gives the charts' blocks the window's height, shared. Here, all that a slide changes
// in a chart:
// - a slide's chart is drawn at its block's height (at least SLIDE_MIN_HEIGHT), read by the
//   element's resize observer (element.js), and holds no room of its own while it is drawn;
// - in a window narrower than a phone's turned sideways (a phone held upright) a slide scrolls:
//   its charts keep their figures' heights, and lose their titles (the slide's own says what
//   they show) and their modebar (which lay under the title or the player's bar; a slide's
//   charts are looked at there, not zoomed);
// - a legend in rows under the plot that would leave the plot less than half of the chart's
//   height (a short chart: a slide's 2 x 2 rows at 1280 x 720) stands beside the plot instead,
//   in a column at its right (legendBeside);
// - a short plot's y axes label fewer ticks, never one on another (fewerTicks);
// - in a window shorter than SLIDE_TYPE_HEIGHT (a 1280 x 720 projector) its type and margins
//   shrink with the window (scaleType), so a slide is the same picture as at 1920 x 1080: the
//   figures size their type for that, and at 720 px tall a 2 x 2 slide's plots were strips.

import { isObject } from "./objects.js";
import { fontsOf, widest } from "./text.js";

export const SLIDE_KEY = "pe-slide";  // ui/player.py's SLIDE (tests/test_chart_js.py checks)
const SLIDE_MIN_HEIGHT = 180;
const PHONE_WIDTH = 640;  // a phone turned sideways is wider

const SLIDE_TYPE_HEIGHT = 1000;  // px of window height from which a slide's type is as sized
export const slideScale = () => Math.min(1, window.innerHeight / SLIDE_TYPE_HEIGHT);

export const onSlide = root => Boolean(root.closest(`.st-key-${SLIDE_KEY}`));
export const phoneWindow = () => window.innerWidth < PHONE_WIDTH;

// The height the slide's block gives the chart in `root`, or 0: not on a slide, a phone's
// window, or a chart the slide hides (a page's aside: no height), which keeps its figure's.
export function slideHeight(root) {
  return onSlide(root) && !phoneWindow() && root.clientHeight > 0
    ? Math.max(Math.round(root.clientHeight), SLIDE_MIN_HEIGHT) : 0;
}

// The drawing ({layout, config}) as a slide draws it, in place. `slide`: {on: on a slide,
// phone: phoneWindow(), height: slideHeight()}; `fullscreen`: the chart fills the window.
export function fitSlide(drawing, slide, fullscreen) {
  // No modebar on a phone's slide, nor in a short window's (its row cost a 2 x 2 slide's
  // titles 40 px each at 1280 x 720): a slide's charts are looked at, not zoomed.
  if (slide.on && (slide.phone || (slide.height && slide.scale < 1))) {
    drawing.config.displayModeBar = false;
  }
  if (fullscreen) return;
  const layout = drawing.layout;
  if (slide.height) {
    layout.height = slide.height;
    legendBeside(drawing);
    fewerTicks(layout);
  } else if (slide.on && layout.title && layout.title.text) {
    layout.title = { text: "" };
    layout.margin = Object.assign({}, layout.margin || {});
    layout.margin.t = Math.min(layout.margin.t ?? 60, 40);
  }
}

const AXIS_ROOM = 80;  // px under a plot for its x tick labels and axis title, at slide type
const FIGURE_FONT = 20;  // px: a slide's type (figures.common's PRESENTATION_FONT_SIZE)
const LEGEND_SYMBOL = 64;  // px of a legend entry that is not its text: symbol, gaps, padding
const LEGEND_LINE = 1.4;  // a legend row's height, in font sizes
const BESIDE_PLOT_WIDTH = 0.3;  // of the chart's width, the least a plot keeps beside a legend
const BESIDE_BELOW = 0.5;  // of the chart's height: a plot keeping less gets its legend beside
const BESIDE_LEAST = 220;  // px at slide type, likewise (a readable plot at 1920 x 1080)
const BESIDE_LINE = 1.9;  // a stacked legend entry's height, in font sizes (symbols included)
const BESIDE_FONT = 16;  // px: figures.common's PRESENTATION_MIN_FONT

// A slide's legend under its plot (figures.common puts it there: horizontal, at the container's
// bottom, the bottom margin guessed for four entries a row) fitted to the chart's width: as many
// rows as its entries wrap to there, and the bottom margin holding them. When the plot would
// keep less than BESIDE_BELOW of the chart's height or BESIDE_LEAST px so, the legend stands
// beside the plot in a
// column (if the plot keeps BESIDE_PLOT_WIDTH of the chart's width, and the column fits).
export function legendBeside(drawing) {
  const layout = drawing.layout;
  const legend = layout.legend;
  if (!isObject(legend) || legend.orientation !== "h" || legend.yref !== "container"
      || layout.showlegend === false) return;
  const names = drawing.data.filter(t => isObject(t) && t.showlegend !== false && t.name
                                    && t.visible !== false).map(t => String(t.name));
  if (names.length < 2) return;
  const margin = isObject(layout.margin) ? { ...layout.margin } : {};
  layout.margin = margin;
  const font = fontsOf(layout);
  const entryFont = font([legend.font]);
  const title = isObject(legend.title) && legend.title.text ? String(legend.title.text) : "";
  const titleWidth = title ? widest(title, font([legend.font, legend.title.font])) + 12 : 0;
  const entries = names.map(name => widest(name, entryFont) + LEGEND_SYMBOL);
  const room = layout.width - (margin.l ?? 80) - (margin.r ?? 80) - 20;  // plotly wraps at the plot's
  let rows = 1;
  let used = 0;
  for (const entry of entries) {
    if (used > 0 && used + entry > room) { rows += 1; used = 0; }
    used += entry;
  }
  const rowHeight = entryFont.size * LEGEND_LINE;
  const top = margin.t ?? 100;
  const axisRoom = AXIS_ROOM * font([]).size / FIGURE_FONT;  // the type may be scaled
  margin.b = Math.ceil(axisRoom + (rows + (title ? 1 : 0)) * rowHeight + 8);
  const least = Math.max(BESIDE_BELOW * layout.height, BESIDE_LEAST * font([]).size / FIGURE_FONT);
  if (layout.height - top - margin.b >= least) return;
  // Beside, in the smallest type a slide draws (its entries stacked need no more).
  const small = { ...entryFont, size: Math.min(entryFont.size, BESIDE_FONT) };
  const column = Math.ceil(Math.max(...names.map(name => widest(name, small) + LEGEND_SYMBOL),
                                    titleWidth * small.size / entryFont.size)) + 16;
  if (layout.width - (margin.l ?? 80) - column < BESIDE_PLOT_WIDTH * layout.width) return;
  const tall = (names.length + (title ? 1 : 0)) * small.size * BESIDE_LINE + 12;
  if (tall > layout.height - top) return;  // it would run past the chart's bottom
  layout.legend = { ...legend, orientation: "v", xref: "paper", x: 1.02, xanchor: "left",
                    yref: "paper", y: 1, yanchor: "top", maxheight: layout.height - top,
                    tracegroupgap: 0, itemsizing: "constant",
                    font: { ...(isObject(legend.font) ? legend.font : {}), size: small.size },
                    title: title ? { ...legend.title, side: "top",
                                     font: { ...(legend.title.font || {}), size: small.size } }
                      : legend.title };
  margin.b = Math.ceil(axisRoom);
  margin.r = Math.max(margin.r ?? 80, column);
}

const TICK_SPACING = 2;  // px between two y tick labels' baselines, in font sizes, at least
const AUTO_TICKS = 5;  // plotly.js's automatic ticks label at least this many on any axis

// Each y axis of a slide's `layout` (its height and margins set) labelled with no more ticks
// than its plot's height holds apart: plotly's automatic ticks put at least AUTO_TICKS on a
// short plot, and a log axis's one label a decade (dtick 1) is six there ("10k 1000 100 10 1
// 0.1" in 70 px): let go of, the axis picks whole decades that fit.
export function fewerTicks(layout) {
  const margin = isObject(layout.margin) ? layout.margin : {};
  const plot = layout.height - (margin.t ?? 100) - (margin.b ?? 80);
  const font = fontsOf(layout);
  const names = Object.keys(layout).filter(name => /^yaxis\d*$/.test(name));
  for (const name of names.length ? names : ["yaxis"]) {
    const axis = isObject(layout[name]) ? layout[name] : (layout[name] = {});
    if (axis.tickvals || axis.tickmode === "array" || axis.visible === false) continue;
    const domain = Array.isArray(axis.domain) ? axis.domain : [0, 1];
    const room = plot * (domain[1] - domain[0]);
    const fit = Math.max(2, Math.floor(room / (font([axis.tickfont]).size * TICK_SPACING)));
    if (fit >= AUTO_TICKS + (axis.type === "log" ? 1 : 0) || (axis.nticks && axis.nticks <= fit)) {
      continue;
    }
    if (axis.type === "log") delete axis.dtick;
    axis.nticks = fit;
  }
}

const FONTS = new Set(["font", "tickfont", "textfont", "titlefont", "insidetextfont",
                       "outsidetextfont"]);

// `spec` ({data, layout}) with every font size it sets and its margins times `scale`, in place.
export function scaleType(spec, scale) {
  const visit = value => {
    if (Array.isArray(value)) { value.forEach(visit); return; }
    if (!isObject(value)) return;
    for (const [key, part] of Object.entries(value)) {
      if (FONTS.has(key) && isObject(part) && typeof part.size === "number") {
        part.size = Math.round(part.size * scale * 10) / 10;
      }
      if (typeof part === "object" && part !== null) visit(part);
    }
  };
  visit(spec.layout);
  visit(spec.data);
  const margin = spec.layout.margin;
  if (isObject(margin)) {
    for (const side of ["t", "b", "l", "r"]) {
      if (typeof margin[side] === "number") margin[side] = Math.round(margin[side] * scale);
    }
  }
}
