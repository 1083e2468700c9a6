"""companion: turn still images into game-ready animations from inside a game editor."""

__version__ = "0.1.0"


class CompanionError(Exception):
    """Root of every error the companion raises on purpose. Each layer has one family
    under it, named in that layer (api.errors.CompanionApiError, media.errors.MediaError,
    install.errors.InstallFamilyError, store.errors.StoreError, settings.config.
    SettingsError, jobs.errors.JobsError, daemon.errors.DaemonError, cli.errors.CliError).
    exit_code: what the command line exits with when one reaches it (see cli/errors.py)."""

    exit_code = 1
