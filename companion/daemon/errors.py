"""The daemon layer's family of errors under the companion's one root."""

from companion import CompanionError


class DaemonError(CompanionError):
    """Root of what the daemon raises on purpose."""
