// figure.js and slide.js: what a draw draws at a given place (a page, a slide, a phone's slide,
// fullscreen) and Streamlit's config for it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeCanvas } from "./fake_canvas.mjs";

installFakeCanvas();
const { chartConfig, figure } = await import("../../ui/chart/figure.js");
const { fitSlide } = await import("../../ui/chart/slide.js");
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
