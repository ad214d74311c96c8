const STEPS = { ArrowRight: "next", PageDown: "next", " ": "next",
                ArrowLeft: "prev", PageUp: "prev", Home: "first", End: "last" };
// Controls that read these keys themselves keep them; a button keeps Space (it presses it).
const OWNERS = "input, textarea, select, [contenteditable=''], [contenteditable='true'], " +
               "[role='slider'], [role='radio'], [role='radiogroup'], [role='combobox'], " +
               "[role='listbox'], [role='option'], [role='tab'], [role='menu'], " +
               "[role='menuitem'], [role='dialog'], .js-plotly-plot";
// A slide framed in the presenter's window (assets/preview.js) is a picture: it neither takes
// keys nor speaks on the channel (its moves would move the windows it shows).
const FRAMED = window.self !== window.top;
const channel = FRAMED ? null : window.__peTourChannel || ("BroadcastChannel" in window
  ? (window.__peTourChannel = new BroadcastChannel("pe-tour")) : null);

// A slide's address with the app's settings the window has now (its language, presentation
// mode, the presenter's window): a player drawn before a rewrite of the address may be drawn
// again, its data stale, after it.
function address(url, keep) {
  const here = new URLSearchParams(window.location.search);
  const to = new URLSearchParams(url.replace(/^[?]/, ""));
  for (const name of keep) if (here.has(name)) to.set(name, here.get(name));
  return "?" + to.toString();
}

function go(url, replace) {
  if (!url || (replace && url === window.location.search)) return;
  if (replace) window.history.replaceState({}, "", url);
  else window.history.pushState({}, "", url);
  window.dispatchEvent(new PopStateEvent("popstate", { state: {} }));
}

// To slide `number` in this window; with `tell`, in the other window too.
function moveTo(number, tell) {
  const data = current();
  if (!data || !number || number === data.number || !data.slides[number - 1]) return;
  go(address(data.slides[number - 1], data.keep), false);
  if (tell && channel) channel.postMessage({ kind: "go", number: number, from: data.mode });
}

function blank() {
  const layer = document.getElementById("pe-blank");
  if (layer) { layer.remove(); return; }
  const cover = document.createElement("div");
  cover.id = "pe-blank";
  cover.style.cssText = "position:fixed;inset:0;background:#000;z-index:2147483647;";
  cover.onclick = () => cover.remove();
  document.body.appendChild(cover);
}

// The player last drawn, while a player is on the page (not after a move to another page).
const current = () => (document.querySelector(".pe-tour") ? window.__peTour : null);

function onKey(event) {
  const data = current();
  if (!data || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target instanceof Element ? event.target : null;
  if (target && target.closest(OWNERS)) return;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (key === "b" || key === ".") {
    event.preventDefault();
    if (data.mode === "audience") blank();
    else if (channel) channel.postMessage({ kind: "blank", from: data.mode });
    return;
  }
  if (key === "f" && data.mode === "audience") {
    event.preventDefault();
    if (document.fullscreenElement) document.exitFullscreen();
    else if (document.documentElement.requestFullscreen) {
      document.documentElement.requestFullscreen().catch(() => {});
    }
    return;
  }
  let step = STEPS[event.key];
  if (!step) return;
  if (event.key === " " && target && target.closest("button, a, summary")) return;
  if (event.key === " " && event.shiftKey) step = "prev";
  event.preventDefault();
  moveTo(data.targets[step], true);
}

// The audience's window tells its size ("size"; its "at" carries it too), so the presenter's
// previews lay a slide out as the audience's screen does (assets/preview.js reads
// window.__peAudienceSize and its "pe-audience-size" event). A size only: never a move.
const ownSize = () => [window.innerWidth, window.innerHeight];

function audienceSize(size) {
  if (!Array.isArray(size) || size.length !== 2 || !size.every(n => n > 0)) return;
  window.__peAudienceSize = size;
  window.dispatchEvent(new CustomEvent("pe-audience-size", { detail: size }));
}

if (channel && !channel.__peListening) {
  channel.__peListening = true;
  channel.addEventListener("message", event => {
    const data = current(), message = event.data || {};
    if (!data || message.from === data.mode) return;
    if (data.mode === "presenter" && message.from === "audience") audienceSize(message.size);
    if (message.kind === "go") moveTo(message.number, false);
    else if (message.kind === "at" && data.mode === "presenter") moveTo(message.number, false);
    else if (message.kind === "at" && data.mode === "audience") {  // a presenter has come
      channel.postMessage({ kind: "size", size: ownSize(), from: data.mode });
    } else if (message.kind === "blank" && data.mode === "audience") blank();
  });
  let resized = 0;
  window.addEventListener("resize", () => {
    window.clearTimeout(resized);
    resized = window.setTimeout(() => {
      const data = current();
      if (data && data.mode === "audience") {
        channel.postMessage({ kind: "size", size: ownSize(), from: data.mode });
      }
    }, 300);
  });
}

export default function ({ parentElement, data }) {
  const root = parentElement.querySelector(".pe-tour");
  window.__peTour = data;
  root.setAttribute("aria-label", data.label);
  for (const button of root.querySelectorAll("button")) {
    const step = button.dataset.step;
    button.title = data.labels[step];
    button.setAttribute("aria-label", data.labels[step]);
    button.disabled = !data.targets[step];
    button.onclick = () => moveTo(data.targets[step], true);
  }
  root.querySelector(".pe-tour-count").textContent = data.counter;
  // One listener for the page's life, reading the player last drawn: a redrawn player's
  // clean-up can run after its successor is drawn, and would take the keys with it.
  if (!window.__peTourKeys && !FRAMED) {
    window.__peTourKeys = true;
    document.addEventListener("keydown", onKey);
  }
  if (data.replace) go(data.replace, true);
  else if (channel) {
    channel.postMessage({ kind: "at", number: data.number, from: data.mode, size: ownSize() });
  }
  return () => {};
}
