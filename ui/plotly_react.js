// The chart of ui/plotly_react.py: one div per element for the element's whole life, drawn with
// Plotly.react (Streamlit calls this function again with the new data on every change).
//
// What st.plotly_chart does in the browser (Streamlit 1.67's PlotlyChart and CustomTheme), done
// here the same way: the "streamlit" template's placeholder colours replaced by the theme's,
// the theme's layout merged into the template, the title in bold; width = the container's (at
// least 150 px), height = the figure's (450 px when it sets none); the config with Streamlit's
// defaults and a fullscreen button. The theme is read from the CSS variables Streamlit gives
// every component (--st-background-color, --st-chart-categorical-colors, ...), plus the fixed
// palette greys Streamlit picks by the background's luminance.

const GRAY = { gray10: "#fafafa", gray30: "#e6eaf1", gray70: "#808495", gray80: "#555867",
               gray85: "#31333F", gray90: "#262730" };
const PALETTE = { red40: "#ffabab", red80: "#ff2b2b", green40: "#7defa1",
                  blueGreen80: "#29b09d", blue40: "#83c9ff", blue80: "#0068c9" };
// Streamlit's theme sizes, in rem (fontSizes.twoSm/sm/md, spacing.twoXS/sm/xl/twoXL).
const REM = { twoSm: 0.75, sm: 0.875, md: 1, twoXS: 0.25, spacingSm: 0.5, xl: 1.25,
              twoXL: 1.5 };
const MIN_WIDTH = 150;
const DEFAULT_HEIGHT = 450;
// A slide's chart is at least this tall; in a window narrower than a phone's turned sideways
// (a phone held upright) a slide scrolls, its charts keeping their figures' heights.
const SLIDE_MIN_HEIGHT = 180;
const narrowWindow = () => window.innerWidth < 640;
const FULLSCREEN_Z = 1000050;

// A menu opened under a chart near the window's bottom (the Export menu on a 1920 x 1080 slide)
// would hang below it, its last buttons out of sight: once open, the page scrolls by what it
// overflows (the menu follows its button; the page scrolls in Streamlit's main container).
function revealPopover(body) {
  const over = body.getBoundingClientRect().bottom - window.innerHeight + 16;
  if (over <= 0) return;
  const scroller = ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]']
    .map((selector) => document.querySelector(selector))
    .find((e) => e && e.scrollHeight > e.clientHeight + 1
          && /(auto|scroll)/.test(getComputedStyle(e).overflowY));
  (scroller || document.scrollingElement || document.documentElement).scrollBy(0, over);
}
if (!window.__pePopoverWatch) {
  window.__pePopoverWatch = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof Element)) continue;
        const body = node.matches('[data-testid="stPopoverBody"]') ? node
          : node.querySelector('[data-testid="stPopoverBody"]');
        if (!body) continue;
        // Its buttons come with the menu's own run (built when it opens): follow its growth.
        const growing = new ResizeObserver(() => revealPopover(body));
        growing.observe(body);
        window.setTimeout(() => growing.disconnect(), 4000);
      }
    }
  });
  window.__pePopoverWatch.observe(document.body, { childList: true, subtree: true });
}

// Live controls: while a Streamlit slider's thumb is dragged (its value goes to the server on
// release), the charts whose figure carries that control's states (`layout.meta.live[name]`:
// the values and, for each, a Plotly.update's [data, layout, traces], figures' `live_states`)
// draw the state of the value under the pointer at once. The server's run after the release
// draws the same picture from the truth. A value between two states sent draws the nearer.
function liveName(input) {
  const box = input.closest('[class*="st-key-"]');
  const key = box && [...box.classList].find(c => c.startsWith("st-key-"));
  return key ? key.slice("st-key-".length) : null;
}
// The state of `text`, or the nearest sent: by number, or by distance over a comma-separated
// tuple ("row,col": the ViT grid's patch).
function nearestState(live, text) {
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
// A state that gives heatmaps new cells, on a colour range of their own that the state keeps
// (and, of the layout, a new title at most), is drawn as pictures over those heatmaps: one
// layout image each, a pixel per cell, coloured as plotly.js colours the trace (its colour
// scale and range as drawn). plotly.js draws a layout image alone ("arraydraw", a few ms),
// where a heatmap's new z computes and lays out the whole figure again (its axes' labels
// measured, its colour bar: 30-60 ms a step for the order page's pair). The server's run on
// release draws the heatmaps themselves, and the pictures go (its figure has none). null: the
// state is not such.
// (A state's customdata, the hover's numbers, waits for the server's draw: the pointer is on the
// slider meanwhile.)
const PICTURE_DATA = new Set(["z", "customdata"]), PICTURE_LAYOUT = new Set(["title.text"]);
function grid(values) {  // rows of numbers: nested arrays, or plotly's {dtype, bdata, shape}
  if (Array.isArray(values)) return values.every(Array.isArray) ? values : null;
  if (!isObject(values) || typeof values.bdata !== "string" || !TYPED[values.dtype]
      || typeof values.shape !== "string") return null;
  const [rows, columns] = values.shape.split(",").map(Number);
  const bytes = Uint8Array.from(atob(values.bdata), c => c.charCodeAt(0));
  const flat = new TYPED[values.dtype](bytes.buffer);
  if (!(rows * columns === flat.length)) return null;
  return Array.from({ length: rows }, (_, r) => flat.subarray(r * columns, (r + 1) * columns));
}
function rgba(colour) {  // [r, g, b, a] (a in 0..1) of any CSS colour (canvas normalises it)
  colourContext = colourContext || document.createElement("canvas").getContext("2d");
  colourContext.fillStyle = "#000000";
  colourContext.fillStyle = colour;
  const text = colourContext.fillStyle;
  if (text.startsWith("#")) return [...[1, 3, 5].map(i => parseInt(text.slice(i, i + 2), 16)), 1];
  const parts = (text.match(/[\d.]+/g) || [0, 0, 0]).map(Number);
  return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
}
// The first and last edges of a heatmap's cells along an axis (plotly.js's calc: equal steps),
// as fractions of the axis's domain, or null.
function cellEdges(edges, axis) {
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
function heatmapPictures(gd, opacityOf, data, layout, traces) {
  if (!data.z || Object.keys(data).some(key => !PICTURE_DATA.has(key))
      || traces.length !== data.z.length
      || Object.keys(layout).some(key => !PICTURE_LAYOUT.has(key))) return null;
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
    let scale = colours.colorscale.map(([at, colour]) => [Number(at), rgba(colour)]);
    if (colours.reversescale) scale = scale.map(([at, c]) => [1 - at, c]).reverse();
    const opacity = opacityOf(index);  // the figure's (a preview hides the trace)
    const [height, width] = [rows.length, rows[0].length];
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d");
    const pixels = context.createImageData(width, height);
    // The image's first column is the leftmost cell, its first row the top one.
    const leftToRight = across[1] > across[0], topDown = down[1] < down[0];
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
        for (let i = 0; i < 3; i++) pixels.data[at + i] = Math.round(ca[i] + (cb[i] - ca[i]) * w);
        pixels.data[at + 3] = Math.round(255 * opacity * (ca[3] + (cb[3] - ca[3]) * w));
      }
    }
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
// A state's pictures, made once per figure sent (a drag comes back over the same states).
const picturesMade = new WeakMap();
function picturesOf(gd, state, live, index) {
  const made = picturesMade.get(live) || new Map();
  picturesMade.set(live, made);
  const opacityOf = trace => (state.hidden && trace in state.hidden ? state.hidden[trace]
                                                                     : gd.data[trace].opacity ?? 1);
  if (!made.has(index)) made.set(index, heatmapPictures(gd, opacityOf, ...live.updates[index]));
  return made.get(index);
}

const ANIMATE_NOW = { mode: "immediate", transition: { duration: 0 },
                      frame: { duration: 0, redraw: false } };
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
// The animation's traces, with one of each other subplot's scatter traces, unchanged: plotly.js
// then keeps that subplot's scatter layer instead of taking it away (put back, the similarity
// offset view's second panel cost a style, layout and paint of its 2,000 points at each step,
// ~10 ms of the main thread). The trace kept is the one with the fewest points, lines before
// markers (its redraw is the cost: a line is one path). Other kinds of layers (a heatmap's one
// image) are put back.
function withKeepers(gd, traces) {
  const subplot = trace => `${trace.xaxis}${trace.yaxis}`;
  const drawn = new Set(traces.map(i => subplot(gd._fullData[i])));
  const cost = trace => (trace.mode || "").includes("markers") ? 10 * trace._length : trace._length;
  const keepers = new Map();
  for (const trace of gd._fullData) {
    if (trace.type !== "scatter" || trace.visible !== true || drawn.has(subplot(trace))) continue;
    const best = keepers.get(subplot(trace));
    if (!best || cost(trace) < cost(best)) keepers.set(subplot(trace), trace);
  }
  return [...keepers.values()].map(trace => trace.index);
}
const ANIMATION_WAIT_MS = 200;
// `warming`: the press on a live slider's thumb draws the state of the value it shows (the
// server's picture again) before the pointer moves: plotly.js's first update or animation of a
// page costs up to twice the next ones (~70 ms against ~35 for the similarity anchor view:
// code compiled, text measured), and that is then the press's, not the drag's first step's.
// Pictured states are cheap from the first: left alone.
function preview(name, text, warming = false) {
  for (const gd of document.querySelectorAll(".pe-plotly-chart")) {
    const state = gd.__pePlotlyReact;
    const meta = state && state.sent && state.sent.layout && state.sent.layout.meta;
    const live = meta && meta.live && meta.live[name];
    if (!live || !window.__pePlotly || !gd._fullLayout) continue;
    const index = nearestState(live, text);
    if (index < 0 || state.previewing === `${name}=${index}`) continue;
    const pictures = !live.animate && picturesOf(gd, state, live, index);
    if (warming && (pictures || state.previewing)) continue;
    state.previewing = `${name}=${index}`;
    const [data, layout, traces] = live.updates[index];
    // What is drawn is no longer the server's figure: its next draw is not skipped as
    // unchanged, and keeps no trace's arrays where the preview changed traces (a preview of
    // the layout alone leaves them as the server drew them: ALiBi's 64 heads are not
    // computed again after their outline moved).
    state.drawn = null;
    if (!pictures && (live.animate || Object.keys(data).length)) state.traces = [];
    // Streamlit's theme draws a chart's title bold (applyStreamlitTheme): so does its preview.
    const title = layout["title.text"];
    const shown = typeof title === "string" && state.data.theme === "streamlit"
      ? { ...layout, "title.text": `<b>${title}</b>` } : layout;
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
      const frame = traces.map((_, j) => Object.fromEntries(
        Object.entries(data).map(([attribute, values]) => [attribute, values[j]])));
      const keepers = withKeepers(gd, traces);
      const keeping = keepLayers(gd);
      drawn = window.__pePlotly.animate(
        gd, { data: [...frame, ...keepers.map(() => ({}))], traces: [...traces, ...keepers] },
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
// Following a drag the server draws (ui/follow.py): a slider whose value no chart previews (its
// pictures need new numbers) is sent while its thumb is dragged, as a chart element's "follow"
// trigger ({name, value}), and the server redraws what the slider redraws at that value without
// keeping it. One value at a time: the next goes once the app has finished the run the last one
// started, and it is the newest then, never a queue of stale ones. The release sends the
// slider's own value, as before; released where it started (Streamlit then sends nothing),
// the start is sent, so that the picture drawn is the value's.
const FOLLOW_WAIT_MS = 1500;  // a run that never says it finished does not stop the drag
const drag = { slider: null, name: null, start: null, text: null, sent: null, closing: false,
               busy: false, timer: null, rail: null };
function previewed(name) {
  return [...document.querySelectorAll(".pe-plotly-chart")].some(gd => {
    const state = gd.__pePlotlyReact;
    const meta = state && state.sent && state.sent.layout && state.sent.layout.meta;
    return Boolean(meta && meta.live && meta.live[name]);
  });
}
function follower(name) {
  return [...document.querySelectorAll(".pe-plotly-chart")].find(gd => {
    const state = gd.__pePlotlyReact;
    return state && state.setTriggerValue && state.data && Array.isArray(state.data.follows)
      && state.data.follows.includes(name);
  });
}
function sendFollow() {
  if (!(drag.slider || drag.closing) || drag.busy || drag.text === null
      || drag.text === drag.sent) return;
  const gd = follower(drag.name);
  if (!gd) return;
  drag.closing = false;
  drag.busy = true;
  drag.sent = drag.text;
  gd.__pePlotlyReact.setTriggerValue("follow", { name: drag.name, value: drag.text });
  drag.timer = setTimeout(followed, FOLLOW_WAIT_MS);
}
function followed() {  // the run the last value started has finished (or never said so)
  clearTimeout(drag.timer);
  drag.busy = false;
  sendFollow();
}
if (!window.__peFollowWatch) {
  window.__peFollowWatch = true;
  document.addEventListener("pointerdown", event => {
    const slider = event.target instanceof Element
      && event.target.closest('[data-testid="stSlider"]');
    const input = slider && slider.querySelector("input[type=range]");
    const start = input ? input.getAttribute("aria-valuetext") : null;
    // The rail (the track's thin bar) of a slider whose text is its number (st.slider; a
    // select slider's text is an option's, its number an index: it previews from its text).
    const numeric = input && start === String(Number(input.value));
    const rail = numeric ? [...slider.querySelectorAll("div")].find(d => {
      const box = d.getBoundingClientRect();
      return box.height > 0 && box.height <= 8 && box.width > 50;
    }) : null;
    Object.assign(drag, { slider: slider || null, name: null, text: null, sent: null,
                          closing: false, start, rail: rail || null });
    const name = input && liveName(input);
    if (name && start !== null) preview(name, start, true);
  }, true);
  // A live slider previews the value under the pointer at the pointer's move, from its track
  // (react-range's rule: the fraction of the rail, rounded to a step), not once React has
  // drawn the slider (10-40 ms a step, ~160 ms the drag's first); the slider's own value,
  // when it comes, previews the same state again only if it differs.
  const moved = event => {
    if (!drag.slider || !drag.rail || !(event.buttons & 1)) return;
    const input = drag.slider.querySelector("input[type=range]");
    const name = input && liveName(input);
    if (!name || !previewed(name)) return;
    const rect = drag.rail.getBoundingClientRect();
    const [low, high, step] = [Number(input.min), Number(input.max), Number(input.step) || 1];
    if (!(rect.width > 0) || !(high > low)) return;
    const fraction = Math.min(1, Math.max(0, (event.clientX - rect.left) / rect.width));
    preview(name, String(low + Math.round((fraction * (high - low)) / step) * step));
  };
  // Chromium dispatches a move with the next frame (rAF-aligned input): the preview would start
  // then, and the frame wait for it. Its raw update comes as the pointer moves: previewed then,
  // the frame paints it as it begins. One raw preview a frame (a fast mouse sends hundreds a
  // second); the frame's own move previews the last position (nothing again if unchanged).
  let rawThisFrame = false;
  document.addEventListener("pointerrawupdate", event => {
    if (!drag.slider || rawThisFrame) return;
    rawThisFrame = true;
    requestAnimationFrame(() => { rawThisFrame = false; });
    moved(event);
  }, true);
  document.addEventListener("pointermove", moved, true);
  const release = () => {
    if (!drag.slider) return;
    drag.closing = drag.sent !== null && drag.text === drag.start;
    drag.slider = null;
    sendFollow();
  };
  document.addEventListener("pointerup", release, true);
  document.addEventListener("pointercancel", release, true);
  // A run's end: Streamlit's app element says "notRunning" (changed only after a run began).
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (drag.busy && app && app.getAttribute("data-test-script-state") === "notRunning") {
      followed();
    }
  }).observe(document.body, { attributes: true, subtree: true,
                              attributeFilter: ["data-test-script-state"] });
}
if (!window.__peLiveWatch) {
  window.__peLiveWatch = new MutationObserver((records) => {
    for (const record of records) {
      const input = record.target;
      if (!(input instanceof HTMLInputElement) || input.type !== "range") continue;
      const name = liveName(input);
      // A value the visitor is moving (the thumb has the focus while it is dragged or stepped
      // with the keys), not one a slider shows as it is made.
      const slider = input.closest('[data-testid="stSlider"]');
      const text = input.getAttribute("aria-valuetext");
      // A value set again as it was (the slider drawn anew by the server's run) previews
      // nothing: between two states sent it would cover the server's exact picture with the
      // nearer state's.
      if (name && slider && slider.contains(document.activeElement) && text !== record.oldValue) {
        preview(name, text);
        if (drag.slider === slider && !previewed(name)) {
          Object.assign(drag, { name, text });
          sendFollow();
        }
      }
    }
  });
  window.__peLiveWatch.observe(document.body, { attributes: true, subtree: true,
                                                attributeOldValue: true,
                                                attributeFilter: ["aria-valuetext"] });
}

// Hover previews: a figure whose `layout.meta.hover` is {control, traces, text} previews, while
// the pointer is over a point of those traces, that control's live state named by `text` with
// the point's {x} and {y} put in ("{y},{x}": a grid's row and column), on every chart carrying
// it. Off the chart the server's figures come back; a click still goes to the server.
const HOVER_REST_MS = 150;
let hoverRest = null;
function hoverText(template, point) {
  return String(template || "{x}").replace(/\{([xy])\}/g, (_, axis) => String(point[axis]));
}
function endPreview(name) {
  for (const gd of document.querySelectorAll(".pe-plotly-chart")) {
    const state = gd.__pePlotlyReact;
    if (state && state.previewing && state.previewing.startsWith(`${name}=`)) {
      state.previewing = null;
      state.draw();  // whole: a preview left state.drawn unset
    }
  }
}
function listenForHover(gd, state) {
  const hoverOf = () => {
    const meta = state.sent && state.sent.layout && state.sent.layout.meta;
    return meta && meta.hover && typeof meta.hover.control === "string" ? meta.hover : null;
  };
  gd.on("plotly_hover", event => {
    const hover = hoverOf();
    const point = event && event.points && event.points[0];
    if (!hover || !point) return;
    if (Array.isArray(hover.traces) && !hover.traces.includes(point.curveNumber)) return;
    clearTimeout(hoverRest);
    preview(hover.control, hoverText(hover.text, point));
  });
  gd.addEventListener("mouseleave", () => {
    const hover = hoverOf();
    if (!hover) return;
    clearTimeout(hoverRest);
    hoverRest = setTimeout(() => endPreview(hover.control), HOVER_REST_MS);
  });
}

// plotly.js from the app's own server (app/static/, see plotly_react.py), loaded once per page.
// Kept apart from window.Plotly, which Streamlit's own plotly chunk also sets (another version)
// when an st.plotly_chart is drawn.
function loadPlotly(src) {
  if (window.__pePlotly) return Promise.resolve(window.__pePlotly);
  if (!window.__pePlotlyLoading) {
    window.__pePlotlyLoading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(src, document.baseURI).href;
      script.async = true;
      script.onload = () => {
        window.__pePlotly = window.Plotly;
        resolve(window.__pePlotly);
      };
      script.onerror = () => {
        window.__pePlotlyLoading = null;
        reject(new Error(`plotly.js did not load from ${script.src}`));
      };
      document.head.appendChild(script);
    });
  }
  return window.__pePlotlyLoading;
}

// ---- colours ----
let colourContext = null;
function rgb(colour) {  // [r, g, b] of any CSS colour
  return rgba(colour).slice(0, 3);
}
function luminance(colour) {  // WCAG relative luminance, as Streamlit's
  if (colour === "transparent") return 0;
  const channel = v => { const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const [r, g, b] = rgb(colour);
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
function withAlpha(colour, alpha) {
  const [r, g, b] = rgb(colour);
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}
function mix(a, b, weight) {
  const x = rgb(a), y = rgb(b);
  const c = x.map((v, i) => Math.round(v * weight + y[i] * (1 - weight)));
  return `rgba(${c[0]}, ${c[1]}, ${c[2]}, 1)`;
}

// The active theme, from the CSS variables on the element.
function readTheme(element) {
  const style = getComputedStyle(element);
  const v = name => style.getPropertyValue(`--st-${name}`).trim();
  // Font lists as Streamlit's theme spells them ("Source Sans", sans-serif): the computed
  // variable has lost the spaces.
  const font = name => v(name).replace(/\s*,\s*/g, ", ");
  const list = name => v(name).split(",").map(s => s.trim()).filter(Boolean);
  const bgColor = v("background-color") || "#ffffff";
  const light = luminance(bgColor) > 0.5;
  const rootSize = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const bodyText = v("text-color") || (light ? "#31333F" : "#fafafa");
  const secondaryBg = v("secondary-background-color") || bgColor;
  return {
    light,
    bgColor,
    bodyText,
    headingColor: v("heading-color") || bodyText,
    borderColor: v("border-color") || withAlpha(bodyText, 0.2),
    bodyFont: font("font") || '"Source Sans", sans-serif',
    headingFont: font("heading-font") || font("font") || '"Source Sans", sans-serif',
    fontWeight: Number(v("base-font-weight")) || 400,
    categorical: list("chart-categorical-colors"),
    sequential: list("chart-sequential-colors"),
    diverging: list("chart-diverging-colors"),
    gray70: light ? GRAY.gray70 : GRAY.gray30,
    // Chart text (ticks, titles, legends): Streamlit's gray70 is 3.6:1 on white, under the
    // 4.5:1 text needs; its gray80, 7:1 (the dark theme's is already light enough).
    mutedText: light ? GRAY.gray80 : GRAY.gray30,
    gray30: light ? GRAY.gray30 : GRAY.gray85,
    gray90: light ? GRAY.gray90 : GRAY.gray10,
    increasing: light ? PALETTE.blueGreen80 : PALETTE.green40,
    decreasing: light ? PALETTE.red80 : PALETTE.red40,
    total: light ? PALETTE.blue80 : PALETTE.blue40,
    fadedText05: withAlpha(bodyText, 0.1),
    bgMix: mix(bgColor, secondaryBg, 0.5),
    px: rem => rem * rootSize,
  };
}

// The placeholders of streamlit's plotly template (streamlit_plotly_theme.py), as Streamlit's
// replaceTemporaryColors: "#000001".."#000010" categorical, "#000011".. sequential, "#000021"..
// diverging, "#000032".. increasing, decreasing, total, greys, background.
const PLOTLY_DEFAULTS = {
  categorical: ["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692",
                "#B6E880", "#FF97FF", "#FECB52"],
  sequential: ["#0d0887", "#46039f", "#7201a8", "#9c179e", "#bd3786", "#d8576b", "#ed7953",
               "#fb9f3a", "#fdca26", "#f0f921"],
  diverging: ["#8e0152", "#c51b7d", "#de77ae", "#f1b6da", "#fde0ef", "#e6f5d0", "#b8e186",
              "#7fbc41", "#4d9221", "#276419"],
  other: ["#3D9970", "#FF4136", "#4499FF", "#B2B5BE", "#2a3f5f", "#2a3f5f", "#EBF0F8", "white",
          "#C8D4E3"],
};
const placeholder = n => `#0000${String(n).padStart(2, "0")}`;
function replaceColours(text, theme, themeName) {
  if (!text.includes("#0000")) return text;
  const streamlit = themeName === "streamlit";
  const other = streamlit
    ? [theme.increasing, theme.decreasing, theme.total, theme.gray30, theme.gray70, theme.gray90,
       theme.bgColor, theme.fadedText05, theme.bgMix]
    : PLOTLY_DEFAULTS.other;
  const map = new Map();
  other.forEach((colour, i) => map.set(placeholder(32 + i), colour));
  const groups = [[1, "categorical"], [11, "sequential"], [21, "diverging"]];
  for (const [first, name] of groups) {
    const colours = streamlit ? theme[name] : PLOTLY_DEFAULTS[name];
    for (let i = 0; i < 10; i++) {
      if (colours[i] !== undefined) map.set(placeholder(first + i), colours[i]);
    }
  }
  // One pass over the text; only the placeholders themselves (a 7-character colour).
  return text.replace(/#0000[0-4][0-9](?![0-9A-Fa-f])/g, m => map.get(m) ?? m);
}

function isObject(v) { return typeof v === "object" && v !== null && !Array.isArray(v); }
function merge(target, source) {  // lodash's merge for plain objects: source wins, deeply
  for (const [k, v] of Object.entries(source)) {
    if (isObject(v)) {
      if (!isObject(target[k])) target[k] = {};
      merge(target[k], v);
    } else if (v !== undefined) {
      target[k] = v;
    }
  }
  return target;
}

// Streamlit's applyStreamlitThemeTemplateLayout, with the theme's values.
function themeLayout(t) {
  const px = t.px;
  const tickfont = { color: t.mutedText, size: px(REM.twoSm) };
  return {
    font: { color: t.mutedText, family: t.bodyFont, size: px(REM.twoSm), weight: t.fontWeight },
    title: { color: t.headingColor, subtitleColor: t.bodyText,
             font: { family: t.headingFont, size: px(REM.md), color: t.headingColor },
             pad: { l: px(REM.twoXS) }, xanchor: "left", x: 0 },
    legend: { title: { font: { size: px(REM.twoSm), color: t.mutedText }, side: "top" },
              valign: "top", bordercolor: "transparent", borderwidth: 0,
              font: { size: px(REM.twoSm), color: t.gray90 } },
    paper_bgcolor: t.bgColor,
    plot_bgcolor: t.bgColor,
    yaxis: { ticklabelposition: "outside", zerolinecolor: t.gray30,
             title: { font: { color: t.mutedText, size: px(REM.sm) }, standoff: px(REM.twoXL) },
             tickcolor: t.gray30, tickfont: { ...tickfont }, gridcolor: t.gray30,
             minor: { gridcolor: t.gray30 }, automargin: true },
    xaxis: { zerolinecolor: t.gray30, gridcolor: t.gray30, showgrid: false,
             tickfont: { ...tickfont }, tickcolor: t.gray30,
             title: { font: { color: t.mutedText, size: px(REM.sm) }, standoff: px(REM.xl) },
             minor: { gridcolor: t.gray30 }, zeroline: false, automargin: true,
             rangeselector: { bgcolor: t.bgColor, bordercolor: t.gray30, borderwidth: 1,
                              x: 0 } },
    margin: { pad: px(REM.spacingSm), r: 0, l: 0 },
    hoverlabel: { bgcolor: t.bgColor, bordercolor: t.borderColor,
                  font: { color: t.mutedText, family: t.bodyFont, size: px(REM.twoSm) } },
    coloraxis: { colorbar: { thickness: 16, xpad: px(REM.twoXL), ticklabelposition: "outside",
                             outlinecolor: "transparent", outlinewidth: 8, len: 0.75,
                             y: 0.5745,
                             title: { font: { color: t.mutedText, size: px(REM.sm) } },
                             tickfont: { ...tickfont } } },
    ternary: { gridcolor: t.gray70, bgcolor: t.bgColor,
               title: { font: { family: t.bodyFont, size: px(REM.sm) } }, color: t.gray70,
               aaxis: { gridcolor: t.gray70, linecolor: t.gray70,
                        tickfont: { family: t.bodyFont, size: px(REM.twoSm) } },
               baxis: { linecolor: t.gray70, gridcolor: t.gray70,
                        tickfont: { family: t.bodyFont, size: px(REM.twoSm) } },
               caxis: { linecolor: t.gray70, gridcolor: t.gray70,
                        tickfont: { family: t.bodyFont, size: px(REM.twoSm) } } },
  };
}

// Streamlit's applyStreamlitTheme.
function applyStreamlitTheme(spec, theme) {
  const layout = isObject(spec.layout) ? spec.layout : (spec.layout = {});
  const template = isObject(layout.template) ? layout.template : (layout.template = {});
  const templateLayout = isObject(template.layout) ? template.layout : (template.layout = {});
  merge(templateLayout, themeLayout(theme));
  // A layout font colour of its own: the template's white icicle / grey sankey text yields.
  if (layout.font && layout.font.color !== undefined && template.data) {
    const injected = { icicle: "white", sankey: theme.gray70 };
    for (const [type, traces] of Object.entries(template.data)) {
      if (injected[type] !== undefined && Array.isArray(traces)) {
        for (const trace of traces) {
          if (trace && trace.textfont && trace.textfont.color === injected[type]) {
            delete trace.textfont.color;
          }
        }
      }
    }
  }
  if ("title" in layout && layout.title != null) {
    const title = typeof layout.title === "string" ? { text: layout.title }
      : (isObject(layout.title) ? layout.title : {});
    const text = typeof title.text === "string" ? title.text : "";
    layout.title = merge({ ...title }, { text: `<b>${text}</b>` });
  }
}

const FULLSCREEN_ICONS = {
  expand: { width: 600, height: 470, name: "fullscreen-expand", path: "M32 32C14.3 32 0 46.3 0 64v96c0 17.7 14.3 32 32 32s32-14.3 32-32V96h64c17.7 0 32-14.3 32-32s-14.3-32-32-32H32zM64 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3-32-32-32H64V352zM320 32c-17.7 0-32 14.3-32 32s14.3 32 32 32h64v64c0 17.7 14.3 32 32 32s32-14.3 32-32V64c0-17.7-14.3-32-32-32H320zM448 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v64H320c-17.7 0-32 14.3-32 32s14.3 32 32 32h96c17.7 0 32-14.3 32-32V352z" },
  collapse: { width: 600, height: 470, name: "fullscreen-collapse", path: "M160 64c0-17.7-14.3-32-32-32s-32 14.3-32 32v64H32c-17.7 0-32 14.3-32 32s14.3 32 32 32h96c17.7 0 32-14.3 32-32V64zM32 320c-17.7 0-32 14.3-32 32s14.3 32 32 32H96v64c0 17.7 14.3 32 32 32s32-14.3 32-32V352c0-17.7-14.3-32-32-32H32zM352 64c0-17.7-14.3-32-32-32s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3-32-32-32H352V64zM320 320c-17.7 0-32 14.3-32 32v96c0 17.7 14.3 32 32 32s32-14.3 32-32V384h64c17.7 0 32-14.3 32-32s-14.3-32-32-32H320z" },
};

// Streamlit's config for a chart without selections.
function chartConfig(given, state) {
  const config = { ...given };
  // The download's options (its file name follows the view: a size, an offset) in one object
  // for the chart's whole life, its contents replaced: plotly.js draws a chart anew when its
  // config differs, and a new file name alone would redraw every point.
  if (isObject(config.toImageButtonOptions)) {
    const options = state.imageOptions || (state.imageOptions = {});
    for (const key of Object.keys(options)) delete options[key];
    config.toImageButtonOptions = Object.assign(options, config.toImageButtonOptions);
  }
  const label = state.fullscreen ? "Close fullscreen" : "Fullscreen";
  config.modeBarButtonsToAdd = [
    { name: label, title: label,
      icon: state.fullscreen ? FULLSCREEN_ICONS.collapse : FULLSCREEN_ICONS.expand,
      click: state.toggleFullscreen },
    ...(config.modeBarButtonsToAdd || []),
  ];
  // A slide on a phone held upright: no modebar, which lay under its title or the player's bar
  // (the slide's charts are looked at there, not zoomed).
  if (state.root.closest(".st-key-pe-slide") && narrowWindow()) config.displayModeBar = false;
  if (config.showSendToCloud === undefined) config.showSendToCloud = false;
  if (config.displaylogo === undefined) config.displaylogo = false;
  const remove = Array.isArray(config.modeBarButtonsToRemove)
    ? [...config.modeBarButtonsToRemove] : [];
  const add = name => { if (!remove.includes(name)) remove.push(name); };
  add("lasso2d");
  add("select2d");
  if (config.showSendToCloud !== true) add("sendChartToCloud");
  config.modeBarButtonsToRemove = remove;
  return config;
}

// ---- the figure fitted to the chart's width ----
// The server does not know the screen; the element does, at every draw (a turned phone redraws).
// - A title wider than the room left of plotly's modebar goes below the modebar's row (plotly
//   shows the modebar on hover, and on a touch screen after a tap) and wraps to the width.
// - Below NARROW_WIDTH (a phone held upright; half of a 1280 px slide is wider) the panels of a
//   figure are stacked in one column, in reading order, each with room above for its title and
//   below for its axis; a square panel (equal scales) as wide as the plot; notes, panel and axis
//   titles wrap to their room; a legend beside or under the plot goes to the figure's bottom in
//   rows, with room made; a panel's colour bar stays beside it, its title beside the bar.
// Not for st.plotly_chart (AppTest, PE_PLOTLY_REACT=0), which draws the figure as sent.
const NARROW_WIDTH = 480;
const MODEBAR_WIDTH = 230;  // plotly's 2-D modebar and the fullscreen button: 8 icons, 224 px
const MODEBAR_ROOM = 40;  // its height (26 px, 30 in presentation mode's larger type) and a gap
const LINE = 1.3;  // plotly's line spacing, in ems
const MANY_PANELS = 5;  // from this many stacked panels, each is kept short (ALiBi's eight heads)
// Trace types without a legend entry unless they ask for one.
const NO_LEGEND = new Set(["heatmap", "histogram2d", "contour", "histogram2dcontour", "image",
                           "surface", "table", "carpet"]);

let measureContext = null;
function textWidth(text, font) {  // the drawn width of one line of plotly's text markup
  measureContext = measureContext || document.createElement("canvas").getContext("2d");
  measureContext.font = `${font.bold ? "bold " : ""}${font.size}px ${font.family}`;
  const plain = String(text).replace(/<[^>]*>/g, "").replace(/&(#\d+|[a-z]+);/gi, "x");
  return measureContext.measureText(plain).width;
}
const lines = text => String(text).split(/<br\s*\/?>/i);
const widest = (text, font) => Math.max(...lines(text).map(line => textWidth(line, font)));

// Words and CJK characters (Chinese has no spaces: a line may break between any two), each with
// the space before it; markup tags stay inside their word; a closing mark glued to the token
// before it and an opening mark to the one after (no line starts with "）" or "，", none ends
// with "（"). As figures.common.wrap_words.
const CLOSING = new Set(")]}）】」』，。、：；！？%");
const OPENING = new Set("([{（【「『");
function tokens(line) {
  const glued = [];
  let carry = null;  // opening marks waiting for the next token
  for (const [space, token] of rawTokens(line)) {
    if (OPENING.has(token)) {
      carry = carry ? [carry[0], carry[1] + space + token] : [space, token];
    } else if (carry) {
      glued.push([carry[0], carry[1] + space + token]);
      carry = null;
    } else if (CLOSING.has(token) && glued.length && !space) {
      glued[glued.length - 1][1] += token;
    } else {
      glued.push([space, token]);
    }
  }
  if (carry) glued.push(carry);
  return glued;
}
function rawTokens(line) {
  const out = [];
  let space = "", word = "", inTag = false;
  for (const char of line) {
    if (inTag || char === "<") {
      word += char;
      inTag = char !== ">";
    } else if (char === " ") {
      if (word) { out.push([space, word]); word = ""; }
      space = " ";
    } else if (char.codePointAt(0) >= 0x2E80) {
      if (word) { out.push([space, word]); word = ""; space = ""; }
      out.push([space, char]);
      space = "";
    } else {
      word += char;
    }
  }
  if (word) out.push([space, word]);
  return out;
}
// `text` in lines no wider than `room` px (a word wider than that keeps a line of its own).
function wrap(text, room, font) {
  return lines(text).map(line => {
    const out = [];
    for (const [space, token] of tokens(line)) {
      const last = out.length - 1;
      if (last >= 0 && textWidth(out[last] + space + token, font) <= room) {
        out[last] += space + token;
      } else {
        out.push(token);
      }
    }
    return out.join("<br>");
  }).join("<br>");
}

function fontsOf(layout) {
  const template = isObject(layout.template) && isObject(layout.template.layout)
    ? layout.template.layout : {};
  const base = { ...(template.font || {}), ...(isObject(layout.font) ? layout.font : {}) };
  const size = base.size || 12;
  const family = base.family || '"Open Sans", verdana, arial, sans-serif';
  // The font of a text whose own settings are `parts` (later ones win).
  return (parts, defaultSize = size) => {
    const f = Object.assign({}, ...parts.filter(isObject));
    return { size: f.size || defaultSize, family: f.family || family,
             bold: Number(f.weight) >= 600 };
  };
}

// The title beside the modebar if it fits there, else under the modebar's row, wrapped to the
// width (on a phone, always). Returns the room it takes at the top, or 0 where it stays.
function fitTitle(layout, width, font, narrow) {
  if (!isObject(layout.title) || !layout.title.text) return narrow ? MODEBAR_ROOM : 0;
  const title = layout.title;
  const template = isObject(layout.template) && isObject(layout.template.layout)
    ? layout.template.layout : {};
  const templateTitle = isObject(template.title) ? template.title : {};
  const f = font([templateTitle.font, title.font], Math.round(font([]).size * 1.4));
  f.bold = f.bold || /<b>/i.test(title.text);
  const left = (title.x ?? templateTitle.x ?? 0.5) * width;
  if (!narrow && left + widest(title.text, f) <= width - MODEBAR_WIDTH - 8) return 0;
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
    layout.margin.t = (layout.margin.t ?? 100) + added;
    layout.height += added;
  }
  return MODEBAR_ROOM + count * f.size * LINE + 12;
}

// Cartesian panels: each x axis with the y axis it is anchored to, and their domains.
function panels(spec) {
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
  // Reading order: rows from the top, left to right in a row.
  return found.sort((a, b) => (Math.round((b.yd[1] - a.yd[1]) * 100)
                                || a.xd[0] - b.xd[0]));
}

const axisOf = ref => (typeof ref === "string" ? ref.split(" ")[0] : "");
const near = (v, [a, b], slack) => v >= a - slack && v <= b + slack;

// The panel an annotation or shape belongs to (by its axes, else by where it sits), or null.
function panelOf(item, cells) {
  const xr = axisOf(item.xref) || "x", yr = axisOf(item.yref) || "y";
  if (xr !== "paper") return cells.find(c => c.x === xr) || null;
  if (yr !== "paper") return cells.find(c => c.y === yr) || null;
  const x = Number(item.x ?? item.x0 ?? 0.5), y = Number(item.y ?? item.y0 ?? 0.5);
  return cells.find(c => near(x, c.xd, 0.02) && near(y, c.yd, 0.02))
    || cells.find(c => near(x, c.xd, 0.02) && y > c.yd[1] && cells.every(
      o => o === c || !near(x, o.xd, 0.02) || o.yd[1] <= c.yd[1]))
    || null;
}

function legendShown(spec) {
  const layout = spec.layout;
  const entries = spec.data.filter(t => t.name && t.visible !== false && (t.showlegend === true
    || (t.showlegend === undefined && !NO_LEGEND.has(t.type || "scatter"))));
  const shown = layout.showlegend === true || (layout.showlegend !== false && entries.length > 1);
  return shown ? entries : [];
}

function fitNarrow(spec, width, font, titleRoom) {
  const layout = spec.layout;
  const cells = panels(spec);
  if (!cells.length) return;
  const margin = isObject(layout.margin) ? layout.margin : (layout.margin = {});
  const top = margin.t ?? 100, bottom = margin.b ?? 80;
  const oldPlot = Math.max((layout.height || DEFAULT_HEIGHT) - top - bottom, 100);
  const base = font([]);
  const colourBar = spec.data.some(t => (NO_LEGEND.has(t.type) && t.showscale !== false
                                          && !t.coloraxis) || (t.marker && t.marker.showscale))
    || Object.keys(layout).some(k => /^coloraxis\d*$/.test(k) && isObject(layout[k])
                                     && layout[k].showscale !== false);
  const left = margin.l > 40 ? margin.l : 75;  // else plotly's automargin: tick labels, title
  // A colour bar with its numbers: ~70 px at 12 px type.
  const right = Math.max(margin.r || 0, 10) + (colourBar ? 6 * base.size : 0);
  const plotWidth = Math.max(width - left - right, 120);
  const stacked = cells.length > 1;
  // Where each annotation and shape belongs, before anything moves.
  const annotations = Array.isArray(layout.annotations) ? layout.annotations : [];
  const shapes = Array.isArray(layout.shapes) ? layout.shapes : [];
  const owners = new Map();
  for (const item of [...annotations, ...shapes]) owners.set(item, panelOf(item, cells));
  // Paper x of items in a panel: the panel is now as wide as the plot.
  const toX = (value, c) => (Number(value) - c.xd[0]) / ((c.xd[1] - c.xd[0]) || 1);
  if (stacked) {
    for (const item of [...annotations, ...shapes]) {
      const c = owners.get(item);
      if (!c || axisOf(item.xref || "x") !== "paper") continue;
      for (const key of ["x", "x0", "x1"]) {
        if (item[key] !== undefined) item[key] = toX(item[key], c);
      }
    }
  }
  // Notes and panel titles wrap to the room their anchor leaves.
  for (const a of annotations) {
    if (!a.text) continue;
    const f = font([a.font]);
    let room = width - 16;
    if (axisOf(a.xref || "x") === "paper") {
      const at = left + Number(a.x ?? 0.5) * plotWidth;
      const anchor = a.xanchor && a.xanchor !== "auto" ? a.xanchor
        : (a.x <= 1 / 3 ? "left" : a.x >= 2 / 3 ? "right" : "center");
      // Not past the plot's right edge: a colour bar's title may stand there.
      room = anchor === "left" ? width - right - at : anchor === "right" ? at - 8
        : 2 * Math.min(at, width - at) - 8;
    }
    if (widest(a.text, f) > room) a.text = wrap(a.text, Math.max(room, 80), f);
  }
  const templateLayout = isObject(layout.template) && isObject(layout.template.layout)
    ? layout.template.layout : {};
  const templateAxis = isObject(templateLayout.xaxis) ? templateLayout.xaxis : {};
  // Axis titles wrap to their axis's length; colour bar titles stand beside the bar (above it,
  // they would meet the notes over the plot).
  for (const c of cells) {
    for (const [axis, length] of [[c.xaxis, plotWidth], [c.yaxis, null]]) {
      if (!isObject(axis.title) || !axis.title.text) continue;
      const f = font([templateAxis.title && templateAxis.title.font, axis.title.font],
                     base.size + 2);
      const room = length ?? Math.max((c.yd[1] - c.yd[0]) * oldPlot, 160);
      if (widest(axis.title.text, f) > room) axis.title.text = wrap(axis.title.text, room, f);
    }
  }
  const bars = spec.data.map(t => t.colorbar || (t.marker && t.marker.colorbar))
    .concat(Object.keys(layout).filter(k => /^coloraxis\d*$/.test(k) && isObject(layout[k]))
      .map(k => layout[k].colorbar));
  for (const bar of bars) {
    if (isObject(bar) && isObject(bar.title) && bar.title.text) bar.title.side = "right";
  }
  // Each panel's room above (its title, notes over it) and below (tick labels, axis title).
  for (const c of cells) {
    c.above = 0;
    c.below = (c.xaxis.showticklabels === false && !stacked ? 4 : base.size * LINE + 10);
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
                     base.size + 2);  // as above
      c.below += lines(title).length * f.size * LINE + 20;
    }
    c.square = Boolean(c.yaxis.scaleanchor || c.xaxis.scaleanchor);
  }
  for (const a of annotations) {
    const c = owners.get(a);
    if (!c || axisOf(a.yref || "y") !== "paper" || !a.text) continue;
    const y = Number(a.y ?? 0.5);
    const overTop = a.yanchor === "bottom" ? y >= c.yd[1] - 0.005 : y > c.yd[1] + 0.005;
    if (!overTop) continue;
    a.__above = true;
    c.above = Math.max(c.above, lines(a.text).length * font([a.font]).size * LINE + 6);
  }
  // Heights: a stacked panel about as tall as it is wide (square ones exactly).
  const cap = cells.length >= MANY_PANELS ? 200 : Math.max(240, 0.8 * width);
  for (const c of cells) {
    const old = (c.yd[1] - c.yd[0]) * oldPlot;
    // A square panel (equal scales) as wide as the plot, which stacking made wider.
    c.height = c.square ? Math.min(stacked ? cap : old, plotWidth + 10)
      : (stacked ? Math.min(old, cap) : old);
  }
  const entries = legendShown(spec);
  let legendRoom = 0;
  const legend = isObject(layout.legend) ? layout.legend : {};
  const outside = legend.orientation === "h" || (legend.x ?? 1.02) > 1 || (legend.y ?? 1) < 0;
  if (entries.length && outside) {
    const f = font([isObject(templateLayout.legend) ? templateLayout.legend.font : null,
                    legend.font]);
    let rows = 1, used = 0;
    for (const t of entries) {
      const w = textWidth(t.name, f) + 46;
      if (used && used + w > width - 10) { rows += 1; used = 0; }
      used += w;
    }
    const hasTitle = isObject(legend.title) && legend.title.text;
    legendRoom = rows * (f.size * LINE + 6) + (hasTitle ? f.size * LINE + 4 : 0) + 10;
    layout.legend = { ...legend, orientation: "h", x: 0, xanchor: "left", y: 0,
                      yanchor: "bottom", yref: "container" };
  }
  // New domains, from the top: room above, panel, room below (the last one's is the margin).
  const last = cells[cells.length - 1];
  const plot = cells.reduce((sum, c) => sum + c.above + c.height + (c === last ? 0 : c.below), 0);
  let cursor = plot;
  for (const c of cells) {
    cursor -= c.above;
    c.nyd = [(cursor - c.height) / plot, cursor / plot];
    cursor -= c.height + c.below;
  }
  const yMap = (value, c) => {
    const v = Number(value);
    if (v >= c.yd[1]) return c.nyd[1];  // over the panel: on its top edge (room made above)
    return c.nyd[0] + (v - c.yd[0]) / ((c.yd[1] - c.yd[0]) || 1) * (c.nyd[1] - c.nyd[0]);
  };
  for (const item of [...annotations, ...shapes]) {
    const c = owners.get(item);
    if (!c || axisOf(item.yref || "y") !== "paper") continue;
    for (const key of ["y", "y0", "y1"]) {
      if (item[key] !== undefined) item[key] = yMap(item[key], c);
    }
    if (item.__above) { item.yanchor = "bottom"; delete item.__above; }
  }
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
  if (stacked) {  // a panel's colour bar beside that panel
    for (const t of spec.data) {
      const c = cells.find(cell => cell.x === (t.xaxis || "x"));
      const bar = t.colorbar || (t.marker && t.marker.colorbar);
      if (!c || !isObject(bar) || t.coloraxis) continue;
      Object.assign(bar, { y: (c.nyd[0] + c.nyd[1]) / 2, yanchor: "middle", yref: "paper",
                           len: c.nyd[1] - c.nyd[0], lenmode: "fraction" });
      if (bar.x !== undefined && bar.x < 1) bar.x = 1.02;
    }
    for (const name of Object.keys(layout).filter(k => /^coloraxis\d*$/.test(k))) {
      if (!isObject(layout[name])) continue;  // a shared colour bar beside the first panel
      const bar = isObject(layout[name].colorbar) ? layout[name].colorbar
        : (layout[name].colorbar = {});
      Object.assign(bar, { y: cells[0].nyd[1], yanchor: "top", yref: "paper",
                           len: Math.max(cells[0].height, 200), lenmode: "pixels" });
    }
  }
  margin.t = titleRoom;  // the panels' titles and notes are in the plot's height now
  margin.b = Math.max(bottom, last.below) + legendRoom;
  layout.height = Math.round(margin.t + plot + margin.b);
}

// ---- tiles that flow to the width ----
// A figure of equal tiles in a grid, described by the server as layout.meta.tiles = {count,
// columns, dx, dy} (tile k centred at x = (k % columns) dx, y = -floor(k / columns) dy in the
// axes' units, with equal scales and set ranges: the wavelength clocks) is laid out again with
// fewer columns where a tile would be narrower than the widest text of its traces (a phone's
// 390 px had eight clocks of 45 px a row, their labels over each other). Every point of every
// trace and animation frame moves with its tile; the ranges and the height follow.
const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array,
                i1: Int8Array, u4: Uint32Array, u2: Uint16Array, u1: Uint8Array };
function numbers(values) {  // a plain array, or plotly's {dtype, bdata} decoded; else null
  if (Array.isArray(values)) return values;
  if (!isObject(values) || typeof values.bdata !== "string" || !TYPED[values.dtype]
      || values.shape) return null;
  const bytes = Uint8Array.from(atob(values.bdata), c => c.charCodeAt(0));
  return Array.from(new TYPED[values.dtype](bytes.buffer));
}
function fitTiles(spec, width, font, height) {
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
  const side = value => (bare ? Math.min(value ?? 80, 10) : value ?? 80);
  const plotWidth = width - side(margin.l) - side(margin.r);
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
  const plotHeight = (height || layout.height || DEFAULT_HEIGHT) - (margin.t ?? 100)
    - (margin.b ?? 80) - below;
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
  [margin.l, margin.r] = [side(margin.l), side(margin.r)];
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
  layout.height = Math.round((margin.t ?? 100) + grown + (margin.b ?? 80) + below);
}

// Fitted in place: `spec` as drawn at `width` px (and `height` px, when that is fixed).
function fitToWidth(spec, width, height) {
  const font = fontsOf(spec.layout);
  const narrow = width < NARROW_WIDTH;
  const titleRoom = fitTitle(spec.layout, width, font, narrow);
  if (narrow) {
    useNarrow(spec);
    fitNarrow(spec, width, font, titleRoom);
    fitPlayer(spec.layout, font);
  }
  fitTiles(spec, width, font, height);
}

// A figure may say what differs on a phone: layout.meta.narrow.data = {trace index: {attribute:
// value}} (word-position's point labels, placed by the server again for a phone's square plot).
function useNarrow(spec) {
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
function fitPlayer(layout, font) {
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

// A figure whose traces are all as drawn before (the same JSON: a change moved only a mark of
// the layout, a shape or an annotation) is given the arrays, template and axis ranges drawn
// before, so that plotly.js redraws the marks alone instead of computing every point again.
// plotly.js compares a trace's arrays and the template by identity (a new array is new data);
// a {dtype, bdata} array it decodes afresh at every draw, keeping the last decoding on the spec
// as `_inputArray`, which is given back as the array itself. It ranges its axes only when it
// computes the traces, writing the range it found into the layout: an axis it ranged keeps that
// range (a figure that sets no range of its own). Not when an axis would need ranging again (a
// reader's zoom undone, a new axis), nor for other than flat x-y traces: then all is new.
const FLAT_TRACES = new Set(["scatter", "bar", "heatmap"]);
const AXIS = /^[xy]axis\d*$/;

function keepDrawn(drawn, keys, state, gd) {
  const before = state.sent;
  if (!before || keys.length !== state.traces.length || keys.some((k, i) => k !== state.traces[i])
      || drawn.data.some(t => !FLAT_TRACES.has(t.type || "scatter"))) return;
  const axes = new Set([...Object.keys(drawn.layout), ...Object.keys(gd.layout || {})]
    .filter(key => AXIS.test(key)));
  const ranges = [];
  for (const key of axes) {
    const axis = isObject(drawn.layout[key]) ? drawn.layout[key] : {};
    if (Array.isArray(axis.range) && !axis.autorange) continue;  // the figure's own range
    const old = (gd.layout || {})[key];
    // plotly.js writes an axis ranged "reversed" back as autorange true with a falling range.
    const reversed = axis.autorange === "reversed" && old && old.autorange === true
      && Array.isArray(old.range) && Number(old.range[0]) > Number(old.range[1]);
    if (!isObject(old) || !old.autorange || !Array.isArray(old.range)
        || (axis.autorange !== undefined && axis.autorange !== old.autorange && !reversed)) {
      return;
    }
    ranges.push([key, old]);
  }
  for (const [key, old] of ranges) {
    drawn.layout[key] = { ...(drawn.layout[key] || {}), range: [...old.range],
                          autorange: old.autorange };
  }
  drawn.data.forEach((trace, i) => keepArrays(trace, before.data[i]));
  if (JSON.stringify(drawn.layout.template) === JSON.stringify(before.layout.template)) {
    drawn.layout.template = before.layout.template;
  }
  keepEqualArrays(drawn.layout, before.layout);
}

const isFlat = value => Array.isArray(value)
  && value.every(v => v === null || typeof v === "number" || typeof v === "string");
// The layout's arrays of numbers or strings equal to those drawn before, given back as drawn
// (plotly.js compares them by identity too: a colour bar's new tick values, though equal, made
// it compute ALiBi's 64 heatmaps again, ~120 ms, for a title's new colour).
function keepEqualArrays(layout, before) {
  for (const key of Object.keys(layout)) {
    const value = layout[key], kept = isObject(before) || Array.isArray(before)
      ? before[key] : undefined;
    if (kept === undefined || key === "template") continue;
    if (isFlat(value)) {
      if (isFlat(kept) && kept.length === value.length && kept.every((v, i) => v === value[i])) {
        layout[key] = kept;
      }
    } else if (isObject(value) || Array.isArray(value)) {
      keepEqualArrays(value, kept);
    }
  }
}

// `trace` with the arrays of `before` (an equal trace): arrays of numbers or strings and numpy's
// arrays; everything else stays `trace`'s own, so a legend click is undone by a rerun that
// changes the figure, as st.plotly_chart's redraw undoes it.
function keepArrays(trace, before) {
  if (!isObject(before)) return;
  for (const key of Object.keys(trace)) {
    const value = trace[key];
    const flat = Array.isArray(value) && (value.length === 0 || !isObject(value[0])
                                          && !Array.isArray(value[0]));
    const kept = before[key];
    if ((flat || isObject(value) && "bdata" in value) && kept !== undefined) {
      trace[key] = kept && kept._inputArray ? kept._inputArray : kept;
    } else if (isObject(value)) {
      keepArrays(value, kept);
    }
  }
}

// The element's state lives on its div (the same div on every call).
function setUp(root, gd) {
  const state = { data: null, fullscreen: false, queue: Promise.resolve(), latest: 0,
                  width: 0, observer: null, keydown: null, resize: null };
  // Whether the chart is in the window (an IntersectionObserver's last word; unknown: yes).
  state.onScreen = true;
  state.visibility = new IntersectionObserver(entries => {
    state.onScreen = entries[entries.length - 1].isIntersecting;
  });
  state.visibility.observe(gd);
  // What a draw would draw: the same figure, theme and size are left as they are drawn (a
  // rerun resends every element; a zoom stays, an animation plays on), as st.plotly_chart
  // leaves its chart.
  const drawingOf = (data, theme) => [
    data.spec, JSON.stringify(data.config || {}), data.theme, JSON.stringify(theme), theme.px(1),
    state.fullscreen, state.fullscreen ? `${window.innerWidth}x${window.innerHeight}`
                                       : `${state.width}x${state.slideHeight}`];
  const unchanged = drawing => state.drawn && drawing.every((v, i) => v === state.drawn[i]);
  // `theme` and `drawing` as read when the draw began, or read again (after a wait).
  const render = (Plotly, data, theme = readTheme(root), drawing = drawingOf(data, theme)) => {
    if (unchanged(drawing)) return undefined;
    const drawn = figure(data, state, theme);
    const traces = drawn.data.map(trace => JSON.stringify(trace));
    keepDrawn(drawn, traces, state, gd);
    // The chart's room while it is redrawn; a slide's chart takes the room its block has.
    gd.style.minHeight = state.fullscreen || state.slideHeight ? "" : `${drawn.layout.height}px`;
    // An animated preview still on its way (plotly.js applies its frame later) would land on
    // top of the server's figure: it ends first (or within ANIMATION_WAIT_MS, interrupted).
    const animating = state.animating
      && Promise.race([state.animating.catch(() => undefined),
                       new Promise(resolve => setTimeout(resolve, ANIMATION_WAIT_MS))]);
    state.animating = null;
    return Promise.resolve(animating).then(() => {
      if (state.keeping) state.keeping();  // the server's figure draws its own layers
      return Plotly.react(gd, drawn);
    }).then(() => {
      state.previewing = null;
      state.hidden = null;
      listenForClicks(gd, state);
      state.drawn = drawing;
      state.traces = traces;
      state.sent = drawn;
    });
  };
  state.draw = () => {
    const ticket = ++state.latest;
    const data = state.data;
    const superseded = () => ticket !== state.latest || !gd.isConnected;  // a newer draw follows
    state.queue = state.queue.then(() => loadPlotly(data.src)).then(Plotly => {
      if (superseded()) return undefined;
      const theme = readTheme(root);
      const drawing = drawingOf(data, theme);
      if (unchanged(drawing)) return undefined;
      // A redraw out of the window waits for the next frame: the charts in view are drawn and
      // painted first (a view's second chart, a page's charts below the fold), then this one,
      // before anyone could scroll to it. A first draw never waits (the page's first paint).
      if (state.drawn && !state.fullscreen && !state.onScreen) {
        return new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)))
          .then(() => (superseded() ? undefined : render(Plotly, data)));
      }
      return render(Plotly, data, theme, drawing);
    }).catch(error => {
      console.error("plotly_react:", error);
    });
    return state.queue;
  };
  state.setFullscreen = on => {
    state.fullscreen = on;
    root.classList.toggle("pe-fullscreen", on);
    document.body.style.overflow = on ? "hidden" : "unset";
    state.draw();
  };
  // One function for the button's whole life: plotly.js redraws from scratch when its config
  // differs (a new click function would be a difference).
  state.toggleFullscreen = () => state.setFullscreen(!state.fullscreen);
  state.keydown = event => {
    if (event.key === "Escape" && state.fullscreen) state.setFullscreen(false);
  };
  document.addEventListener("keydown", state.keydown, false);
  // The container's width, as st.plotly_chart follows it; on a slide of the tour (ui/player.py's
  // slide layout) its height too: the slide's charts share the window's height.
  // A chart the slide hides (a page's aside: no height) keeps its figure's.
  const slideHeight = () => (root.closest(".st-key-pe-slide") && !narrowWindow()
    && root.clientHeight > 0 ? Math.max(Math.round(root.clientHeight), SLIDE_MIN_HEIGHT) : 0);
  state.observer = new ResizeObserver(() => {
    const width = Math.round(root.parentElement ? root.parentElement.clientWidth : 0);
    const height = slideHeight();
    if ((width && width !== state.width) || height !== state.slideHeight) {
      state.width = width || state.width;
      state.slideHeight = height;
      if (state.data && !state.fullscreen) state.draw();
    }
  });
  state.observer.observe(root.parentElement || root);
  state.observer.observe(root);
  state.width = Math.round((root.parentElement || root).clientWidth);
  state.slideHeight = slideHeight();
  state.resize = () => { if (state.fullscreen) state.draw(); };
  window.addEventListener("resize", state.resize);
  state.root = root;
  gd.__pePlotlyReact = state;
  return state;
}

function figure(data, state, theme) {
  const spec = JSON.parse(replaceColours(data.spec, theme, data.theme));
  spec.data = Array.isArray(spec.data) ? spec.data : [];
  spec.layout = isObject(spec.layout) ? spec.layout : {};
  if (data.theme === "streamlit") applyStreamlitTheme(spec, theme);
  // Tick labels drawn as they are (ticklabeloverflow "allow"): plotly.js's default hides one
  // past the chart's edge, measuring every label's box at every draw (a forced layout each: a
  // tenth of a live state's redraw). The figures' margins hold their labels; the browser tests
  // look for text cut at a chart's edge on every page.
  const template = isObject(spec.layout.template) ? spec.layout.template
    : (spec.layout.template = {});
  const templateLayout = isObject(template.layout) ? template.layout : (template.layout = {});
  for (const axis of ["xaxis", "yaxis"]) {
    templateLayout[axis] = { ticklabeloverflow: "allow", ...(templateLayout[axis] || {}) };
  }
  if (!(spec.layout.height >= 10)) spec.layout.height = DEFAULT_HEIGHT;
  const padding = theme.px(0.75);
  const width = state.fullscreen ? Math.max(window.innerWidth - 2 * padding, MIN_WIDTH)
    : Math.max(state.width, MIN_WIDTH);
  const room = Math.max(window.innerHeight - theme.px(2.875) - padding, 10);
  fitToWidth(spec, width, state.fullscreen && width >= NARROW_WIDTH ? room : state.slideHeight);
  spec.layout.width = width;
  if (state.fullscreen) {  // the window's height, or more for a figure stacked on a phone
    spec.layout.height = width < NARROW_WIDTH ? Math.max(room, spec.layout.height) : room;
  } else if (state.slideHeight) {  // a slide's: the height its block has
    spec.layout.height = state.slideHeight;
  } else if (state.root.closest(".st-key-pe-slide")) {
    // A slide on a phone held upright: its title (the slide's own says what it shows) gives its
    // room to the plot.
    if (spec.layout.title && spec.layout.title.text) {
      spec.layout.title = { text: "" };
      spec.layout.margin = Object.assign({}, spec.layout.margin || {});
      spec.layout.margin.t = Math.min(spec.layout.margin.t ?? 60, 40);
    }
  }
  return { data: spec.data, layout: spec.layout, frames: spec.frames || undefined,
           config: chartConfig(data.config || {}, state) };
}

// A chart whose page asks for its clicks (`data.clicks`): the point clicked goes to the server
// as the element's "click" trigger (x, y and trace of plotly's first point), once per click.
function listenForClicks(gd, state) {
  if (state.clicking || !gd.on) return;
  state.clicking = true;
  listenForHover(gd, state);
  gd.on("plotly_click", event => {
    const point = event && event.points && event.points[0];
    if (!point || !state.data || !state.data.clicks || !state.setTriggerValue) return;
    state.setTriggerValue("click", { x: point.x, y: point.y, trace: point.curveNumber });
  });
}

export default function ({ parentElement, data, setTriggerValue }) {
  const root = parentElement.querySelector(".pe-plotly-react");
  const gd = root.querySelector(".pe-plotly-chart");
  const state = gd.__pePlotlyReact || setUp(root, gd);
  state.data = data;
  state.setTriggerValue = setTriggerValue;
  // The chart's room before plotly.js has loaded (a drawn chart keeps the height it was fitted to).
  if (!state.drawn && !state.slideHeight) gd.style.minHeight = `${data.height}px`;
  state.draw();
  // Streamlit calls the last cleanup when the element leaves the page (earlier ones may be
  // called while it stays, for a superseded render): free the chart only once it is gone.
  return () => {
    window.setTimeout(() => {
      if (gd.isConnected) return;
      state.observer.disconnect();
      state.visibility.disconnect();
      document.removeEventListener("keydown", state.keydown, false);
      window.removeEventListener("resize", state.resize);
      if (state.fullscreen) document.body.style.overflow = "unset";
      if (window.__pePlotly) window.__pePlotly.purge(gd);
    }, 0);
  };
}
