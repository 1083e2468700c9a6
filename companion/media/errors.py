"""The one error the media engine raises for bad input; its message is shown to users."""


class MediaError(Exception):
    """Input the engine cannot work with: the message says what and what to do."""
