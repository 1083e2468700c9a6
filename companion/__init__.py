"""companion: turn still images into game-ready animations from inside a game editor."""

__version__ = "0.1.0"
