// A stand-in for the browser's canvas, for the modules that measure text (text.js) or read
// colours (colour.js) through one: installed as `globalThis.document` by the tests that need
// it. Text is measured as a fixed-width font (half its size a character, a CJK character a
// whole size; bold a tenth wider); colours are normalised as a canvas does ("#rrggbb" when
// opaque, "rgba(r, g, b, a)" when not; an invalid one leaves the last valid).

const NAMED = { black: [0, 0, 0, 1], white: [255, 255, 255, 1], red: [255, 0, 0, 1],
                transparent: [0, 0, 0, 0] };

function parse(colour) {
  const text = String(colour).trim().toLowerCase();
  if (NAMED[text]) return NAMED[text];
  let m = /^#([0-9a-f]{3})$/.exec(text);
  if (m) return [...m[1]].map(c => parseInt(c + c, 16)).concat(1);
  m = /^#([0-9a-f]{6})$/.exec(text);
  if (m) return [0, 2, 4].map(i => parseInt(m[1].slice(i, i + 2), 16)).concat(1);
  m = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)$/.exec(text);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
  return null;
}

const hex = v => Math.round(v).toString(16).padStart(2, "0");

class Context2D {
  constructor() { this.font = "10px sans-serif"; this.colour = "#000000"; }

  set fillStyle(colour) {
    const c = parse(colour);
    if (!c) return;
    this.colour = c[3] === 1 ? `#${hex(c[0])}${hex(c[1])}${hex(c[2])}`
      : `rgba(${c[0]}, ${c[1]}, ${c[2]}, ${c[3]})`;
  }

  get fillStyle() { return this.colour; }

  measureText(text) {
    const size = Number(/(\d+(?:\.\d+)?)px/.exec(this.font)[1]);
    const bold = this.font.startsWith("bold ") ? 1.1 : 1;
    const units = [...text].reduce((sum, c) => sum + (c.codePointAt(0) >= 0x2E80 ? 2 : 1), 0);
    return { width: units * size * 0.5 * bold };
  }
}

export const fakeDocument = {
  createElement(tag) {
    if (tag !== "canvas") throw new Error(`fake document: no <${tag}>`);
    return { getContext: () => new Context2D() };
  },
};

export function installFakeCanvas() {
  globalThis.document = fakeDocument;
}
