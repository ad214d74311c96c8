// The chart element of ui/plotly_react.py: one div per element for the element's whole life,
// drawn with Plotly.react (Streamlit calls this module's function again with the new data on
// every change). ui/plotly_react_loader.js imports this file; ui/plotly_react.py serves the
// folder from the app's static/ under one hash of all its modules.
//
// The modules, by job (each read top to bottom; none installs anything when it is imported:
// the page's listeners are installed here, once per page):
//   element.js   the element's life: set up on its div, draws queued, fullscreen, resizes,
//                clicks, freed when it leaves the page; plotly.js loaded once per page
//   figure.js    what a draw draws: the figure themed, fitted, sized; Streamlit's chart config
//   draw.js      diffing draws: arrays, template and ranges drawn before given back
//   theme.js     Streamlit's chart theme from its CSS variables, as st.plotly_chart applies it
//   colour.js    CSS colours as numbers (luminance, mixing)
//   fit.js       the figure fitted to the width: the title, a phone's layout (entry of:)
//   narrow.js      a phone held upright: panels stacked, notes and titles wrapped, legend below
//   tiles.js       tiles in a grid flowing to the width (the wavelength clocks)
//   text.js        fonts, text widths, lines wrapped (Chinese too)
//   slide.js     a chart on a slide of the tour: its block's height, a phone's slide
//   live.js      live states: a slider's or a hover's state drawn at once (entry of:)
//   pictures.js    a state's new heatmap cells drawn as pictures over the heatmaps
//   follow.js    a slider's drag: previews at the pointer, the server following the others
//   hover.js     hover previews
//   popover.js   a menu opened near the window's bottom scrolled into view
//   typed.js     plotly.py's typed arrays ({dtype, bdata, shape}) decoded
//   objects.js   plain objects: isObject, merge
//   defaults.js  plotly.js's defaults (height, margins, line spacing, font)
// Pure parts are unit-tested under Node (tests/js/).

import { keepDrawn } from "./draw.js";
import { figure } from "./figure.js";
import { watchSliders } from "./follow.js";
import { listenForHover } from "./hover.js";
import { ANIMATION_WAIT_MS } from "./live.js";
import { watchPopovers } from "./popover.js";
import { onSlide, phoneWindow, slideHeight, slideScale } from "./slide.js";
import { readTheme } from "./theme.js";
// The modules the ones above import, asked for with this file: the page fetches the whole
// graph at once instead of one level of imports after another.
import "./colour.js";
import "./defaults.js";
import "./fit.js";
import "./narrow.js";
import "./objects.js";
import "./pictures.js";
import "./text.js";
import "./tiles.js";
import "./typed.js";

export default function ({ parentElement, data, setTriggerValue }) {
  watchPopovers();
  watchSliders();
  const root = parentElement.querySelector(".pe-plotly-react");
  const gd = root.querySelector(".pe-plotly-chart");
  const state = gd.__pePlotlyReact || setUp(root, gd);
  state.data = data;
  state.setTriggerValue = setTriggerValue;
  // The chart's room before plotly.js has loaded (a drawn chart keeps the height it was fitted to).
  if (!state.drawn) holdRoom(gd, state, data.height);
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

// The chart's room while it is drawn: the figure's height, so that the page keeps its place; a
// slide's chart takes the room its block has, a fullscreen one the window.
function holdRoom(gd, state, height) {
  gd.style.minHeight = state.fullscreen || state.slideHeight ? "" : `${height}px`;
}

// The element's state, on its div (the same div on every call).
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
  const placeOf = () => ({
    width: state.width, fullscreen: state.fullscreen,
    window: { width: window.innerWidth, height: window.innerHeight },
    slide: { on: onSlide(root), phone: phoneWindow(), height: state.slideHeight,
             scale: slideScale() },
  });
  // `theme` and `drawing` as read when the draw began, or read again (after a wait).
  const render = (Plotly, data, theme = readTheme(root), drawing = drawingOf(data, theme)) => {
    if (unchanged(drawing)) return undefined;
    const drawn = figure(data, theme, placeOf(), state);
    const traces = drawn.data.map(trace => JSON.stringify(trace));
    keepDrawn(drawn, traces, state, gd.layout || {});
    holdRoom(gd, state, drawn.layout.height);
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
  // The container's width, as st.plotly_chart follows it; on a slide its height too (slide.js).
  state.observer = new ResizeObserver(() => {
    const width = Math.round(root.parentElement ? root.parentElement.clientWidth : 0);
    const height = slideHeight(root);
    if ((width && width !== state.width) || height !== state.slideHeight) {
      state.width = width || state.width;
      state.slideHeight = height;
      if (state.data && !state.fullscreen) state.draw();
    }
  });
  state.observer.observe(root.parentElement || root);
  state.observer.observe(root);
  state.width = Math.round((root.parentElement || root).clientWidth);
  state.slideHeight = slideHeight(root);
  state.resize = () => { if (state.fullscreen) state.draw(); };
  window.addEventListener("resize", state.resize);
  state.root = root;
  gd.__pePlotlyReact = state;
  return state;
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

// A chart whose page asks for its clicks (`data.clicks`): the point clicked goes to the server
// as the element's "click" trigger (x, y and trace of plotly's first point), once per click.
// Its hover previews listen from then too (hover.js).
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
