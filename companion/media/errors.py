"""The one error the media engine raises for bad input; its message is shown to users."""

from companion import CompanionError


class MediaError(CompanionError):
    """Input the engine cannot work with: the message says what and what to do."""


class EngineTextError(MediaError):
    """Text that cannot stand in an engine file; the message says which character."""
