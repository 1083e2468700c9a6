"""Putting outputs into game projects: safe archive extraction (engine-aware installs
build on it)."""
