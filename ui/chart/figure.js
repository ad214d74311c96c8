// What a draw draws: the figure sent, in Streamlit's theme (theme.js), fitted to its room (the
// width: fit.js; a slide: slide.js; the window, fullscreen), with Streamlit's config for a
// chart: width = the container's (at least MIN_WIDTH), height = the figure's (450 px when it
// sets none), the config with Streamlit's defaults and a fullscreen button.

import { DEFAULT_HEIGHT } from "./defaults.js";
import { fitToWidth, NARROW_WIDTH } from "./fit.js";
import { isObject } from "./objects.js";
import { fitSlide, scaleType } from "./slide.js";
import { applyStreamlitTheme, replaceColours } from "./theme.js";

const MIN_WIDTH = 150;

// The figure to draw ({data, layout, frames, config}) of the element's `data` (its settings and
// the figure's JSON, `data.spec`) in `theme` (theme.js), at `place`: {width: the container's,
// fullscreen, window: {width, height}, slide: slide.js's}. `chart`: the element's state, whose
// fullscreen switch and download options the config keeps (chartConfig).
export function figure(data, theme, place, chart) {
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
  // Fullscreen: the window, less the padding of the layer over the page (ui/plotly_react.css).
  const padding = theme.px(0.75);
  const width = place.fullscreen ? Math.max(place.window.width - 2 * padding, MIN_WIDTH)
    : Math.max(place.width, MIN_WIDTH);
  const room = Math.max(place.window.height - theme.px(2.875) - padding, 10);
  const short = place.slide.height && !place.fullscreen && place.slide.scale < 1;
  if (short) scaleType(spec, place.slide.scale);  // a short window's slide: as at 1080 px, smaller
  fitToWidth(spec, width, place.fullscreen && width >= NARROW_WIDTH ? room : place.slide.height,
             !short);  // (no modebar there: slide.js)
  spec.layout.width = width;
  if (place.fullscreen) {  // the window's height, or more for a figure stacked on a phone
    spec.layout.height = width < NARROW_WIDTH ? Math.max(room, spec.layout.height) : room;
  }
  const drawing = { data: spec.data, layout: spec.layout, frames: spec.frames || undefined,
                    config: chartConfig(data.config || {}, chart) };
  fitSlide(drawing, place.slide, place.fullscreen);
  return drawing;
}

const FULLSCREEN_ICONS = {
  expand: { width: 600, height: 470, name: "fullscreen-expand", path: "M32 32C14.3 32 0 46.3 0 64v96c0 17.7 14.3 32 32 32s32-14.3 32-32V96h64c17.7 0 32-14.3 32-32s-14.3-32-32-32H32zM64 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3-32-32-32H64V352zM320 32c-17.7 0-32 14.3-32 32s14.3 32 32 32h64v64c0 17.7 14.3 32 32 32s32-14.3 32-32V64c0-17.7-14.3-32-32-32H320zM448 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v64H320c-17.7 0-32 14.3-32 32s14.3 32 32 32h96c17.7 0 32-14.3 32-32V352z" },
  collapse: { width: 600, height: 470, name: "fullscreen-collapse", path: "M160 64c0-17.7-14.3-32-32-32s-32 14.3-32 32v64H32c-17.7 0-32 14.3-32 32s14.3 32 32 32h96c17.7 0 32-14.3 32-32V64zM32 320c-17.7 0-32 14.3-32 32s14.3 32 32 32H96v64c0 17.7 14.3 32 32 32s32-14.3 32-32V352c0-17.7-14.3-32-32-32H32zM352 64c0-17.7-14.3-32-32-32s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3-32-32-32H352V64zM320 320c-17.7 0-32 14.3-32 32v96c0 17.7 14.3 32 32 32s32-14.3 32-32V384h64c17.7 0 32-14.3 32-32s-14.3-32-32-32H320z" },
};

// Streamlit's config for a chart without selections. `chart`: {fullscreen, toggleFullscreen,
// imageOptions} (the last kept here).
export function chartConfig(given, chart) {
  const config = { ...given };
  // The download's options (its file name follows the view: a size, an offset) in one object
  // for the chart's whole life, its contents replaced: plotly.js draws a chart anew when its
  // config differs, and a new file name alone would redraw every point.
  if (isObject(config.toImageButtonOptions)) {
    const options = chart.imageOptions || (chart.imageOptions = {});
    for (const key of Object.keys(options)) delete options[key];
    config.toImageButtonOptions = Object.assign(options, config.toImageButtonOptions);
  }
  const label = chart.fullscreen ? "Close fullscreen" : "Fullscreen";
  config.modeBarButtonsToAdd = [
    { name: label, title: label,
      icon: chart.fullscreen ? FULLSCREEN_ICONS.collapse : FULLSCREEN_ICONS.expand,
      click: chart.toggleFullscreen },
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
