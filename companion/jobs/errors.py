"""The jobs layer's family of errors under the companion's one root."""

from companion import CompanionError


class JobsError(CompanionError):
    """Root of what running jobs raises on purpose."""
