"""The media engine's errors for bad input; their messages are shown to users.

CompanionError
└── MediaError              input the engine cannot work with
    └── EngineTextError     text that cannot stand in an engine file
"""

from companion import CompanionError


class MediaError(CompanionError):
    """Input the engine cannot work with: the message says what and what to do."""


class EngineTextError(MediaError):
    """Text that cannot stand in an engine file; the message says which character."""
