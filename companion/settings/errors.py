"""The settings layer's family of errors under the companion's one root.

CompanionError
└── SettingsError
    └── ConfigError         config.yaml or the environment is wrong (exit code 2)
"""

from companion import CompanionError


class SettingsError(CompanionError):
    """Root of what reading the settings raises on purpose."""


class ConfigError(SettingsError):
    """The config file is unreadable or invalid; the message says where and how."""

    exit_code = 2  # the configuration is wrong: nothing was spent
