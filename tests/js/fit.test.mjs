// fit.js, narrow.js, tiles.js, text.js: the figure fitted to the chart's width, measured with a
// fixed-width stand-in font (fake_canvas.mjs: a character half its size wide).
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeCanvas } from "./fake_canvas.mjs";

installFakeCanvas();
const { fitPlayer, fitTitle, fitToWidth, useNarrow } = await import("../../ui/chart/fit.js");
const { fitNarrow, panels, panelOf } = await import("../../ui/chart/narrow.js");
const { fitTiles } = await import("../../ui/chart/tiles.js");
const { fontsOf, lines, textWidth, tokens, wrap } = await import("../../ui/chart/text.js");

const FONT = { size: 10, family: "x", bold: false };  // 5 px a character
const near = (actual, expected) => assert.ok(Math.abs(actual - expected) < 1e-9,
                                             `${actual} is not ${expected}`);

test("wrap: lines no wider than the room, a long word on a line of its own", () => {
  const text = "aaa bbb ccc dddddddddddd e";
  const wrapped = wrap(text, 40, FONT);  // 8 characters a line
  assert.equal(wrapped, "aaa bbb<br>ccc<br>dddddddddddd<br>e");
  for (const line of lines(wrapped).filter(l => !l.startsWith("d"))) {
    assert.ok(textWidth(line, FONT) <= 40, line);
  }
  assert.equal(wrap("keep<br>breaks", 1000, FONT), "keep<br>breaks");
});

test("tokens: Chinese breaks anywhere, marks stay glued, tags inside their word", () => {
  assert.deepEqual(tokens("位置（编码）。"), [["", "位"], ["", "置"], ["", "（编"],
                                               ["", "码）。"]]);
  assert.deepEqual(tokens("a <b>bold</b> c"), [["", "a"], [" ", "<b>bold</b>"], [" ", "c"]]);
  assert.equal(wrap("位置编码", 20, FONT), "位置<br>编码");  // a CJK character: 10 px
});

test("fonts: a text's own settings over the layout's over the template's", () => {
  const font = fontsOf({ font: { size: 14 }, template: { layout: { font: { family: "T" } } } });
  assert.deepEqual(font([]), { size: 14, family: "T", bold: false });
  assert.deepEqual(font([{ size: 20, weight: 700 }, null]), { size: 20, family: "T", bold: true });
  assert.deepEqual(font([], 18), { size: 18, family: "T", bold: false });
});

test("a title that fits beside the modebar stays; a long one goes under it, wrapped", () => {
  const font = fontsOf({});
  const short = { title: { text: "Short", x: 0 }, height: 400 };
  assert.equal(fitTitle(short, 1000, font, false), 0);
  assert.deepEqual(short, { title: { text: "Short", x: 0 }, height: 400 });
  const long = { title: { text: "word ".repeat(40).trim(), x: 0 }, height: 400 };
  const room = fitTitle(long, 600, font, false);
  const count = lines(long.title.text).length;
  assert.ok(count > 1);
  assert.equal(long.title.yanchor, "top");
  const line = 17 * 1.3;  // a title's type: 1.4 times the layout's 12 px, rounded
  near(long.margin.t, 100 + 40 + (count - 1) * line);
  near(long.height, 400 + 40 + (count - 1) * line);
  near(room, 40 + count * line + 12);
  assert.equal(fitTitle({}, 390, font, true), 40);  // a phone keeps the modebar's row
});

// Two panels side by side with a note over each, a colour bar and an axis title each.
function twoPanels() {
  return {
    data: [{ type: "heatmap", z: [[1]], xaxis: "x", yaxis: "y", colorbar: { title: { text: "v" } } },
           { type: "scatter", x: [0, 1], y: [0, 1], xaxis: "x2", yaxis: "y2" }],
    layout: {
      height: 450, margin: { t: 80, b: 60, l: 50, r: 20 },
      xaxis: { domain: [0, 0.45], title: { text: "position" } }, yaxis: { domain: [0, 1] },
      xaxis2: { domain: [0.55, 1], anchor: "y2", title: { text: "offset" } },
      yaxis2: { domain: [0, 1], anchor: "x2" },
      annotations: [{ text: "left panel", xref: "paper", yref: "paper", x: 0.2, y: 1.02,
                      yanchor: "bottom" },
                    { text: "right panel", xref: "paper", yref: "paper", x: 0.8, y: 1.02,
                      yanchor: "bottom" }],
    },
  };
}

test("panels in reading order, and the panel a note belongs to", () => {
  const spec = twoPanels();
  const cells = panels(spec);
  assert.deepEqual(cells.map(c => c.x), ["x", "x2"]);
  assert.equal(panelOf(spec.layout.annotations[1], cells).x, "x2");
  assert.equal(panelOf({ xref: "x", yref: "y" }, cells).x, "x");
  assert.equal(panelOf({ xref: "paper", yref: "paper", x: 0.5, y: -0.5 }, cells), null);
});

test("on a phone, panels side by side are stacked, each full width, notes above them", () => {
  const spec = twoPanels();
  fitNarrow(spec, 390, fontsOf(spec.layout), 40);
  const { layout } = spec;
  const [top, bottom] = [layout.yaxis.domain, layout.yaxis2.domain];
  assert.deepEqual(layout.xaxis.domain, [0, 1]);
  assert.deepEqual(layout.xaxis2.domain, [0, 1]);
  assert.ok(top[0] > bottom[1], "the first panel above the second, apart");
  assert.ok(Math.abs(bottom[0]) < 1e-12, "the last panel at the plot's bottom");
  assert.ok(top[1] < 1, "room above the first panel for its note");
  // Each note on its panel's top edge, its x now a fraction of the full width.
  assert.equal(layout.annotations[0].y, top[1]);
  assert.equal(layout.annotations[1].y, bottom[1]);
  assert.ok(Math.abs(layout.annotations[0].x - 0.2 / 0.45) < 1e-12);
  assert.equal(layout.annotations[0].yanchor, "bottom");
  assert.equal("__above" in layout.annotations[0], false);
  // The colour bar beside its panel, its title beside the bar.
  const bar = spec.data[0].colorbar;
  assert.equal(bar.y, (top[0] + top[1]) / 2);
  assert.equal(bar.title.side, "right");
  // The height: the title's room, the panels with their rooms, the last axis's room.
  assert.equal(layout.margin.t, 40);
  const plot = layout.height - layout.margin.t - layout.margin.b;
  assert.ok(plot > 450 - 80 - 60, "taller than the two panels were side by side");
  assert.equal(Number.isInteger(layout.height), true);
});

test("one panel keeps its height on a phone; a square one becomes as wide as the plot", () => {
  const spec = { data: [{ type: "scatter", x: [0], y: [0] }],
                 layout: { height: 800, margin: { t: 100, b: 80, l: 60, r: 20 },
                           xaxis: {}, yaxis: { scaleanchor: "x" } } };
  fitNarrow(spec, 360, fontsOf(spec.layout), 40);
  const plotWidth = 360 - 60 - 20;
  assert.equal(spec.layout.height, Math.round(40 + plotWidth + 10 + 80));
});

test("a legend beside the plot goes to the bottom in rows, with room made", () => {
  const spec = { data: ["alpha", "beta", "gamma"].map(name => ({ type: "scatter", name,
                                                                x: [0], y: [0] })),
                 layout: { height: 450, margin: { t: 60, b: 40 }, xaxis: {}, yaxis: {} } };
  fitNarrow(spec, 390, fontsOf(spec.layout), 40);
  assert.deepEqual(spec.layout.legend, { orientation: "h", x: 0, xanchor: "left", y: 0,
                                         yanchor: "bottom", yref: "container" });
  assert.ok(spec.layout.margin.b > 40 + 12 * 1.3);
});

// Eight clocks in one row (figures.wavelengths), a label under each.
function clocks(text) {
  const x = [], y = [];
  for (let k = 0; k < 8; k++) { x.push(k * 3); y.push(0); }
  return {
    data: [{ type: "scatter", mode: "text", x, y, text: x.map(() => text) }],
    layout: { height: 300, margin: { t: 40, b: 20, l: 10, r: 10 },
              xaxis: { range: [-1.5, 22.5], visible: false },
              yaxis: { range: [-1.5, 1.5], visible: false },
              meta: { tiles: { count: 8, columns: 8, dx: 3, dy: 3 } } },
  };
}

test("tiles narrower than their labels flow to more rows; each point moves with its tile", () => {
  const spec = clocks("λ = 10000");
  fitTiles(spec, 390, fontsOf(spec.layout), 0);
  const { x, y } = spec.data[0];
  const columns = new Set(x).size;
  assert.ok(columns < 8 && columns > 1, `columns: ${columns}`);
  assert.deepEqual(x.slice(0, columns), Array.from({ length: columns }, (_, k) => 3 * k));
  assert.equal(y[columns], -3);  // the next tile starts the second row
  assert.deepEqual(spec.layout.xaxis.range, [-1.5, 22.5 - (8 - columns) * 3]);
  assert.equal(spec.layout.yaxis.range[1], 1.5);
  // As tall as its rows at the plot's width (370 px: no axes, 10 px sides).
  const rows = Math.ceil(8 / columns);
  assert.equal(spec.layout.height, Math.round(40 + (3 * rows) * 370 / (3 * columns) + 20));
  const wide = clocks("λ = 10000");
  fitTiles(wide, 2000, fontsOf(wide.layout), 0);
  assert.deepEqual(wide, clocks("λ = 10000"));  // room enough: as sent
});

test("on a phone an animation's slider goes under its buttons", () => {
  const layout = { updatemenus: [{ type: "buttons", pad: { t: 30 } }],
                   sliders: [{ x: 0.22, len: 0.78 }, { x: 0 }] };
  fitPlayer(layout, fontsOf({}));
  assert.deepEqual(layout.sliders[0], { x: 0, len: 1, pad: { t: 30 + 12 * 1.3 + 24 } });
  assert.deepEqual(layout.sliders[1], { x: 0 });  // already at the left: left as it is
});

test("a figure's phone variant is used below the narrow width, not above", () => {
  const spec = () => ({ data: [{ type: "scatter", x: [0], y: [0], textposition: "top" }],
                        layout: { height: 400, xaxis: {}, yaxis: {},
                                  meta: { narrow: { data: { 0: { textposition: "left" } } } } } });
  const phone = spec();
  fitToWidth(phone, 390, 0);
  assert.equal(phone.data[0].textposition, "left");
  const laptop = spec();
  fitToWidth(laptop, 900, 0);
  assert.equal(laptop.data[0].textposition, "top");
  const direct = spec();
  useNarrow(direct);
  assert.equal(direct.data[0].textposition, "left");
});
