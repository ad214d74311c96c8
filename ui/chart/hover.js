// Hover previews: a figure whose `layout.meta.hover` is {control, traces, text} previews, while
// the pointer is over a point of those traces, that control's live state (live.js) named by
// `text` with the point's {x} and {y} put in ("{y},{x}": a grid's row and column), on every
// chart carrying it. Off the chart the server's figures come back; a click still goes to the
// server.

import { preview } from "./live.js";

const HOVER_REST_MS = 150;
let hoverRest = null;  // one pointer: the last chart left

// The state's name for the point hovered: `template` with {x} and {y} put in.
export function hoverText(template, point) {
  return String(template || "{x}").replace(/\{([xy])\}/g, (_, axis) => String(point[axis]));
}

// Listens to chart `gd`'s hover (its element's `state`), once its plotly.js chart is made.
export function listenForHover(gd, state) {
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

// The charts previewing control `name` draw the server's figure again.
function endPreview(name) {
  for (const gd of document.querySelectorAll(".pe-plotly-chart")) {
    const state = gd.__pePlotlyReact;
    if (state && state.previewing && state.previewing.startsWith(`${name}=`)) {
      state.previewing = null;
      state.draw();  // whole: a preview left state.drawn unset
    }
  }
}
