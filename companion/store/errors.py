"""The store layer's family of errors under the companion's one root.

CompanionError
└── StoreError
    ├── TeamUnavailable     the team database cannot be reached now
    ├── StoreClosed         the store was closed under running work (also RuntimeError)
    ├── StateChanged        a job moved since it was read; nothing was written
    └── ClipGone            the job's clip is not kept
"""

from companion import CompanionError


class StoreError(CompanionError):
    """Root of what the companion's books raises on purpose."""


class TeamUnavailable(StoreError):
    """The team database cannot be reached now; the message names it (no password)."""


class StoreClosed(StoreError, RuntimeError):
    """The store was closed; work still running when it was closed stops here."""


class StateChanged(StoreError):
    """A job moved (a cancel, another runner) since it was read; nothing was written."""


class ClipGone(StoreError):
    """The job's clip is not kept (evicted, or never kept); the message says what to do."""
