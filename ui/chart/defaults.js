// What plotly.js assumes where a figure says nothing, for the code that lays a figure out again.

export const DEFAULT_HEIGHT = 450;  // a figure's height (st.plotly_chart's rule too)
export const MARGIN = Object.freeze({ t: 100, b: 80, l: 80, r: 80 });  // layout.margin, px
export const LINE = 1.3;  // the spacing of a text's lines, in ems
export const FONT = Object.freeze({ size: 12, family: '"Open Sans", verdana, arial, sans-serif' });
