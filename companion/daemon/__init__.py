"""The daemon artists leave running: localhost API for editor plugins, job engine."""
