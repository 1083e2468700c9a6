"""The jobs layer's family of errors under the companion's one root."""

from companion import CompanionError


class JobsError(CompanionError):
    """Root of what running jobs raises on purpose."""


class JobFailed(JobsError):
    """The job cannot go on; the message says why and what to do."""
