"""The app's pages, in navigation order: `app.py` registers them, the home page lists them.

A page is registered only once its script exists, so the list can name pages still being built.
`url_path` values are a contract (shared links point at them). Titles and one-line summaries are
in the message catalogues (`pages.<url_path>.title`, `.summary`; the home page's under `home`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ui.locales import DEFAULT_LANGUAGE, Lang, message

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PageInfo:
    script: str  # path relative to the repository root
    icon: str
    url_path: str  # "" is the root URL

    @property
    def slug(self) -> str:
        return self.url_path or "home"

    def title_in(self, lang: Lang) -> str:
        return message(f"pages.{self.slug}.title", lang)

    def summary_in(self, lang: Lang) -> str:
        """One line for the home page."""
        return message(f"pages.{self.slug}.summary", lang)

    @property
    def title(self) -> str:
        return self.title_in(DEFAULT_LANGUAGE)


HOME = PageInfo("app_pages/home.py", ":material/home:", "")

_ALL_PAGES: tuple[PageInfo, ...] = (
    PageInfo("app_pages/heatmap.py", ":material/grid_on:", "heatmap"),
    PageInfo("app_pages/wavelengths.py", ":material/waves:", "wavelengths"),
    PageInfo("app_pages/similarity.py", ":material/compare_arrows:", "similarity"),
    PageInfo("app_pages/vit_grid.py", ":material/apps:", "vit-grid"),
    PageInfo("app_pages/word_position.py", ":material/text_fields:", "word-position"),
    PageInfo("app_pages/learned_vs_sinusoidal.py", ":material/school:", "learned-vs-sinusoidal"),
    PageInfo("app_pages/rope.py", ":material/rotate_right:", "rope"),
    PageInfo("app_pages/alibi.py", ":material/trending_down:", "alibi"),
    PageInfo("app_pages/extrapolation.py", ":material/open_in_full:", "extrapolation"),
)

PAGES: tuple[PageInfo, ...] = tuple(p for p in _ALL_PAGES if (ROOT / p.script).exists())
