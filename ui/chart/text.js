// Text as plotly.js draws it, for fitting a figure to its room: the font a text is drawn in,
// how wide a line of it is, and lines wrapped to a width.

import { FONT } from "./defaults.js";
import { isObject } from "./objects.js";

let measureContext = null;  // made at the first measure, never at import

// The drawn width, in px, of one line of plotly's text markup in `font` ({size, family, bold}).
export function textWidth(text, font) {
  measureContext = measureContext || document.createElement("canvas").getContext("2d");
  measureContext.font = `${font.bold ? "bold " : ""}${font.size}px ${font.family}`;
  const plain = String(text).replace(/<[^>]*>/g, "").replace(/&(#\d+|[a-z]+);/gi, "x");
  return measureContext.measureText(plain).width;
}
export const lines = text => String(text).split(/<br\s*\/?>/i);
export const widest = (text, font) => Math.max(...lines(text).map(line => textWidth(line, font)));

// The fonts of `layout`: a function giving the font of a text whose own settings are `parts`
// (later ones win) over the layout's and its template's font, `defaultSize` when none sets one.
export function fontsOf(layout) {
  const template = isObject(layout.template) && isObject(layout.template.layout)
    ? layout.template.layout : {};
  const base = { ...(template.font || {}), ...(isObject(layout.font) ? layout.font : {}) };
  const size = base.size || FONT.size;
  const family = base.family || FONT.family;
  return (parts, defaultSize = size) => {
    const f = Object.assign({}, ...parts.filter(isObject));
    return { size: f.size || defaultSize, family: f.family || family,
             bold: Number(f.weight) >= 600 };
  };
}

// `text` in lines no wider than `room` px (a word wider than that keeps a line of its own).
export function wrap(text, room, font) {
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

// Words and CJK characters (Chinese has no spaces: a line may break between any two), each with
// the space before it; markup tags stay inside their word; a closing mark glued to the token
// before it and an opening mark to the one after (no line starts with "）" or "，", none ends
// with "（"). As figures.common.wrap_words.
const CLOSING = new Set(")]}）】」』，。、：；！？%");
const OPENING = new Set("([{（【「『");
export function tokens(line) {
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
