// Streamlit's chart theme, done in the browser as st.plotly_chart does it (Streamlit 1.67's
// PlotlyChart and CustomTheme): the placeholder colours of the "streamlit" plotly template
// replaced by the theme's, the theme's layout merged into the template, the title in bold. The
// theme is read from the CSS variables Streamlit gives every component (--st-background-color,
// --st-chart-categorical-colors, ...), plus the fixed palette greys Streamlit picks by the
// background's luminance: light and dark follow the browser without a rerun.

import { luminance, mix, withAlpha } from "./colour.js";
import { isObject, merge } from "./objects.js";

const GRAY = { gray10: "#fafafa", gray30: "#e6eaf1", gray70: "#808495", gray80: "#555867",
               gray85: "#31333F", gray90: "#262730" };
const PALETTE = { red40: "#ffabab", red80: "#ff2b2b", green40: "#7defa1",
                  blueGreen80: "#29b09d", blue40: "#83c9ff", blue80: "#0068c9" };
// Streamlit's theme sizes, in rem (fontSizes.twoSm/sm/md, spacing.twoXS/sm/xl/twoXL).
const REM = { twoSm: 0.75, sm: 0.875, md: 1, twoXS: 0.25, spacingSm: 0.5, xl: 1.25,
              twoXL: 1.5 };

// The active theme, from the CSS variables on `element`.
export function readTheme(element) {
  const style = getComputedStyle(element);
  const rootSize = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  return themeOf(name => style.getPropertyValue(`--st-${name}`).trim(), rootSize);
}

// The theme of the variables `v` gives (name without "--st-" -> its value, "" when unset), with
// the root font size `rootSize` in px.
export function themeOf(v, rootSize) {
  // Font lists as Streamlit's theme spells them ("Source Sans", sans-serif): the computed
  // variable has lost the spaces.
  const font = name => v(name).replace(/\s*,\s*/g, ", ");
  const list = name => v(name).split(",").map(s => s.trim()).filter(Boolean);
  const bgColor = v("background-color") || "#ffffff";
  const light = luminance(bgColor) > 0.5;
  const bodyText = v("text-color") || (light ? "#31333F" : "#fafafa");
  const secondaryBg = v("secondary-background-color") || bgColor;
  return {
    light,
    bgColor,
    bodyText,
    headingColor: v("heading-color") || bodyText,
    borderColor: v("border-color") || withAlpha(bodyText, 0.2),
    bodyFont: font("font") || '"Source Sans", sans-serif',
    headingFont: font("heading-font") || font("font") || '"Source Sans", sans-serif',
    fontWeight: Number(v("base-font-weight")) || 400,
    categorical: list("chart-categorical-colors"),
    sequential: list("chart-sequential-colors"),
    diverging: list("chart-diverging-colors"),
    gray70: light ? GRAY.gray70 : GRAY.gray30,
    // Chart text (ticks, titles, legends): Streamlit's gray70 is 3.6:1 on white, under the
    // 4.5:1 text needs; its gray80, 7:1 (the dark theme's is already light enough).
    mutedText: light ? GRAY.gray80 : GRAY.gray30,
    gray30: light ? GRAY.gray30 : GRAY.gray85,
    gray90: light ? GRAY.gray90 : GRAY.gray10,
    increasing: light ? PALETTE.blueGreen80 : PALETTE.green40,
    decreasing: light ? PALETTE.red80 : PALETTE.red40,
    total: light ? PALETTE.blue80 : PALETTE.blue40,
    fadedText05: withAlpha(bodyText, 0.1),
    bgMix: mix(bgColor, secondaryBg, 0.5),
    px: rem => rem * rootSize,
  };
}

// The placeholders of streamlit's plotly template (streamlit_plotly_theme.py), as Streamlit's
// replaceTemporaryColors: "#000001".."#000010" categorical, "#000011".. sequential, "#000021"..
// diverging, "#000032".. increasing, decreasing, total, greys, background. Without the
// "streamlit" theme (presentation mode) they become plotly's own defaults.
const PLOTLY_DEFAULTS = {
  categorical: ["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692",
                "#B6E880", "#FF97FF", "#FECB52"],
  sequential: ["#0d0887", "#46039f", "#7201a8", "#9c179e", "#bd3786", "#d8576b", "#ed7953",
               "#fb9f3a", "#fdca26", "#f0f921"],
  diverging: ["#8e0152", "#c51b7d", "#de77ae", "#f1b6da", "#fde0ef", "#e6f5d0", "#b8e186",
              "#7fbc41", "#4d9221", "#276419"],
  other: ["#3D9970", "#FF4136", "#4499FF", "#B2B5BE", "#2a3f5f", "#2a3f5f", "#EBF0F8", "white",
          "#C8D4E3"],
};
const placeholder = n => `#0000${String(n).padStart(2, "0")}`;

// The figure's JSON `text` with its placeholders coloured by `theme` ("streamlit") or plotly.
export function replaceColours(text, theme, themeName) {
  if (!text.includes("#0000")) return text;
  const streamlit = themeName === "streamlit";
  const other = streamlit
    ? [theme.increasing, theme.decreasing, theme.total, theme.gray30, theme.gray70, theme.gray90,
       theme.bgColor, theme.fadedText05, theme.bgMix]
    : PLOTLY_DEFAULTS.other;
  const map = new Map();
  other.forEach((colour, i) => map.set(placeholder(32 + i), colour));
  const groups = [[1, "categorical"], [11, "sequential"], [21, "diverging"]];
  for (const [first, name] of groups) {
    const colours = streamlit ? theme[name] : PLOTLY_DEFAULTS[name];
    for (let i = 0; i < 10; i++) {
      if (colours[i] !== undefined) map.set(placeholder(first + i), colours[i]);
    }
  }
  // One pass over the text; only the placeholders themselves (a 7-character colour).
  return text.replace(/#0000[0-4][0-9](?![0-9A-Fa-f])/g, m => map.get(m) ?? m);
}

// Streamlit's applyStreamlitTheme: `spec` (a parsed figure) themed in place.
export function applyStreamlitTheme(spec, theme) {
  const layout = isObject(spec.layout) ? spec.layout : (spec.layout = {});
  const template = isObject(layout.template) ? layout.template : (layout.template = {});
  const templateLayout = isObject(template.layout) ? template.layout : (template.layout = {});
  merge(templateLayout, themeLayout(theme));
  // A layout font colour of its own: the template's white icicle / grey sankey text yields.
  if (layout.font && layout.font.color !== undefined && template.data) {
    const injected = { icicle: "white", sankey: theme.gray70 };
    for (const [type, traces] of Object.entries(template.data)) {
      if (injected[type] !== undefined && Array.isArray(traces)) {
        for (const trace of traces) {
          if (trace && trace.textfont && trace.textfont.color === injected[type]) {
            delete trace.textfont.color;
          }
        }
      }
    }
  }
  if ("title" in layout && layout.title != null) {
    const title = typeof layout.title === "string" ? { text: layout.title }
      : (isObject(layout.title) ? layout.title : {});
    const text = typeof title.text === "string" ? title.text : "";
    layout.title = merge({ ...title }, { text: `<b>${text}</b>` });
  }
}

// Streamlit's applyStreamlitThemeTemplateLayout, with the theme's values.
export function themeLayout(t) {
  const px = t.px;
  const tickfont = { color: t.mutedText, size: px(REM.twoSm) };
  return {
    font: { color: t.mutedText, family: t.bodyFont, size: px(REM.twoSm), weight: t.fontWeight },
    title: { color: t.headingColor, subtitleColor: t.bodyText,
             font: { family: t.headingFont, size: px(REM.md), color: t.headingColor },
             pad: { l: px(REM.twoXS) }, xanchor: "left", x: 0 },
    legend: { title: { font: { size: px(REM.twoSm), color: t.mutedText }, side: "top" },
              valign: "top", bordercolor: "transparent", borderwidth: 0,
              font: { size: px(REM.twoSm), color: t.gray90 } },
    paper_bgcolor: t.bgColor,
    plot_bgcolor: t.bgColor,
    yaxis: { ticklabelposition: "outside", zerolinecolor: t.gray30,
             title: { font: { color: t.mutedText, size: px(REM.sm) }, standoff: px(REM.twoXL) },
             tickcolor: t.gray30, tickfont: { ...tickfont }, gridcolor: t.gray30,
             minor: { gridcolor: t.gray30 }, automargin: true },
    xaxis: { zerolinecolor: t.gray30, gridcolor: t.gray30, showgrid: false,
             tickfont: { ...tickfont }, tickcolor: t.gray30,
             title: { font: { color: t.mutedText, size: px(REM.sm) }, standoff: px(REM.xl) },
             minor: { gridcolor: t.gray30 }, zeroline: false, automargin: true,
             rangeselector: { bgcolor: t.bgColor, bordercolor: t.gray30, borderwidth: 1,
                              x: 0 } },
    margin: { pad: px(REM.spacingSm), r: 0, l: 0 },
    hoverlabel: { bgcolor: t.bgColor, bordercolor: t.borderColor,
                  font: { color: t.mutedText, family: t.bodyFont, size: px(REM.twoSm) } },
    coloraxis: { colorbar: { thickness: 16, xpad: px(REM.twoXL), ticklabelposition: "outside",
                             outlinecolor: "transparent", outlinewidth: 8, len: 0.75,
                             y: 0.5745,
                             title: { font: { color: t.mutedText, size: px(REM.sm) } },
                             tickfont: { ...tickfont } } },
    ternary: { gridcolor: t.gray70, bgcolor: t.bgColor,
               title: { font: { family: t.bodyFont, size: px(REM.sm) } }, color: t.gray70,
               aaxis: { gridcolor: t.gray70, linecolor: t.gray70,
                        tickfont: { family: t.bodyFont, size: px(REM.twoSm) } },
               baxis: { linecolor: t.gray70, gridcolor: t.gray70,
                        tickfont: { family: t.bodyFont, size: px(REM.twoSm) } },
               caxis: { linecolor: t.gray70, gridcolor: t.gray70,
                        tickfont: { family: t.bodyFont, size: px(REM.twoSm) } } },
  };
}
