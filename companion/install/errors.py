"""The install layer's family of errors under the companion's one root.

CompanionError
└── InstallError
    ├── UnsafeName          a name from outside would land where it must not
    ├── NotPlainFile        not a regular file, or over the bound (also OSError)
    ├── ScanError           an archive's metadata is over a cap or malformed
    ├── ArchiveError        an archive is refused, naming the entry
    ├── NotInstallable      what the service returned cannot be installed
    │   ├── LostError       the staged download is gone, and not in the target
    │   └── ApplyFailed     the moves began and one failed: some files are in
    ├── SheetSourceError    a spritesheet's JSON cannot describe an animation
    ├── PluginError         not a project of that engine, or a user's file in the way
    ├── NotKept             what the user's animations need cannot be carried over
    └── NotMergeable        a file a merge cannot read: it stays a conflict
"""

from companion import CompanionError


class InstallError(CompanionError):
    """Root of what putting outputs into projects raises on purpose."""


class UnsafeName(InstallError):
    """A name or path from outside would land where it must not; the message says why."""


# An OSError too, so every caller that handles an unreadable file handles this one.
class NotPlainFile(InstallError, OSError):
    """Not a regular file (a FIFO, a folder, a device), or larger than the bound."""


class ScanError(InstallError):
    """The archive's metadata is over a cap or malformed; the message says which."""


class ArchiveError(InstallError):
    """The archive is refused; the message says which entry and why."""


class NotInstallable(InstallError):
    """What the service returned cannot be installed; the message says why."""


class LostError(NotInstallable):
    """The staged download is gone and is not in the target either."""


# Some files are in, so the install is not redone another way: a paid job fails saying
# why, and the same action again finishes it.
class ApplyFailed(NotInstallable):
    """The install's moves began and one failed: some files are in."""


class SheetSourceError(InstallError):
    """The spritesheet JSON cannot describe an animation; the message says why."""


class PluginError(InstallError):
    """Not a project of that engine, or the plugin would overwrite a user's file."""


class NotKept(InstallError):
    """Something the user's animations need cannot be carried over safely."""


class NotMergeable(InstallError):
    """A file a merge cannot read (a SpriteFrames, a clip, a meta): it stays a conflict."""
