"""One root for the companion's own errors, one family per layer under it, and the
command line's exit code read from that tree."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import companion
from companion import CompanionError
from companion.api.errors import ApiStatusError, CompanionApiError, TransportError
from companion.cli.errors import CliError, as_cli_error
from companion.daemon.errors import DaemonError
from companion.install.errors import InstallError
from companion.jobs.errors import JobFailed, JobsError
from companion.media.errors import MediaError
from companion.settings.errors import ConfigError, SettingsError
from companion.store.errors import StoreError

FAMILIES: dict[str, type[CompanionError]] = {
    "api": CompanionApiError,
    "media": MediaError,
    "install": InstallError,
    "store": StoreError,
    "settings": SettingsError,
    "jobs": JobsError,
    "daemon": DaemonError,
    "cli": CliError,
}


def _own_errors() -> list[tuple[str, type[BaseException]]]:
    found = []
    for info in pkgutil.walk_packages(companion.__path__, "companion."):
        layer = info.name.split(".")[1]
        if layer in ("sandbox", "__main__") or (layer not in FAMILIES and layer != "runtime"):
            continue  # the sandbox plays the service; its errors are the service's
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
                and not name.startswith("_")
            ):
                found.append((layer, value))
    return found


def test_every_error_stands_in_its_layers_family() -> None:
    errors = _own_errors()
    assert len(errors) > 30
    strays = [
        f"{cls.__module__}.{cls.__name__}"
        for layer, cls in errors
        if not issubclass(cls, FAMILIES.get(layer, CompanionError))
    ]
    assert strays == []
    # The families are apart: no error belongs to two layers.
    for a in FAMILIES.values():
        for b in FAMILIES.values():
            assert a is b or not issubclass(a, b)


def test_the_exit_code_is_read_from_the_tree() -> None:
    assert as_cli_error(ConfigError("config.yaml: budget_per_job: not a number")).code == 2
    refused = ApiStatusError(402, "INSUFFICIENT_CREDITS", "not enough credits")
    assert as_cli_error(refused).code == 3
    assert as_cli_error(TransportError("connection refused")).code == 1
    assert as_cli_error(JobFailed("the install failed")).code == 1
    given = CliError("held", 4)
    assert as_cli_error(given) is given and given.exit_code == 4
