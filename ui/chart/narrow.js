// A figure on a phone held upright (fit.js: narrower than NARROW_WIDTH): its panels stacked in
// one column, in reading order, each with room above for its title and below for its axis; a
// square panel (equal scales) as wide as the plot; notes, panel and axis titles wrapped to their
// room; a legend beside or under the plot moved to the figure's bottom in rows, with room made;
// a panel's colour bar kept beside it, its title beside the bar.

import { DEFAULT_HEIGHT, LINE, MARGIN } from "./defaults.js";
import { isObject } from "./objects.js";
import { lines, textWidth, widest, wrap } from "./text.js";

const MANY_PANELS = 5;  // from this many stacked panels, each is kept short (ALiBi's eight heads)
// Trace types without a legend entry unless they ask for one.
const NO_LEGEND = new Set(["heatmap", "histogram2d", "contour", "histogram2dcontour", "image",
                           "surface", "table", "carpet"]);

// `spec` laid out again in place at `width` px (`font`: fontsOf its layout), `titleRoom` px kept
// at the top for its title (fit.js's fitTitle). The steps, in order:
export function fitNarrow(spec, width, font, titleRoom) {
  const layout = spec.layout;
  const cells = panels(spec);
  if (!cells.length) return;
  const margin = isObject(layout.margin) ? layout.margin : (layout.margin = {});
  const bottom = margin.b ?? MARGIN.b;
  const room = roomOf(spec, width, font);
  const stacked = cells.length > 1;
  // Where each annotation and shape belongs, before anything moves.
  const annotations = Array.isArray(layout.annotations) ? layout.annotations : [];
  const items = [...annotations, ...(Array.isArray(layout.shapes) ? layout.shapes : [])];
  const owners = new Map(items.map(item => [item, panelOf(item, cells)]));
  if (stacked) widenItems(items, owners);
  wrapNotes(annotations, room);
  wrapAxisTitles(cells, room);
  titleColourBarsBeside(spec);
  for (const c of cells) measureRoomAround(c, spec, room, stacked);
  makeRoomForNotesAbove(annotations, owners, font);
  sizePanels(cells, width, room, stacked);
  const legendRoom = legendBelow(spec, width, room);
  const plot = stackDomains(cells);
  moveItems(items, owners);
  setDomains(cells, layout, stacked);
  if (stacked) colourBarsBeside(spec, cells);
  margin.t = titleRoom;  // the panels' titles and notes are in the plot's height now
  margin.b = Math.max(bottom, cells[cells.length - 1].below) + legendRoom;
  layout.height = Math.round(margin.t + plot + margin.b);
}

// Cartesian panels: each x axis with the y axis it is anchored to, and their domains (xd, yd),
// in reading order (rows from the top, left to right in a row).
export function panels(spec) {
  const layout = spec.layout;
  const found = [];
  for (const name of Object.keys(layout)) {
    const match = /^xaxis(\d*)$/.exec(name);
    if (!match || !isObject(layout[name]) || layout[name].overlaying) continue;
    const x = layout[name];
    const anchor = typeof x.anchor === "string" && /^y\d*$/.test(x.anchor) ? x.anchor
      : `y${match[1]}`;
    const yName = `yaxis${anchor.slice(1)}`;
    if (!isObject(layout[yName])) layout[yName] = {};
    found.push({ x: `x${match[1]}`, y: anchor, xaxis: x, yaxis: layout[yName],
                 xd: x.domain || [0, 1], yd: layout[yName].domain || [0, 1] });
  }
  const cartesian = spec.data.some(
    t => !t.type || /^(scatter|bar|heatmap|histogram|box|violin|contour|image)/.test(t.type));
  if (!found.length && cartesian) {
    layout.xaxis = layout.xaxis || {};
    layout.yaxis = layout.yaxis || {};
    found.push({ x: "x", y: "y", xaxis: layout.xaxis, yaxis: layout.yaxis, xd: [0, 1],
                 yd: layout.yaxis.domain || [0, 1] });
  }
  return found.sort((a, b) => (Math.round((b.yd[1] - a.yd[1]) * 100)
                                || a.xd[0] - b.xd[0]));
}

const axisOf = ref => (typeof ref === "string" ? ref.split(" ")[0] : "");
const near = (v, [a, b], slack) => v >= a - slack && v <= b + slack;

// The panel an annotation or shape belongs to (by its axes, else by where it sits), or null.
export function panelOf(item, cells) {
  const xr = axisOf(item.xref) || "x", yr = axisOf(item.yref) || "y";
  if (xr !== "paper") return cells.find(c => c.x === xr) || null;
  if (yr !== "paper") return cells.find(c => c.y === yr) || null;
  const x = Number(item.x ?? item.x0 ?? 0.5), y = Number(item.y ?? item.y0 ?? 0.5);
  return cells.find(c => near(x, c.xd, 0.02) && near(y, c.yd, 0.02))
    || cells.find(c => near(x, c.xd, 0.02) && y > c.yd[1] && cells.every(
      o => o === c || !near(x, o.xd, 0.02) || o.yd[1] <= c.yd[1]))
    || null;
}

// The traces with an entry in the legend shown (none when it is hidden).
export function legendShown(spec) {
  const layout = spec.layout;
  const entries = spec.data.filter(t => t.name && t.visible !== false && (t.showlegend === true
    || (t.showlegend === undefined && !NO_LEGEND.has(t.type || "scatter"))));
  const shown = layout.showlegend === true || (layout.showlegend !== false && entries.length > 1);
  return shown ? entries : [];
}

// The room the panels have: the plot's width between the tick labels and a colour bar, and the
// plot's height as sent (an axis title's length), with the fonts the steps measure text in.
function roomOf(spec, width, font) {
  const layout = spec.layout;
  const margin = layout.margin;
  const top = margin.t ?? MARGIN.t, bottom = margin.b ?? MARGIN.b;
  const base = font([]);
  const colourBar = spec.data.some(t => (NO_LEGEND.has(t.type) && t.showscale !== false
                                          && !t.coloraxis) || (t.marker && t.marker.showscale))
    || Object.keys(layout).some(k => /^coloraxis\d*$/.test(k) && isObject(layout[k])
                                     && layout[k].showscale !== false);
  const left = margin.l > 40 ? margin.l : 75;  // else plotly's automargin: tick labels, title
  // A colour bar with its numbers: ~70 px at 12 px type.
  const right = Math.max(margin.r || 0, 10) + (colourBar ? 6 * base.size : 0);
  const templateLayout = isObject(layout.template) && isObject(layout.template.layout)
    ? layout.template.layout : {};
  return {
    width, font, base, left, right,
    plotWidth: Math.max(width - left - right, 120),
    oldPlot: Math.max((layout.height || DEFAULT_HEIGHT) - top - bottom, 100),
    templateLayout,
    templateAxis: isObject(templateLayout.xaxis) ? templateLayout.xaxis : {},
  };
}

// Paper x of the items in a panel: the panel is now as wide as the plot.
function widenItems(items, owners) {
  for (const item of items) {
    const c = owners.get(item);
    if (!c || axisOf(item.xref || "x") !== "paper") continue;
    for (const key of ["x", "x0", "x1"]) {
      if (item[key] !== undefined) {
        item[key] = (Number(item[key]) - c.xd[0]) / ((c.xd[1] - c.xd[0]) || 1);
      }
    }
  }
}

// Notes and panel titles wrap to the room their anchor leaves.
function wrapNotes(annotations, room) {
  const { width, left, right, plotWidth } = room;
  for (const a of annotations) {
    if (!a.text) continue;
    const f = room.font([a.font]);
    let space = width - 16;
    if (axisOf(a.xref || "x") === "paper") {
      const at = left + Number(a.x ?? 0.5) * plotWidth;
      const anchor = a.xanchor && a.xanchor !== "auto" ? a.xanchor
        : (a.x <= 1 / 3 ? "left" : a.x >= 2 / 3 ? "right" : "center");
      // Not past the plot's right edge: a colour bar's title may stand there.
      space = anchor === "left" ? width - right - at : anchor === "right" ? at - 8
        : 2 * Math.min(at, width - at) - 8;
    }
    if (widest(a.text, f) > space) a.text = wrap(a.text, Math.max(space, 80), f);
  }
}

// Axis titles wrap to their axis's length.
function wrapAxisTitles(cells, room) {
  const { templateAxis } = room;
  for (const c of cells) {
    for (const [axis, length] of [[c.xaxis, room.plotWidth], [c.yaxis, null]]) {
      if (!isObject(axis.title) || !axis.title.text) continue;
      const f = room.font([templateAxis.title && templateAxis.title.font, axis.title.font],
                          room.base.size + 2);
      const space = length ?? Math.max((c.yd[1] - c.yd[0]) * room.oldPlot, 160);
      if (widest(axis.title.text, f) > space) axis.title.text = wrap(axis.title.text, space, f);
    }
  }
}

// Colour bar titles stand beside the bar (above it, they would meet the notes over the plot).
function titleColourBarsBeside(spec) {
  const layout = spec.layout;
  const bars = spec.data.map(t => t.colorbar || (t.marker && t.marker.colorbar))
    .concat(Object.keys(layout).filter(k => /^coloraxis\d*$/.test(k) && isObject(layout[k]))
      .map(k => layout[k].colorbar));
  for (const bar of bars) {
    if (isObject(bar) && isObject(bar.title) && bar.title.text) bar.title.side = "right";
  }
}

// A panel's room above (its title, notes over it: makeRoomForNotesAbove) and below (tick
// labels, axis title), and whether it is square (equal scales).
function measureRoomAround(c, spec, room, stacked) {
  const { font, templateAxis } = room;
  c.above = 0;
  c.below = (c.xaxis.showticklabels === false && !stacked ? 4 : room.base.size * LINE + 10);
  // Slanted tick labels (token names at -45 degrees) reach down by their width's sine.
  const angle = Number(c.xaxis.tickangle);
  if (c.xaxis.showticklabels !== false && Number.isFinite(angle) && angle % 180 !== 0) {
    const labels = Array.isArray(c.xaxis.ticktext) ? c.xaxis.ticktext
      : spec.data.filter(t => (t.xaxis || "x") === c.x && Array.isArray(t.x))
        .flatMap(t => t.x.filter(v => typeof v === "string"));
    const f = font([templateAxis.tickfont, c.xaxis.tickfont]);
    const reach = Math.max(0, ...labels.map(label => widest(String(label), f)));
    c.below += Math.max(reach * Math.abs(Math.sin(angle * Math.PI / 180)) - f.size, 0) + 10;
  }
  const title = isObject(c.xaxis.title) ? c.xaxis.title.text : c.xaxis.title;
  if (title) {
    const f = font([templateAxis.title && templateAxis.title.font, c.xaxis.title.font],
                   room.base.size + 2);  // as wrapAxisTitles
    c.below += lines(title).length * f.size * LINE + 20;
  }
  c.square = Boolean(c.yaxis.scaleanchor || c.xaxis.scaleanchor);
}

// A note over a panel's top (its title) gets room above the panel and sits on its top edge.
function makeRoomForNotesAbove(annotations, owners, font) {
  for (const a of annotations) {
    const c = owners.get(a);
    if (!c || axisOf(a.yref || "y") !== "paper" || !a.text) continue;
    const y = Number(a.y ?? 0.5);
    const overTop = a.yanchor === "bottom" ? y >= c.yd[1] - 0.005 : y > c.yd[1] + 0.005;
    if (!overTop) continue;
    a.__above = true;
    c.above = Math.max(c.above, lines(a.text).length * font([a.font]).size * LINE + 6);
  }
}

// Heights: a stacked panel about as tall as it is wide (square ones exactly: as wide as the
// plot, which stacking made wider).
function sizePanels(cells, width, room, stacked) {
  const cap = cells.length >= MANY_PANELS ? 200 : Math.max(240, 0.8 * width);
  for (const c of cells) {
    const old = (c.yd[1] - c.yd[0]) * room.oldPlot;
    c.height = c.square ? Math.min(stacked ? cap : old, room.plotWidth + 10)
      : (stacked ? Math.min(old, cap) : old);
  }
}

// A legend beside or under the plot goes to the figure's bottom, in rows as wide as the figure.
// Returns the room it takes there (0: it stays).
function legendBelow(spec, width, room) {
  const layout = spec.layout;
  const entries = legendShown(spec);
  const legend = isObject(layout.legend) ? layout.legend : {};
  const outside = legend.orientation === "h" || (legend.x ?? 1.02) > 1 || (legend.y ?? 1) < 0;
  if (!entries.length || !outside) return 0;
  const f = room.font([isObject(room.templateLayout.legend) ? room.templateLayout.legend.font
    : null, legend.font]);
  let rows = 1, used = 0;
  for (const t of entries) {
    const w = textWidth(t.name, f) + 46;
    if (used && used + w > width - 10) { rows += 1; used = 0; }
    used += w;
  }
  const hasTitle = isObject(legend.title) && legend.title.text;
  layout.legend = { ...legend, orientation: "h", x: 0, xanchor: "left", y: 0,
                    yanchor: "bottom", yref: "container" };
  return rows * (f.size * LINE + 6) + (hasTitle ? f.size * LINE + 4 : 0) + 10;
}

// New y domains (c.nyd), from the top: room above, panel, room below (the last one's is the
// margin). Returns the plot's height in px.
function stackDomains(cells) {
  const last = cells[cells.length - 1];
  const plot = cells.reduce((sum, c) => sum + c.above + c.height + (c === last ? 0 : c.below), 0);
  let cursor = plot;
  for (const c of cells) {
    cursor -= c.above;
    c.nyd = [(cursor - c.height) / plot, cursor / plot];
    cursor -= c.height + c.below;
  }
  return plot;
}

// Paper y of the items in a panel, to the panel's new place; one over it on its top edge.
function moveItems(items, owners) {
  const yMap = (value, c) => {
    const v = Number(value);
    if (v >= c.yd[1]) return c.nyd[1];  // over the panel: on its top edge (room made above)
    return c.nyd[0] + (v - c.yd[0]) / ((c.yd[1] - c.yd[0]) || 1) * (c.nyd[1] - c.nyd[0]);
  };
  for (const item of items) {
    const c = owners.get(item);
    if (!c || axisOf(item.yref || "y") !== "paper") continue;
    for (const key of ["y", "y0", "y1"]) {
      if (item[key] !== undefined) item[key] = yMap(item[key], c);
    }
    if (item.__above) { item.yanchor = "bottom"; delete item.__above; }
  }
}

function setDomains(cells, layout, stacked) {
  for (const c of cells) {
    c.yaxis.domain = c.nyd;
    if (stacked) {
      c.xaxis.domain = [0, 1];
      // Shared axes showed their numbers on one panel only: each panel shows its own now.
      for (const axis of [c.xaxis, c.yaxis]) if (axis.matches) axis.showticklabels = true;
      if (c.yaxis.matches && !(isObject(c.yaxis.title) && c.yaxis.title.text)) {
        const shared = layout[`yaxis${c.yaxis.matches.slice(1)}`];
        if (isObject(shared) && shared.title) c.yaxis.title = shared.title;
      }
    }
  }
}

// A panel's colour bar beside that panel; a shared one (a colour axis) beside the first panel.
function colourBarsBeside(spec, cells) {
  const layout = spec.layout;
  for (const t of spec.data) {
    const c = cells.find(cell => cell.x === (t.xaxis || "x"));
    const bar = t.colorbar || (t.marker && t.marker.colorbar);
    if (!c || !isObject(bar) || t.coloraxis) continue;
    Object.assign(bar, { y: (c.nyd[0] + c.nyd[1]) / 2, yanchor: "middle", yref: "paper",
                         len: c.nyd[1] - c.nyd[0], lenmode: "fraction" });
    if (bar.x !== undefined && bar.x < 1) bar.x = 1.02;
  }
  for (const name of Object.keys(layout).filter(k => /^coloraxis\d*$/.test(k))) {
    if (!isObject(layout[name])) continue;
    const bar = isObject(layout[name].colorbar) ? layout[name].colorbar
      : (layout[name].colorbar = {});
    Object.assign(bar, { y: cells[0].nyd[1], yanchor: "top", yref: "paper",
                         len: Math.max(cells[0].height, 200), lenmode: "pixels" });
  }
}
