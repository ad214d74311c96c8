// A slider's drag. Its value goes to the server on release, as Streamlit sends it; meanwhile:
// - a live slider's charts preview the value under the pointer (live.js), at the pointer's
//   move, from the slider's track (react-range's rule: the fraction of the rail, rounded to a
//   step), not once React has drawn the slider (10-40 ms a step, ~160 ms the drag's first); the
//   slider's own value, when it comes, previews the same state again only if it differs;
// - a slider whose value no chart previews (its pictures need new numbers) is followed by the
//   server (ui/follow.py): its value is sent while its thumb is dragged, as a chart element's
//   "follow" trigger ({name, value}), and the server redraws what the slider redraws at that
//   value without keeping it. One value at a time: the next goes once the app has finished the
//   run the last one started, and it is the newest then, never a queue of stale ones. The
//   release sends the slider's own value, as before; released where it started (Streamlit then
//   sends nothing), the start is sent, so that the picture drawn is the value's.
// The page's listeners are installed by watchSliders, once per page (element.js).

import { liveName, preview, previewed } from "./live.js";

const FOLLOW_WAIT_MS = 1500;  // a run that never says it finished does not stop the drag

// The follow of one drag at a time (a pointer presses one thumb). `senderFor(name)`: the
// function that sends {name, value} to the server for control `name`, or null when no chart
// carries its follows; `timers`: setTimeout and clearTimeout.
export class Follow {
  constructor(senderFor, { wait = FOLLOW_WAIT_MS, timers = globalThis } = {}) {
    Object.assign(this, { senderFor, wait, timers, slider: null, name: null, start: null,
                          text: null, sent: null, closing: false, busy: false, timer: null,
                          rail: null });
  }

  // A press on `slider` (null: elsewhere), showing `start`; `rail`: its track's bar, if numeric.
  press(slider, start, rail) {
    Object.assign(this, { slider, name: null, text: null, sent: null, closing: false, start,
                          rail });
  }

  // The dragged slider, control `name`, now shows `text`.
  moved(name, text) {
    Object.assign(this, { name, text });
    this.send();
  }

  release() {
    if (!this.slider) return;
    this.closing = this.sent !== null && this.text === this.start;
    this.slider = null;
    this.send();
  }

  // The run the last value started has finished (or never said so).
  followed() {
    this.timers.clearTimeout(this.timer);
    this.busy = false;
    this.send();
  }

  send() {
    if (!(this.slider || this.closing) || this.busy || this.text === null
        || this.text === this.sent) return;
    const sender = this.senderFor(this.name);
    if (!sender) return;
    this.closing = false;
    this.busy = true;
    this.sent = this.text;
    sender({ name: this.name, value: this.text });
    this.timer = this.timers.setTimeout(() => this.followed(), this.wait);
  }
}

// The value a slider of [low, high] in steps of `step` takes at `fraction` of its rail.
export function valueAt(fraction, low, high, step) {
  return String(low + Math.round((fraction * (high - low)) / step) * step);
}

// Installs the page's listeners for sliders' drags (a window flag: once per page, whichever
// version of this code came first).
export function watchSliders() {
  if (window.__peFollowWatch) return;
  window.__peFollowWatch = true;
  const drag = new Follow(senderFor);
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
    drag.press(slider || null, start, rail || null);
    const name = input && liveName(input);
    if (name && start !== null) preview(name, start, true);
  }, true);
  const moved = event => {
    if (!drag.slider || !drag.rail || !(event.buttons & 1)) return;
    const input = drag.slider.querySelector("input[type=range]");
    const name = input && liveName(input);
    if (!name || !previewed(name)) return;
    const rect = drag.rail.getBoundingClientRect();
    const [low, high, step] = [Number(input.min), Number(input.max), Number(input.step) || 1];
    if (!(rect.width > 0) || !(high > low)) return;
    const fraction = Math.min(1, Math.max(0, (event.clientX - rect.left) / rect.width));
    preview(name, valueAt(fraction, low, high, step));
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
  document.addEventListener("pointerup", () => drag.release(), true);
  document.addEventListener("pointercancel", () => drag.release(), true);
  // A run's end: Streamlit's app element says "notRunning" (changed only after a run began).
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (drag.busy && app && app.getAttribute("data-test-script-state") === "notRunning") {
      drag.followed();
    }
  }).observe(document.body, { attributes: true, subtree: true,
                              attributeFilter: ["data-test-script-state"] });
  // A slider's value changed: previewed, or followed while dragged.
  new MutationObserver((records) => {
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
        if (drag.slider === slider && !previewed(name)) drag.moved(name, text);
      }
    }
  }).observe(document.body, { attributes: true, subtree: true, attributeOldValue: true,
                              attributeFilter: ["aria-valuetext"] });
}

// The sender of the chart element that carries control `name`'s follows (data.follows).
function senderFor(name) {
  const gd = [...document.querySelectorAll(".pe-plotly-chart")].find(chart => {
    const state = chart.__pePlotlyReact;
    return state && state.setTriggerValue && state.data && Array.isArray(state.data.follows)
      && state.data.follows.includes(name);
  });
  return gd ? follow => gd.__pePlotlyReact.setTriggerValue("follow", follow) : null;
}
