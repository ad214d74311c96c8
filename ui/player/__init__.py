"""The slide player and the decks: the tour page (app_pages/tour.py) and "my deck" (the sidebar
of every page).

- `slides`: the player itself: the slide the address bar names, run as its page runs, the bar
  of buttons and the presenter's keys, the slide's one-screen layout (assets/slide.css).
- `presenter`: the presenter's window: previews of the slide and the next, notes, a clock.
- `deck`: "Add this view to my deck", and the deck's editor in the tour's sidebar.
- `slide_file`: the tour or a deck as a PDF or a ZIP, drawn on the server.
- `common`: what they share (the session's keys, a slide's address, a page run inside the
  tour's); `assets/`: their HTML, CSS and JavaScript.
"""

from ui.player.common import MY_DECK, slide_query
from ui.player.deck import add_view, deck_sidebar
from ui.player.slide_file import slide_file_session
from ui.player.slides import SLIDE, play

__all__ = ["MY_DECK", "SLIDE", "add_view", "deck_sidebar", "play", "slide_file_session",
           "slide_query"]
