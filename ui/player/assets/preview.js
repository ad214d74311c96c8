// A slide as the audience sees it, small: the app's own page in a frame (same origin), laid out
// at the audience's window size (its player tells it over the channel: player.js; 1920 x 1080
// until it has) and scaled down to the frame's box, as reveal.js's speaker view shows the
// current and the upcoming slide. The frame is the audience's page but quiet: player.js knows
// it is framed (no keys, no BroadcastChannel), and the page's chrome (sidebar, header, the
// player's bar) is hidden from here, the document being the app's.
const PROJECTOR = [1920, 1080];
const audience = () => window.__peAudienceSize || PROJECTOR;
const FRAME_CSS = `
  [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
  [data-testid="stExpandSidebarButton"], header[data-testid="stHeader"],
  .st-key-pe-tour-bar, [data-testid="stToolbar"] { display: none !important; }
  html, body { overflow: hidden !important; }`;

function quiet(frame) {
  try {
    const doc = frame.contentDocument;
    if (!doc || doc.getElementById("pe-preview-css")) return;
    const style = doc.createElement("style");
    style.id = "pe-preview-css";
    style.textContent = FRAME_CSS;
    doc.head.appendChild(style);
  } catch (error) { /* not the app's document (yet) */ }
}

// The frame moved to `url` as the player moves a window: in place, through its history (its
// session and charts stay, only the slide's run is new), or loaded afresh the first time.
function show(frame, url) {
  const target = new URL(url, window.location.href);
  if (frame.dataset.src === target.href) return;
  frame.dataset.src = target.href;
  const inner = frame.contentWindow;
  try {
    if (frame.dataset.loaded && inner.location.origin === target.origin) {
      inner.history.pushState({}, "", target.pathname + target.search);
      inner.dispatchEvent(new PopStateEvent("popstate", { state: {} }));
      return;
    }
  } catch (error) { /* load it afresh */ }
  frame.src = target.href;
}

// The frame at the audience's size, scaled to its box (whose shape is the audience's).
function fit(box) {
  const frame = box.querySelector("iframe");
  const [width, height] = audience();
  box.style.aspectRatio = `${width} / ${height}`;
  frame.style.width = `${width}px`;
  frame.style.height = `${height}px`;
  frame.style.transform = `scale(${box.clientWidth / width})`;
}

export default function ({ parentElement, data }) {
  let box = parentElement.querySelector(".pe-preview");
  if (!box) {
    box = document.createElement("div");
    box.className = "pe-preview";
    const frame = document.createElement("iframe");
    frame.setAttribute("tabindex", "-1");
    frame.setAttribute("aria-hidden", "true");
    frame.setAttribute("scrolling", "no");
    frame.style.cssText = "border:0;transform-origin:0 0;pointer-events:none;" +
      "position:absolute;left:0;top:0;";
    frame.addEventListener("load", () => { frame.dataset.loaded = "1"; quiet(frame); });
    box.appendChild(frame);
    parentElement.appendChild(box);
    const observer = new ResizeObserver(() => fit(box));
    const refit = () => {
      if (box.isConnected) { fit(box); return; }
      window.removeEventListener("pe-audience-size", refit);  // an element gone
      observer.disconnect();
    };
    observer.observe(box);
    window.addEventListener("pe-audience-size", refit);
  }
  fit(box);
  box.setAttribute("aria-label", data.label);
  box.title = data.label;
  show(box.querySelector("iframe"), data.url);
  return () => {};
}
