// theme.js and colour.js: Streamlit's theme as st.plotly_chart applies it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeCanvas } from "./fake_canvas.mjs";

installFakeCanvas();
const { luminance, mix, parseNormalised, withAlpha } = await import("../../ui/chart/colour.js");
const { merge } = await import("../../ui/chart/objects.js");
const { applyStreamlitTheme, replaceColours, themeOf } = await import("../../ui/chart/theme.js");

const variables = values => name => values[name] || "";
const LIGHT = themeOf(variables({ "background-color": "#ffffff",
                                  "chart-categorical-colors": "#0068c9, #83c9ff",
                                  font: '"Source Sans",sans-serif' }), 16);
const DARK = themeOf(variables({ "background-color": "#0e1117", "text-color": "#fafafa" }), 16);

test("a canvas's colour text reads as numbers", () => {
  assert.deepEqual(parseNormalised("#0068c9"), [0, 104, 201, 1]);
  assert.deepEqual(parseNormalised("rgba(1, 2, 3, 0.5)"), [1, 2, 3, 0.5]);
  assert.equal(withAlpha("#ff0000", 0.2), "rgba(255, 0, 0, 0.2)");
  assert.equal(mix("#ffffff", "#000000", 0.5), "rgba(128, 128, 128, 1)");
  assert.equal(luminance("#ffffff"), 1);
  assert.equal(luminance("transparent"), 0);
});

test("the theme is light or dark by the background's luminance, with its greys", () => {
  assert.equal(LIGHT.light, true);
  assert.equal(DARK.light, false);
  assert.equal(LIGHT.mutedText, "#555867");  // gray80: 7:1 on white (gray70 is 3.6:1)
  assert.equal(DARK.mutedText, "#e6eaf1");
  assert.equal(DARK.bodyText, "#fafafa");
  assert.equal(LIGHT.bodyFont, '"Source Sans", sans-serif');  // spaces back in the list
  assert.deepEqual(LIGHT.categorical, ["#0068c9", "#83c9ff"]);
  assert.equal(LIGHT.px(0.75), 12);
});

test("placeholders become the theme's colours, or plotly's without a theme", () => {
  const text = '{"a":"#000001","b":"#000002","c":"#000038","d":"#0000011","e":"#000003"}';
  const themed = JSON.parse(replaceColours(text, LIGHT, "streamlit"));
  assert.equal(themed.a, "#0068c9");
  assert.equal(themed.b, "#83c9ff");
  assert.equal(themed.c, "#ffffff");  // #000038: the background
  assert.equal(themed.d, "#0000011");  // not a 7-character colour: left alone
  assert.equal(themed.e, "#000003");  // a colour the theme has not: left alone
  const plain = JSON.parse(replaceColours(text, LIGHT, ""));
  assert.equal(plain.a, "#636efa");
  assert.equal(replaceColours('{"x":1}', LIGHT, "streamlit"), '{"x":1}');
});

test("Streamlit's theme goes under the figure's template, the title bold", () => {
  const spec = { data: [], layout: { title: { text: "Heatmap", x: 0.5 },
                                     template: { layout: { font: { size: 99 } } } } };
  applyStreamlitTheme(spec, LIGHT);
  const template = spec.layout.template.layout;
  assert.equal(template.font.size, 12);  // the theme's merged over the template's
  assert.equal(template.paper_bgcolor, "#ffffff");
  assert.equal(template.xaxis.showgrid, false);
  assert.deepEqual(spec.layout.title, { text: "<b>Heatmap</b>", x: 0.5 });
  const bare = { data: [], layout: { title: "Plain" } };
  applyStreamlitTheme(bare, DARK);
  assert.deepEqual(bare.layout.title, { text: "<b>Plain</b>" });
});

test("merge: the source wins, deeply, and undefined leaves the target's", () => {
  assert.deepEqual(merge({ a: { b: 1, c: 2 }, d: [1] }, { a: { b: 3 }, d: [2], e: undefined }),
                   { a: { b: 3, c: 2 }, d: [2] });
});
