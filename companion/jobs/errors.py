"""The jobs layer's family of errors under the companion's one root."""

from companion import CompanionError


class JobsError(CompanionError):
    """Root of what running jobs raises on purpose."""


class JobFailed(JobsError):
    """The job cannot go on; the message says why and what to do."""


class TransitionError(JobsError):
    """A move the lifecycle does not allow."""


class BadMove(JobsError, ValueError):
    """A move of the set is unusable; `index` says which (None: the set as a whole) and
    the message says why and what to do, without naming the flag or field."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


class ImageReadError(JobsError):
    """The file cannot be sent as an image; the message says why."""


class ImageDamaged(ImageReadError):
    """The picture does not decode whole: damaged, cut short, or still being written."""


class StagingRefused(JobsError):
    """The staging folder would be reached through a link; the message says what to do."""
