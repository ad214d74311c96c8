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

const GRAY = { gray10: "#fafafa", gray30: "#e6eaf1", gray70: "#808495", gray85: "#31333F",
               gray90: "#262730" };
const PALETTE = { red40: "#ffabab", red80: "#ff2b2b", green40: "#7defa1",
                  blueGreen80: "#29b09d", blue40: "#83c9ff", blue80: "#0068c9" };
// Streamlit's theme sizes, in rem (fontSizes.twoSm/sm/md, spacing.twoXS/sm/xl/twoXL).
const REM = { twoSm: 0.75, sm: 0.875, md: 1, twoXS: 0.25, spacingSm: 0.5, xl: 1.25,
              twoXL: 1.5 };
const MIN_WIDTH = 150;
const DEFAULT_HEIGHT = 450;
const FULLSCREEN_Z = 1000050;

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
function rgb(colour) {  // [r, g, b] of any CSS colour (canvas normalises it)
  colourContext = colourContext || document.createElement("canvas").getContext("2d");
  colourContext.fillStyle = "#000000";
  colourContext.fillStyle = colour;
  const text = colourContext.fillStyle;
  if (text.startsWith("#")) {
    return [1, 3, 5].map(i => parseInt(text.slice(i, i + 2), 16));
  }
  return (text.match(/[\d.]+/g) || [0, 0, 0]).slice(0, 3).map(Number);
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
  const tickfont = { color: t.gray70, size: px(REM.twoSm) };
  return {
    font: { color: t.gray70, family: t.bodyFont, size: px(REM.twoSm), weight: t.fontWeight },
    title: { color: t.headingColor, subtitleColor: t.bodyText,
             font: { family: t.headingFont, size: px(REM.md), color: t.headingColor },
             pad: { l: px(REM.twoXS) }, xanchor: "left", x: 0 },
    legend: { title: { font: { size: px(REM.twoSm), color: t.gray70 }, side: "top" },
              valign: "top", bordercolor: "transparent", borderwidth: 0,
              font: { size: px(REM.twoSm), color: t.gray90 } },
    paper_bgcolor: t.bgColor,
    plot_bgcolor: t.bgColor,
    yaxis: { ticklabelposition: "outside", zerolinecolor: t.gray30,
             title: { font: { color: t.gray70, size: px(REM.sm) }, standoff: px(REM.twoXL) },
             tickcolor: t.gray30, tickfont: { ...tickfont }, gridcolor: t.gray30,
             minor: { gridcolor: t.gray30 }, automargin: true },
    xaxis: { zerolinecolor: t.gray30, gridcolor: t.gray30, showgrid: false,
             tickfont: { ...tickfont }, tickcolor: t.gray30,
             title: { font: { color: t.gray70, size: px(REM.sm) }, standoff: px(REM.xl) },
             minor: { gridcolor: t.gray30 }, zeroline: false, automargin: true,
             rangeselector: { bgcolor: t.bgColor, bordercolor: t.gray30, borderwidth: 1,
                              x: 0 } },
    margin: { pad: px(REM.spacingSm), r: 0, l: 0 },
    hoverlabel: { bgcolor: t.bgColor, bordercolor: t.borderColor,
                  font: { color: t.gray70, family: t.bodyFont, size: px(REM.twoSm) } },
    coloraxis: { colorbar: { thickness: 16, xpad: px(REM.twoXL), ticklabelposition: "outside",
                             outlinecolor: "transparent", outlinewidth: 8, len: 0.75,
                             y: 0.5745,
                             title: { font: { color: t.gray70, size: px(REM.sm) } },
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
  const label = state.fullscreen ? "Close fullscreen" : "Fullscreen";
  config.modeBarButtonsToAdd = [
    { name: label, title: label,
      icon: state.fullscreen ? FULLSCREEN_ICONS.collapse : FULLSCREEN_ICONS.expand,
      click: state.toggleFullscreen },
    ...(config.modeBarButtonsToAdd || []),
  ];
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

// The element's state lives on its div (the same div on every call).
function setUp(root, gd) {
  const state = { data: null, fullscreen: false, queue: Promise.resolve(), latest: 0,
                  width: 0, observer: null, keydown: null, resize: null };
  state.draw = () => {
    const ticket = ++state.latest;
    const data = state.data;
    state.queue = state.queue.then(() => loadPlotly(data.src)).then(Plotly => {
      if (ticket !== state.latest || !gd.isConnected) return undefined;  // a newer draw follows
      // A rerun resends every element: the same figure, theme and size are left as they are
      // drawn (a zoom stays, an animation plays on), as st.plotly_chart leaves its chart.
      const theme = readTheme(root);
      const drawing = [data.spec, JSON.stringify(data.config || {}), data.theme,
                       JSON.stringify(theme), theme.px(1), state.fullscreen,
                       state.fullscreen ? `${window.innerWidth}x${window.innerHeight}`
                                        : state.width];
      if (state.drawn && drawing.every((v, i) => v === state.drawn[i])) return undefined;
      return Plotly.react(gd, figure(data, state, theme)).then(() => {
        state.drawn = drawing;
      });
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
  // The container's width, as st.plotly_chart follows it.
  state.observer = new ResizeObserver(() => {
    const width = Math.round(root.parentElement ? root.parentElement.clientWidth : 0);
    if (width && width !== state.width) {
      state.width = width;
      if (state.data && !state.fullscreen) state.draw();
    }
  });
  state.observer.observe(root.parentElement || root);
  state.width = Math.round((root.parentElement || root).clientWidth);
  state.resize = () => { if (state.fullscreen) state.draw(); };
  window.addEventListener("resize", state.resize);
  gd.__pePlotlyReact = state;
  return state;
}

function figure(data, state, theme) {
  const spec = JSON.parse(replaceColours(data.spec, theme, data.theme));
  spec.data = Array.isArray(spec.data) ? spec.data : [];
  spec.layout = isObject(spec.layout) ? spec.layout : {};
  if (data.theme === "streamlit") applyStreamlitTheme(spec, theme);
  const height = spec.layout.height >= 10 ? spec.layout.height : DEFAULT_HEIGHT;
  if (state.fullscreen) {
    const padding = theme.px(0.75);
    spec.layout.width = Math.max(window.innerWidth - 2 * padding, MIN_WIDTH);
    spec.layout.height = Math.max(window.innerHeight - theme.px(2.875) - padding, 10);
  } else {
    spec.layout.width = Math.max(state.width, MIN_WIDTH);
    spec.layout.height = height;
  }
  return { data: spec.data, layout: spec.layout, frames: spec.frames || undefined,
           config: chartConfig(data.config || {}, state) };
}

export default function ({ parentElement, data }) {
  const root = parentElement.querySelector(".pe-plotly-react");
  const gd = root.querySelector(".pe-plotly-chart");
  const state = gd.__pePlotlyReact || setUp(root, gd);
  state.data = data;
  gd.style.minHeight = `${data.height}px`;  // the chart's room before plotly.js has loaded
  state.draw();
  // Streamlit calls the last cleanup when the element leaves the page (earlier ones may be
  // called while it stays, for a superseded render): free the chart only once it is gone.
  return () => {
    window.setTimeout(() => {
      if (gd.isConnected) return;
      state.observer.disconnect();
      document.removeEventListener("keydown", state.keydown, false);
      window.removeEventListener("resize", state.resize);
      if (state.fullscreen) document.body.style.overflow = "unset";
      if (window.__pePlotly) window.__pePlotly.purge(gd);
    }, 0);
  };
}
