"""The jobs layer's family of errors under the companion's one root.

CompanionError
└── JobsError
    ├── JobFailed           the job cannot go on
    ├── TransitionError     a move the lifecycle does not allow
    ├── BadMove             a move of a character's set is unusable (also ValueError)
    ├── ImageReadError      the file cannot be sent as an image
    │   └── ImageDamaged    the picture does not decode whole
    └── StagingRefused      the staging folder would be reached through a link
"""

from companion import CompanionError


class JobsError(CompanionError):
    """Root of what running jobs raises on purpose."""


class JobFailed(JobsError):
    """The job cannot go on; the message says why and what to do."""


class TransitionError(JobsError):
    """A move the lifecycle does not allow."""


# `index` says which move (None: the set as a whole); the message says why and what to
# do, without naming the flag or field.
class BadMove(JobsError, ValueError):
    """A move of the character's set is unusable."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


class ImageReadError(JobsError):
    """The file cannot be sent as an image; the message says why."""


class ImageDamaged(ImageReadError):
    """The picture does not decode whole: damaged, cut short, or still being written."""


class StagingRefused(JobsError):
    """The staging folder would be reached through a link; the message says what to do."""
