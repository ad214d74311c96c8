// figure.js and slide.js: what a draw draws at a given place (a page, a slide, a phone's slide,
// fullscreen) and Streamlit's config for it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeCanvas } from "./fake_canvas.mjs";

installFakeCanvas();
const { chartConfig, figure } = await import("../../ui/chart/figure.js");
const { fewerTicks, fitSlide, legendBeside, scaleType } = await import("../../ui/chart/slide.js");
const { themeOf } = await import("../../ui/chart/theme.js");

const THEME = themeOf(name => (name === "background-color" ? "#ffffff" : ""), 16);
const SPEC = JSON.stringify({ data: [{ type: "scatter", x: [0, 1], y: [1, 0] }],
                              layout: { title: { text: "Dot product" }, height: 400,
                                        margin: { t: 60 } } });
const page = { width: 800, fullscreen: false, window: { width: 1400, height: 900 },
               slide: { on: false, phone: false, height: 0 } };
const chart = () => ({ fullscreen: false, toggleFullscreen() {} });
const draw = (place, data = {}) => figure({ spec: SPEC, theme: "streamlit", ...data },
                                          THEME, place, chart());

test("on a page: the container's width, the figure's height, Streamlit's theme", () => {
  const drawn = draw(page);
  assert.equal(drawn.layout.width, 800);
  assert.equal(drawn.layout.height, 400);
  assert.equal(drawn.layout.title.text, "<b>Dot product</b>");
  assert.equal(drawn.layout.template.layout.xaxis.ticklabeloverflow, "allow");
  assert.equal(draw({ ...page, width: 40 }).layout.width, 150);  // MIN_WIDTH
  const bare = figure({ spec: "{}", theme: "" }, THEME, page, chart());
  assert.deepEqual([bare.data, bare.layout.height], [[], 450]);  // plotly's default height
});

test("on a slide: its block's height; on a phone's slide: no title, no modebar", () => {
  const slide = draw({ ...page, slide: { on: true, phone: false, height: 520 } });
  assert.equal(slide.layout.height, 520);
  assert.equal(slide.config.displayModeBar, undefined);
  const phone = draw({ ...page, width: 390, window: { width: 390, height: 844 },
                       slide: { on: true, phone: true, height: 0 } });
  assert.deepEqual(phone.layout.title, { text: "" });
  assert.equal(phone.layout.margin.t, 40);
  assert.equal(phone.config.displayModeBar, false);
  const hidden = { layout: { title: { text: "t" }, margin: { t: 20 } }, config: {} };
  fitSlide(hidden, { on: true, phone: false, height: 0 }, false);  // a chart the slide hides
  assert.deepEqual(hidden.layout, { title: { text: "" }, margin: { t: 20 } });
});

test("fullscreen: the window less the layer's padding, whatever the place", () => {
  const full = draw({ ...page, fullscreen: true, slide: { on: true, phone: false, height: 520 } });
  assert.equal(full.layout.width, 1400 - 2 * 12);
  assert.equal(full.layout.height, 900 - 46 - 12);
  assert.equal(full.config.modeBarButtonsToAdd[0].name, "Fullscreen");
});

test("the config: Streamlit's defaults, a fullscreen button, one download options object", () => {
  const state = { fullscreen: true, toggleFullscreen() {} };
  const config = chartConfig({ modeBarButtonsToRemove: ["zoom2d", "lasso2d"],
                               toImageButtonOptions: { filename: "pe-a" } }, state);
  assert.deepEqual(config.modeBarButtonsToRemove,
                   ["zoom2d", "lasso2d", "select2d", "sendChartToCloud"]);
  assert.equal(config.displaylogo, false);
  assert.equal(config.modeBarButtonsToAdd[0].title, "Close fullscreen");
  assert.equal(config.modeBarButtonsToAdd[0].click, state.toggleFullscreen);
  const again = chartConfig({ toImageButtonOptions: { filename: "pe-b" } }, state);
  assert.equal(again.toImageButtonOptions, config.toImageButtonOptions);  // the same object
  assert.deepEqual(again.toImageButtonOptions, { filename: "pe-b" });  // its contents new
  assert.equal(chartConfig({ displaylogo: true }, state).displaylogo, true);
});

// A slide's chart with a legend of five entries under its plot, as figures.common puts it.
const legendChart = (width, height) => ({
  data: ["target, unscaled", "angles never seen", "training", "interpolated x4", "2pi: a turn"]
    .map(name => ({ type: "scatter", name })),
  layout: { width, height, font: { size: 20 }, margin: { t: 72, b: 174, l: 70, r: 20 },
            legend: { orientation: "h", yref: "container", y: 0, yanchor: "bottom" } },
  config: {},
});

test("a slide's legend: its rows at the chart's width, or beside a plot it would squash", () => {
  const wide = legendChart(1800, 900);  // one row fits: the bottom margin is one row's
  legendBeside(wide);
  assert.equal(wide.layout.legend.orientation, "h");
  assert.ok(wide.layout.margin.b < 174, wide.layout.margin.b);
  const short = legendChart(900, 420);  // two rows would leave the plot under half the chart
  legendBeside(short);
  assert.equal(short.layout.legend.orientation, "v");
  assert.equal(short.layout.legend.font.size, 16);
  assert.ok(short.layout.height - short.layout.margin.t - short.layout.margin.b >= 0.5 * 420);
  assert.ok(short.layout.margin.r > 200);  // the column's room at the right
  const narrow = legendChart(300, 420);  // beside, the plot would keep under 30% of the width
  legendBeside(narrow);
  assert.equal(narrow.layout.legend.orientation, "h");
});

test("a short plot labels fewer y ticks, a log axis's decade ticks let go of", () => {
  const layout = { height: 260, font: { size: 20 }, margin: { t: 72, b: 100 },
                   yaxis: { type: "log", dtick: 1 }, yaxis2: { tickvals: [1, 2, 3] } };
  fewerTicks(layout);  // a plot of 88 px holds two labels 40 px apart
  assert.equal(layout.yaxis.nticks, 2);
  assert.equal(layout.yaxis.dtick, undefined);
  assert.equal(layout.yaxis2.nticks, undefined);  // ticks the figure chose stay
  const tall = { height: 900, font: { size: 20 }, margin: { t: 72, b: 100 }, yaxis: {} };
  fewerTicks(tall);
  assert.equal(tall.yaxis.nticks, undefined);  // plotly's own ticks where they fit
});

test("a short window's slide: every font and margin scaled", () => {
  const spec = { data: [{ textfont: { size: 20 } }],
                 layout: { font: { size: 20 }, title: { font: { size: 26 } },
                           annotations: [{ font: { size: 18 } }], margin: { t: 72, b: 100 },
                           xaxis: { tickfont: { size: 20 } } } };
  scaleType(spec, 0.5);
  assert.deepEqual([spec.layout.font.size, spec.layout.title.font.size,
                    spec.layout.annotations[0].font.size, spec.layout.xaxis.tickfont.size,
                    spec.data[0].textfont.size, spec.layout.margin.t, spec.layout.margin.b],
                   [10, 13, 9, 10, 10, 36, 50]);
  const slide = draw({ ...page, window: { width: 1280, height: 720 },
                       slide: { on: true, phone: false, height: 300, scale: 0.72 } });
  assert.equal(slide.config.displayModeBar, false);  // no modebar row in a short window
});
