"""Godot 4 installs: files under res://, a character's SpriteFrames, the user's edits
carried through a re-install, the addon's plugin.cfg."""
