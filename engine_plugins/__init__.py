"""The editor plugins, installed as the package data companion.engine_plugins (see
setup.py): godot/addons/companion and the Unity package in unity/."""
