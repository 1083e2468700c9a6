"""Watched drop folders: what a project's inbox may hand the daemon, when a drop has
settled, how it is read, and where it ends."""
