"""The store layer's family of errors under the companion's one root."""

from companion import CompanionError


class StoreError(CompanionError):
    """Root of what the companion's books raises on purpose."""
