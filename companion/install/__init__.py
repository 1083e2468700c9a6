"""Putting outputs into game projects: safe archive extraction, the Godot and Unity
layouts, merges that keep a user's edits, resumable install trees, the guard for names
from outside, and the plugins' own install.

Other packages import from here. The error family loads at once; the rest loads on first
use, so importing this package costs nothing until a name is asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion import front_door
from companion.install.errors import (
    ApplyFailed,
    InstallError,
    LostError,
    NotInstallable,
    NotPlainFile,
    PluginError,
    ScanError,
    SheetSourceError,
    UnsafeName,
)

if TYPE_CHECKING:
    from companion.install.downloads import place as place_download
    from companion.install.editor_plugins import Change
    from companion.install.editor_plugins import Engine as PluginEngine
    from companion.install.editor_plugins import install as install_plugin
    from companion.install.editor_plugins import status as plugin_status
    from companion.install.editor_plugins import uninstall as uninstall_plugin
    from companion.install.forecast import conflicts, folder_refusal, foreseen
    from companion.install.forecast import planned as planned_writes
    from companion.install.godot.character import add_move as add_character_move
    from companion.install.godot.character import files as character_files
    from companion.install.godot.character import holds as character_holds
    from companion.install.godot.character import refusal as character_refusal
    from companion.install.godot.sprite_merge import merge_changed as merge_changed_sprites
    from companion.install.into_engine import install as install_into_engine
    from companion.install.plan import Placement, default_target
    from companion.install.plan import build as build_tree
    from companion.install.plugin_pack import godot_zip, unity_tarball
    from companion.install.project import engine_of, missing_marker, placement_for
    from companion.install.provenance import Provenance
    from companion.install.replaced_set import drop_leftovers
    from companion.install.safety.names import (
        confined,
        free_name,
        output_file_name,
        output_names,
        shown,
    )
    from companion.install.safety.names import inside as inside_project
    from companion.install.safety.ownership import Owner
    from companion.install.safety.plain_files import read_plain, read_plain_text
    from companion.install.safety.scan import MetaLimits, scan_zip
    from companion.install.safety.set_aside import set_aside as set_aside_files
    from companion.install.safety.set_aside import settable_aside
    from companion.install.sheet_pages import pages as pages_of
    from companion.install.tree import Staged, load_manifest, sha256_of
    from companion.install.unity.anim_merge import merge_changed as merge_changed_clips
    from companion.install.unity.character import add_unity_move, set_clip_loop
    from companion.install.unity.controller import ControllerMove, merge_controller
    from companion.install.unity.controller_install import install_controller
    from companion.install.unity.files import check_target as check_unity_target

# Loaded on first use: name -> (module, the name it has there). No name here is also
# a module's name: importing such a module would put the module where the name should be.
_LAZY = {
    "add_character_move": ("godot.character", "add_move"),
    "character_files": ("godot.character", "files"),
    "character_holds": ("godot.character", "holds"),
    "character_refusal": ("godot.character", "refusal"),
    "install_into_engine": ("into_engine", "install"),
    "Change": ("editor_plugins", "Change"),
    "PluginEngine": ("editor_plugins", "Engine"),
    "install_plugin": ("editor_plugins", "install"),
    "plugin_status": ("editor_plugins", "status"),
    "uninstall_plugin": ("editor_plugins", "uninstall"),
    "godot_zip": ("plugin_pack", "godot_zip"),
    "unity_tarball": ("plugin_pack", "unity_tarball"),
    "Placement": ("plan", "Placement"),
    "default_target": ("plan", "default_target"),
    "placement_for": ("project", "placement_for"),
    "engine_of": ("project", "engine_of"),
    "missing_marker": ("project", "missing_marker"),
    "build_tree": ("plan", "build"),
    "planned_writes": ("forecast", "planned"),
    "conflicts": ("forecast", "conflicts"),
    "foreseen": ("forecast", "foreseen"),
    "folder_refusal": ("forecast", "folder_refusal"),
    "free_name": ("safety.names", "free_name"),
    "read_plain": ("safety.plain_files", "read_plain"),
    "read_plain_text": ("safety.plain_files", "read_plain_text"),
    "inside_project": ("safety.names", "inside"),
    "confined": ("safety.names", "confined"),
    "output_names": ("safety.names", "output_names"),
    "output_file_name": ("safety.names", "output_file_name"),
    "shown": ("safety.names", "shown"),
    "Owner": ("safety.ownership", "Owner"),
    "drop_leftovers": ("replaced_set", "drop_leftovers"),
    "place_download": ("downloads", "place"),
    "merge_changed_clips": ("unity.anim_merge", "merge_changed"),
    "merge_changed_sprites": ("godot.sprite_merge", "merge_changed"),
    "set_aside_files": ("safety.set_aside", "set_aside"),
    "settable_aside": ("safety.set_aside", "settable_aside"),
    "pages_of": ("sheet_pages", "pages"),
    "Staged": ("tree", "Staged"),
    "load_manifest": ("tree", "load_manifest"),
    "sha256_of": ("tree", "sha256_of"),
    "MetaLimits": ("safety.scan", "MetaLimits"),
    "scan_zip": ("safety.scan", "scan_zip"),
    "check_unity_target": ("unity.files", "check_target"),
    "ControllerMove": ("unity.controller", "ControllerMove"),
    "Provenance": ("provenance", "Provenance"),
    "merge_controller": ("unity.controller", "merge_controller"),
    "install_controller": ("unity.controller_install", "install_controller"),
    "add_unity_move": ("unity.character", "add_unity_move"),
    "set_clip_loop": ("unity.character", "set_clip_loop"),
}


__getattr__ = front_door(__name__, globals(), _LAZY)


__all__ = [
    "ApplyFailed",
    "Change",
    "ControllerMove",
    "InstallError",
    "LostError",
    "MetaLimits",
    "NotInstallable",
    "NotPlainFile",
    "Owner",
    "Placement",
    "PluginEngine",
    "PluginError",
    "Provenance",
    "ScanError",
    "SheetSourceError",
    "Staged",
    "UnsafeName",
    "add_character_move",
    "add_unity_move",
    "build_tree",
    "character_files",
    "character_holds",
    "character_refusal",
    "check_unity_target",
    "confined",
    "conflicts",
    "default_target",
    "drop_leftovers",
    "engine_of",
    "folder_refusal",
    "foreseen",
    "free_name",
    "godot_zip",
    "inside_project",
    "install_controller",
    "install_into_engine",
    "install_plugin",
    "load_manifest",
    "merge_changed_clips",
    "merge_changed_sprites",
    "merge_controller",
    "missing_marker",
    "output_file_name",
    "output_names",
    "pages_of",
    "place_download",
    "placement_for",
    "planned_writes",
    "plugin_status",
    "read_plain",
    "read_plain_text",
    "scan_zip",
    "set_aside_files",
    "set_clip_loop",
    "settable_aside",
    "sha256_of",
    "shown",
    "uninstall_plugin",
    "unity_tarball",
]
