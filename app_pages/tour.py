"""The tour: the source articles' story as live slides, one view each, in presentation mode
(`/tour?slide=N`), or a visitor's own deck (`/tour?deck=...`). The player is ui/player/."""

from ui.player import play

play()
