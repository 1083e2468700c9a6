"""The `companion` command line."""

from companion.cli.main import main

__all__ = ["main"]
