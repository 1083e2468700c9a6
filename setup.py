"""The editor plugins ship inside the package: engine_plugins/ (where the samples and the
tests find them in a checkout) becomes the package data companion.engine_plugins in every
install, editable or wheel. Its package data and everything else are in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["companion*"]), "companion.engine_plugins"],
    package_dir={"companion.engine_plugins": "engine_plugins"},
)
