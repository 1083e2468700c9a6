"""The install layer's family of errors under the companion's one root."""

from companion import CompanionError


class InstallError(CompanionError):
    """Root of what putting outputs into projects raises on purpose."""


class UnsafeName(InstallError):
    """A name or path from outside would land somewhere it must not; the message says
    which and why."""


class NotPlainFile(InstallError, OSError):
    """Not a regular file (a FIFO, a folder, a device), or larger than the bound; an
    OSError too, so every caller that handles an unreadable file handles this one."""


class ScanError(InstallError):
    """The archive's metadata is over a cap or malformed; the message says which."""


class ArchiveError(InstallError):
    """The archive is refused; the message says which entry and why."""


class NotInstallable(InstallError):
    """What the service returned cannot be installed; the message says why."""


class LostError(NotInstallable):
    """The staged download is gone and is not in the target either."""


class ApplyFailed(NotInstallable):
    """The moves began and one failed: some files are in, so the install is not redone
    another way (a paid job fails saying why; the same action again finishes it)."""


class SheetSourceError(InstallError):
    """The spritesheet JSON cannot describe an animation; the message says why."""


class PluginError(InstallError):
    """The project is not one of that engine, or installing would overwrite a user's file;
    the message says which and what to do."""


class NotKept(InstallError):
    """Something the user's animations need cannot be carried over safely."""


class NotMergeable(InstallError):
    """A file a merge cannot read (a SpriteFrames, a clip, a meta): it stays a conflict."""
