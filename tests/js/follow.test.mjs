// follow.js: the server following a slider's drag, one value at a time, the newest, on fake
// timers; and the value under the pointer on a slider's rail.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Follow, valueAt } from "../../ui/chart/follow.js";

// A drag whose sends and timers are recorded; `carried`: whether a chart carries the follows.
function recorded(carried = true) {
  const sent = [];
  const timers = { pending: null, setTimeout(fn) { this.pending = fn; return 1; },
                   clearTimeout() { this.pending = null; } };
  const drag = new Follow(() => (carried ? follow => sent.push(follow.value) : null),
                          { timers });
  return { drag, sent, timers };
}

test("one value at a time: the next goes when the run ends, and it is the newest", () => {
  const { drag, sent } = recorded();
  drag.press("slider", "4", null);
  drag.moved("offset", "5");
  drag.moved("offset", "6");
  drag.moved("offset", "7");
  assert.deepEqual(sent, ["5"]);  // 6 and 7 wait for the run 5 started
  drag.followed();  // that run ended
  assert.deepEqual(sent, ["5", "7"]);  // the newest, never 6
  drag.followed();
  assert.deepEqual(sent, ["5", "7"]);  // nothing new
});

test("a run that never says it ended does not stop the drag: the timer ends it", () => {
  const { drag, sent, timers } = recorded();
  drag.press("slider", "4", null);
  drag.moved("offset", "5");
  drag.moved("offset", "9");
  timers.pending();  // FOLLOW_WAIT_MS later
  assert.deepEqual(sent, ["5", "9"]);
});

test("released where it started, the start is sent; released elsewhere, Streamlit sends", () => {
  const back = recorded();
  back.drag.press("slider", "4", null);
  back.drag.moved("offset", "5");  // sent, its run under way
  back.drag.moved("offset", "4");  // back at the start: waits for that run
  back.drag.release();  // Streamlit sends nothing: the slider's value did not change
  back.drag.followed();
  assert.deepEqual(back.sent, ["5", "4"]);  // so the picture drawn is the start's
  const away = recorded();
  away.drag.press("slider", "4", null);
  away.drag.moved("offset", "5");
  away.drag.moved("offset", "6");
  away.drag.release();
  away.drag.followed();
  assert.deepEqual(away.sent, ["5"]);  // 6 goes as Streamlit sends the released value
});

test("no chart carrying the follows, nothing is sent; a new press starts afresh", () => {
  const none = recorded(false);
  none.drag.press("slider", "1", null);
  none.drag.moved("offset", "2");
  assert.deepEqual(none.sent, []);
  const { drag, sent } = recorded();
  drag.press("slider", "1", null);
  drag.moved("offset", "2");
  drag.followed();
  drag.press("slider", "2", null);
  drag.moved("offset", "2");  // the value sent by the last drag, but new to this one
  assert.deepEqual(sent, ["2", "2"]);
});

test("the value under the pointer: the rail's fraction, rounded to a step", () => {
  assert.equal(valueAt(0, 0, 64, 1), "0");
  assert.equal(valueAt(1, 0, 64, 1), "64");
  assert.equal(valueAt(0.5, 1, 8, 1), "5");  // 4.5 rounds up
  assert.equal(valueAt(0.26, 0, 100, 10), "30");
  assert.equal(valueAt(0.5, -1, 1, 0.5), "0");
});
