"""The Pygame client: the window, the lobby, the table (see docs/CLIENT.md)."""

import os as _os

_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner on import
