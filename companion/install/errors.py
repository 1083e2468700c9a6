"""The install layer's family of errors under the companion's one root."""

from companion import CompanionError


class InstallFamilyError(CompanionError):
    """Root of what putting outputs into projects raises on purpose."""
