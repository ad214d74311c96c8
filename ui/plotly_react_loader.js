// The chart element's JavaScript as Streamlit registers it (ui/plotly_react.py). It travels in
// every render's message, so it is only this loader: the element's code is a folder of modules
// in the app's static/ (ui/chart/, entry element.js), which the browser imports once per page.
// The message is bytes: a line of JSON (the settings), then the figure's JSON as it is.
export default async function (component) {
  const text = new TextDecoder().decode(component.data);
  const cut = text.indexOf("\n");
  const data = { ...JSON.parse(text.slice(0, cut)), spec: text.slice(cut + 1) };
  if (!window.__pePlotlyPreload) {  // plotly.js on its way while the code loads
    window.__pePlotlyPreload = document.createElement("link");
    Object.assign(window.__pePlotlyPreload, { rel: "preload", as: "script",
                                              href: new URL(data.src, document.baseURI).href });
    document.head.appendChild(window.__pePlotlyPreload);
  }
  const chart = await import(new URL(data.module, document.baseURI).href);
  return chart.default({ ...component, data });
}
