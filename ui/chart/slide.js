// A chart on a slide of the tour. ui/player.py lays a slide out: its container keyed SLIDE and
// CSS that gives the charts' blocks the window's height, shared. Here, all that a slide changes
// in a chart:
// - a slide's chart is drawn at its block's height (at least SLIDE_MIN_HEIGHT), read by the
//   element's resize observer (element.js), and holds no room of its own while it is drawn;
// - in a window narrower than a phone's turned sideways (a phone held upright) a slide scrolls:
//   its charts keep their figures' heights, and lose their titles (the slide's own says what
//   they show) and their modebar (which lay under the title or the player's bar; a slide's
//   charts are looked at there, not zoomed).

export const SLIDE_KEY = "pe-slide";  // ui/player.py's SLIDE (tests/test_chart_js.py checks)
const SLIDE_MIN_HEIGHT = 180;
const PHONE_WIDTH = 640;  // a phone turned sideways is wider

export const onSlide = root => Boolean(root.closest(`.st-key-${SLIDE_KEY}`));
export const phoneWindow = () => window.innerWidth < PHONE_WIDTH;

// The height the slide's block gives the chart in `root`, or 0: not on a slide, a phone's
// window, or a chart the slide hides (a page's aside: no height), which keeps its figure's.
export function slideHeight(root) {
  return onSlide(root) && !phoneWindow() && root.clientHeight > 0
    ? Math.max(Math.round(root.clientHeight), SLIDE_MIN_HEIGHT) : 0;
}

// The drawing ({layout, config}) as a slide draws it, in place. `slide`: {on: on a slide,
// phone: phoneWindow(), height: slideHeight()}; `fullscreen`: the chart fills the window.
export function fitSlide(drawing, slide, fullscreen) {
  if (slide.on && slide.phone) drawing.config.displayModeBar = false;
  if (fullscreen) return;
  const layout = drawing.layout;
  if (slide.height) {
    layout.height = slide.height;
  } else if (slide.on && layout.title && layout.title.text) {
    layout.title = { text: "" };
    layout.margin = Object.assign({}, layout.margin || {});
    layout.margin.t = Math.min(layout.margin.t ?? 60, 40);
  }
}
