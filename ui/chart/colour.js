// Colours: any CSS colour as numbers, read the way the browser reads it (a canvas normalises it).

let context = null;  // made at the first colour read, never at import

// [r, g, b, a] (a in 0..1) of any CSS colour; an invalid one reads as black.
export function rgba(colour) {
  context = context || document.createElement("canvas").getContext("2d");
  context.fillStyle = "#000000";
  context.fillStyle = colour;
  return parseNormalised(context.fillStyle);
}

// A canvas's normalised colour ("#rrggbb" when opaque, else "rgba(r, g, b, a)") as numbers.
export function parseNormalised(text) {
  if (text.startsWith("#")) return [...[1, 3, 5].map(i => parseInt(text.slice(i, i + 2), 16)), 1];
  const parts = (text.match(/[\d.]+/g) || [0, 0, 0]).map(Number);
  return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
}

export function rgb(colour) { return rgba(colour).slice(0, 3); }

// WCAG relative luminance, as Streamlit computes it to tell a light theme from a dark one.
export function luminance(colour) {
  if (colour === "transparent") return 0;
  const channel = v => { const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const [r, g, b] = rgb(colour);
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function withAlpha(colour, alpha) {
  const [r, g, b] = rgb(colour);
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

// `weight` of `a` and the rest of `b`, opaque.
export function mix(a, b, weight) {
  const x = rgb(a), y = rgb(b);
  const c = x.map((v, i) => Math.round(v * weight + y[i] * (1 - weight)));
  return `rgba(${c[0]}, ${c[1]}, ${c[2]}, 1)`;
}
