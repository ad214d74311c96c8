"""Showing a figure: presentation styling, the modebar's download settings, and an Export menu
(PNG and SVG drawn on the server, the data as CSV and .npy) under every chart.

The menu's buttons exist only while it is open, and files are made only when a button is
clicked (Streamlit's deferred `data` callables): a rerun of the page costs nothing for them.
File names say what and with which parameters (`pe-heatmap_d128_pos64_interleaved.png`, see
`file_stem`).
"""

from __future__ import annotations

import re

import plotly.graph_objects as go
import streamlit as st

from figures.common import EXPORT_HEIGHT, EXPORT_WIDTH, export_style, presentation_style
from figures.contrast import ensure_contrast
from figures.export import (
    TableExport,
    figure_csv,
    figure_image,
    figure_npy,
    image_export_problem,
)
from ui import plotly_react
from ui.i18n import presenting, t

PNG_SCALES = (2, 4)  # 3840 x 2160 (a 4K slide) and 7680 x 4320, both 16:9
DEFAULT_PNG_SCALE = 2


def file_stem(chart: str, *parts: object) -> str:
    """`pe-<chart>_<part>_<part>...`, safe on every file system: file_stem("heatmap", "d128",
    "pos64", "interleaved") -> "pe-heatmap_d128_pos64_interleaved"."""
    words = [f"pe-{chart}", *(str(part) for part in parts if part not in (None, ""))]
    return "_".join(re.sub(r"[^A-Za-z0-9.+-]+", "-", word).strip("-") for word in words)


def dark_theme() -> bool:
    try:
        return st.context.theme.type == "dark"
    except Exception:  # no browser: the light theme
        return False


def show_chart(fig: go.Figure, *, key: str, name: str, table: TableExport | None = None) -> None:
    """`st.plotly_chart` with the app's settings: `key` names the chart (CSS class st-key-<key>),
    `name` is the file stem of its downloads (`file_stem`). A heatmap of a table passes `table`:
    its CSV and .npy then carry the table's numbers, not the picture's."""
    if presenting():
        fig = presentation_style(fig, dark=dark_theme())
        theme = None  # the clean template itself, not Streamlit's
    else:
        theme = "streamlit"
    # Every line, marker and label at 3:1 on both themes' backgrounds (WCAG 1.4.11): on a
    # session's first run the server cannot tell the theme.
    fig = ensure_contrast(fig)
    config = {
        "displaylogo": False,
        # The modebar's camera button: a 16:9 PNG named like the Export menu's.
        "toImageButtonOptions": {
            "format": "png", "filename": name, "width": EXPORT_WIDTH, "height": EXPORT_HEIGHT,
            "scale": DEFAULT_PNG_SCALE,
        },
    }
    if plotly_react.enabled():  # the same chart, kept across reruns (ui/plotly_react.py)
        plotly_react.plotly_react_chart(fig, key=key, theme=theme, config=config)
    else:
        st.plotly_chart(fig, key=key, theme=theme, config=config)
    export_menu(fig, key=key, name=name, table=table)


@st.fragment
def export_menu(fig: go.Figure, *, key: str, name: str, table: TableExport | None = None) -> None:
    """The Export popover: PNG at 2x and 4x of 1920 x 1080 (16:9), SVG, CSV and .npy.

    Its buttons exist only while it is open: opening it reruns this fragment alone, and a rerun
    of the page (a control changed) does not redraw five hidden buttons per chart."""
    menu = st.popover(t("export.menu"), icon=":material/download:", help=t("export.menu_help"),
                      key=f"{key}_export", on_change="rerun")
    if not menu.open:
        return
    printable = fig if presenting() else export_style(fig)
    problem = image_export_problem()
    with menu:
        why = None  # the disabled image buttons say why, in the menu and on hover
        if problem:
            reasons = {"no_kaleido": t("export.reason_no_kaleido"),
                       "no_browser": t("export.reason_no_browser")}
            why = t("export.unavailable", reason=reasons[problem])
            st.caption(why)
        for scale in PNG_SCALES:
            st.download_button(
                t("export.png", width=EXPORT_WIDTH * scale, height=EXPORT_HEIGHT * scale),
                data=lambda scale=scale: figure_image(printable, "png", scale=scale),
                file_name=f"{name}.png", mime="image/png", key=f"{key}_png{scale}",
                on_click="ignore", disabled=problem is not None, help=why,
                icon=":material/image:", width="stretch",
            )
        st.download_button(
            t("export.svg"), data=lambda: figure_image(printable, "svg"),
            file_name=f"{name}.svg", mime="image/svg+xml", key=f"{key}_svg", on_click="ignore",
            disabled=problem is not None, help=why, icon=":material/draw:", width="stretch",
        )
        st.download_button(
            t("export.csv"), data=table.csv if table else lambda: figure_csv(fig),
            file_name=table.file_name(name, "csv") if table else f"{name}.csv",
            mime="text/csv", key=f"{key}_csv", on_click="ignore", icon=":material/table:",
            width="stretch",
        )
        st.download_button(
            t("export.npy"), data=table.npy if table else lambda: figure_npy(fig),
            file_name=table.file_name(name, "npy") if table else f"{name}.npy",
            mime="application/octet-stream", key=f"{key}_npy", on_click="ignore",
            icon=":material/data_array:", width="stretch",
        )
