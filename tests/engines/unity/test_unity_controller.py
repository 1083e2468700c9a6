"""A character's Animator Controller, read back with unityparser (a Unity YAML reader that
is not ours): one state per move playing its clip, idle the default; a user's transition,
parameter and second layer survive a fourth move; the same moves again change nothing;
every class and field written is one of Unity 6's (its API database)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from unityparser import UnityDocument

from companion.install import ControllerMove, NotInstallable, install_controller, merge_controller
from companion.install.unity.controller_install import controller_meta
from tests.support.unity import DATABASE

MOVES = [
    ControllerMove("walk", "a" * 32, True),
    ControllerMove("idle", "b" * 32, True),
    ControllerMove("attack", "c" * 32, False),
]
JUMP = ControllerMove("jump", "d" * 32, False)

# What a user adds in Unity's Animator window, as Unity writes it: a float parameter, a
# transition idle -> walk on it, and a second layer with a state machine of its own.
PARAMETER = """  m_AnimatorParameters:
  - m_Name: Speed
    m_Type: 1
    m_DefaultFloat: 0
    m_DefaultInt: 0
    m_DefaultBool: 0
    m_Controller: {fileID: 9100000}
"""
LAYER = """  - serializedVersion: 5
    m_Name: Upper Body
    m_StateMachine: {fileID: -555}
    m_Mask: {fileID: 0}
    m_Motions: []
    m_Behaviours: []
    m_BlendingMode: 1
    m_SyncedLayerIndex: -1
    m_DefaultWeight: 1
    m_IKPass: 0
    m_SyncedLayerAffectsTiming: 0
    m_Controller: {fileID: 9100000}
"""
USER_DOCUMENTS = """--- !u!1101 &-777
AnimatorStateTransition:
  m_ObjectHideFlags: 1
  m_CorrespondingSourceObject: {fileID: 0}
  m_PrefabInstance: {fileID: 0}
  m_PrefabAsset: {fileID: 0}
  m_Name:
  m_Conditions:
  - m_ConditionMode: 3
    m_ConditionEvent: Speed
    m_EventTreshold: 0.1
  m_DstStateMachine: {fileID: 0}
  m_DstState: {fileID: WALK}
  m_Solo: 0
  m_Mute: 0
  m_IsExit: 0
  serializedVersion: 3
  m_TransitionDuration: 0.25
  m_TransitionOffset: 0
  m_ExitTime: 0.75
  m_HasExitTime: 0
  m_HasFixedDuration: 1
  m_InterruptionSource: 0
  m_OrderedInterruption: 1
  m_CanTransitionToSelf: 1
--- !u!1107 &-555
AnimatorStateMachine:
  serializedVersion: 6
  m_ObjectHideFlags: 1
  m_CorrespondingSourceObject: {fileID: 0}
  m_PrefabInstance: {fileID: 0}
  m_PrefabAsset: {fileID: 0}
  m_Name: Upper Body
  m_ChildStates: []
  m_ChildStateMachines: []
  m_AnyStateTransitions: []
  m_EntryTransitions: []
  m_StateMachineTransitions: {}
  m_StateMachineBehaviours: []
  m_AnyStatePosition: {x: 50, y: 20, z: 0}
  m_EntryPosition: {x: 50, y: 120, z: 0}
  m_ExitPosition: {x: 800, y: 120, z: 0}
  m_ParentStateMachinePosition: {x: 800, y: 20, z: 0}
  m_DefaultState: {fileID: 0}
"""


def read(text: str, tmp_path: Path) -> UnityDocument:
    path = tmp_path / "read.controller"
    path.write_text(text)
    return UnityDocument.load_yaml(str(path))


def entries(document: UnityDocument, kind: str) -> list:
    return [e for e in document.entries if type(e).__name__ == kind]


def base_states(document: UnityDocument) -> dict[str, object]:
    """The base layer's states by name, found the way Unity does: layer -> machine ->
    child states."""
    by_id = {e.anchor: e for e in document.entries}
    (controller,) = entries(document, "AnimatorController")
    machine = by_id[controller.m_AnimatorLayers[0]["m_StateMachine"]["fileID"]]
    states = [by_id[c["m_State"]["fileID"]] for c in machine.m_ChildStates]
    return {s.m_Name: s for s in states}


def user_edits(text: str) -> str:
    """The controller as a user leaves it after adding a parameter, a transition on the
    idle state and a second layer."""
    walk = re.search(r"&(-?\d+)\nAnimatorState:\n(?:  .*\n)*?  m_Name: walk\n", text)
    idle = re.search(r"&(-?\d+)\nAnimatorState:\n(?:  .*\n)*?  m_Name: idle\n", text)
    assert walk and idle
    text = text.replace(
        "    m_Controller: {fileID: 9100000}\n", "    m_Controller: {fileID: 9100000}\n" + LAYER, 1
    )
    text = text.replace("  m_AnimatorParameters: []\n", PARAMETER)
    head = text.index(f"&{idle.group(1)}\nAnimatorState:")
    at = text.index("  m_Transitions: []\n", head)
    text = (
        text[:at]
        + "  m_Transitions:\n  - {fileID: -777}\n"
        + text[at + len("  m_Transitions: []\n") :]
    )
    return text + USER_DOCUMENTS.replace("WALK", walk.group(1))


def test_fresh_controller_has_a_state_per_move_idle_the_default(tmp_path: Path) -> None:
    document = read(merge_controller(None, "hero", MOVES), tmp_path)
    (controller,) = entries(document, "AnimatorController")
    assert controller.m_Name == "hero" and len(controller.m_AnimatorLayers) == 1
    states = base_states(document)
    assert set(states) == {"walk", "idle", "attack"}
    for move in MOVES:
        motion = states[move.name].m_Motion
        assert motion == {"fileID": "7400000", "guid": move.clip_guid, "type": "2"}
    (machine,) = entries(document, "AnimatorStateMachine")
    assert machine.m_DefaultState["fileID"] == states["idle"].anchor
    # attack plays once, then goes back to idle; the loops have no way out of their own
    (transition,) = entries(document, "AnimatorStateTransition")
    assert states["attack"].m_Transitions == [{"fileID": transition.anchor}]
    assert transition.m_DstState["fileID"] == states["idle"].anchor
    assert transition.m_HasExitTime == "1"
    anchors = [e.anchor for e in document.entries]
    assert len(anchors) == len(set(anchors))


def test_first_move_is_the_default_without_idle(tmp_path: Path) -> None:
    document = read(merge_controller(None, "bat", [MOVES[2], MOVES[0]]), tmp_path)
    (machine,) = entries(document, "AnimatorStateMachine")
    assert machine.m_DefaultState["fileID"] == base_states(document)["attack"].anchor


def test_users_transition_parameter_and_layer_survive_a_fourth_move(tmp_path: Path) -> None:
    edited = user_edits(merge_controller(None, "hero", MOVES))
    merged = merge_controller(edited, "hero", [*MOVES, JUMP])
    # Everything of the user's is there byte for byte: the merge only appended documents
    # and one child state, so the old text minus that entry is a prefix of the new.
    assert merged.startswith(edited[: edited.index("  m_ChildStateMachines: []")])
    assert edited[edited.index("  m_ChildStateMachines: []") :] in merged
    document = read(merged, tmp_path)
    (controller,) = entries(document, "AnimatorController")
    assert [p["m_Name"] for p in controller.m_AnimatorParameters] == ["Speed"]
    assert [layer["m_Name"] for layer in controller.m_AnimatorLayers] == [
        "Base Layer",
        "Upper Body",
    ]
    states = base_states(document)
    assert set(states) == {"walk", "idle", "attack", "jump"}
    assert states["jump"].m_Motion["guid"] == JUMP.clip_guid
    by_id = {e.anchor: e for e in document.entries}
    user_transition = by_id["-777"]
    assert states["idle"].m_Transitions == [{"fileID": "-777"}]
    assert user_transition.m_DstState["fileID"] == states["walk"].anchor
    assert user_transition.m_Conditions[0]["m_ConditionEvent"] == "Speed"
    (upper,) = [e for e in entries(document, "AnimatorStateMachine") if e.m_Name == "Upper Body"]
    assert upper.m_ChildStates == []  # the second layer gets no state of ours
    anchors = [e.anchor for e in document.entries]
    assert len(anchors) == len(set(anchors))


def test_same_moves_again_change_nothing() -> None:
    made = merge_controller(None, "hero", MOVES)
    assert merge_controller(None, "hero", MOVES) == made  # fileIDs are stable
    assert merge_controller(made, "hero", MOVES) == made
    edited = user_edits(made)
    assert merge_controller(edited, "hero", list(reversed(MOVES))) == edited
    grown = merge_controller(edited, "hero", [*MOVES, JUMP])
    assert merge_controller(grown, "hero", [*MOVES, JUMP]) == grown


def test_a_renamed_state_still_plays_its_clip_and_is_not_made_twice(tmp_path: Path) -> None:
    renamed = merge_controller(None, "hero", MOVES).replace("m_Name: idle\n", "m_Name: Breathe\n")
    assert merge_controller(renamed, "hero", MOVES) == renamed


def test_bad_moves_are_refused_naming_the_field() -> None:
    with pytest.raises(NotInstallable, match="clip_guid"):
        merge_controller(None, "hero", [ControllerMove("idle", "not-a-guid", True)])
    with pytest.raises(NotInstallable, match="given twice"):
        merge_controller(None, "hero", [MOVES[0], MOVES[0]])
    with pytest.raises(NotInstallable, match="left alone"):
        merge_controller("just some text\n", "hero", MOVES)


def unity_project(tmp_path: Path) -> Path:
    root = tmp_path / "game"
    (root / "Assets").mkdir(parents=True)
    (root / "ProjectSettings").mkdir()
    return root


def test_install_makes_then_merges_and_never_overwrites(tmp_path: Path) -> None:
    root = unity_project(tmp_path)
    folder = root / "Assets" / "Characters" / "hero"
    path = install_controller(root, folder, "hero", MOVES)
    assert path == folder / "hero.controller"
    meta = (folder / "hero.controller.meta").read_text()
    assert "NativeFormatImporter:" in meta and "mainObjectFileID: 9100000" in meta
    guid = re.search(r"^guid: ([0-9a-f]{32})$", meta, re.M)
    assert guid
    before = {p: p.read_bytes() for p in folder.iterdir()}
    install_controller(root, folder, "hero", MOVES)  # the same moves: nothing written
    assert {p: p.read_bytes() for p in folder.iterdir()} == before
    # The user edits it in Unity, then a fourth move arrives: merged, meta untouched.
    path.write_text(user_edits(path.read_text()))
    install_controller(root, folder, "hero", [*MOVES, JUMP])
    document = UnityDocument.load_yaml(str(path))
    assert set(base_states(document)) == {"walk", "idle", "attack", "jump"}
    assert "Upper Body" in path.read_text()
    assert (folder / "hero.controller.meta").read_text() == meta
    assert sorted(p.name for p in root.iterdir()) == ["Assets", "ProjectSettings"]  # no scratch


def test_install_refuses_what_is_not_a_controller(tmp_path: Path) -> None:
    root = unity_project(tmp_path)
    folder = root / "Assets" / "hero"
    folder.mkdir()
    (folder / "hero.controller").write_text("my notes\n")
    with pytest.raises(NotInstallable, match="left alone"):
        install_controller(root, folder, "hero", MOVES)
    assert (folder / "hero.controller").read_text() == "my notes\n"
    assert not (folder / "hero.controller.meta").exists()
    with pytest.raises(NotInstallable, match="Assets"):
        install_controller(root, root / "Elsewhere", "hero", MOVES)


def test_install_gives_a_guid_no_other_asset_holds(tmp_path: Path) -> None:
    root = unity_project(tmp_path)
    folder = root / "Assets" / "hero"
    first = install_controller(root, folder, "hero", MOVES)
    guid = re.search(r"^guid: (\w+)$", Path(f"{first}.meta").read_text(), re.M)
    assert guid
    # Another asset copied in with that guid (a duplicated folder, say): a new place
    # must not reuse it.
    (root / "Assets" / "copy.controller.meta").write_text(
        f"fileFormatVersion: 2\nguid: {guid.group(1)}\n"
    )
    other = install_controller(root, root / "Assets" / "copy", "hero", MOVES)
    other_guid = re.search(r"^guid: (\w+)$", Path(f"{other}.meta").read_text(), re.M)
    assert other_guid and other_guid.group(1) != guid.group(1)


# Unity's serialized field -> the API member it is (Unity 6's database, namespace
# UnityEditor.Animations unless said); None where the field is serialization bookkeeping
# with no API member, with why.
FIELDS: dict[str, str | None] = {
    "m_ObjectHideFlags": "Object.hideFlags",
    "m_CorrespondingSourceObject": None,  # prefab bookkeeping on every serialized object
    "m_PrefabInstance": None,
    "m_PrefabAsset": None,
    "serializedVersion": None,  # the format's version, not a member
    "m_Name": "Object.name",
    "Controller.m_AnimatorParameters": "AnimatorController.parameters",
    "Controller.m_AnimatorLayers": "AnimatorController.layers",
    "layer.m_Name": "AnimatorControllerLayer.name",
    "layer.m_StateMachine": "AnimatorControllerLayer.stateMachine",
    "layer.m_Mask": "AnimatorControllerLayer.avatarMask",
    "layer.m_Motions": None,  # synced layers' motions: set through SetOverrideMotion
    "layer.m_Behaviours": None,  # set through SetOverrideBehaviours
    "layer.m_BlendingMode": "AnimatorControllerLayer.blendingMode",
    "layer.m_SyncedLayerIndex": "AnimatorControllerLayer.syncedLayerIndex",
    "layer.m_DefaultWeight": "AnimatorControllerLayer.defaultWeight",
    "layer.m_IKPass": "AnimatorControllerLayer.iKPass",
    "layer.m_SyncedLayerAffectsTiming": "AnimatorControllerLayer.syncedLayerAffectsTiming",
    "layer.m_Controller": None,  # the back reference to the owning controller
    "Machine.m_ChildStates": "AnimatorStateMachine.states",
    "child.m_State": "ChildAnimatorState.state",
    "child.m_Position": "ChildAnimatorState.position",
    "Machine.m_ChildStateMachines": "AnimatorStateMachine.stateMachines",
    "Machine.m_AnyStateTransitions": "AnimatorStateMachine.anyStateTransitions",
    "Machine.m_EntryTransitions": "AnimatorStateMachine.entryTransitions",
    "Machine.m_StateMachineTransitions": None,  # GetStateMachineTransitions()
    "Machine.m_StateMachineBehaviours": "AnimatorStateMachine.behaviours",
    "Machine.m_AnyStatePosition": "AnimatorStateMachine.anyStatePosition",
    "Machine.m_EntryPosition": "AnimatorStateMachine.entryPosition",
    "Machine.m_ExitPosition": "AnimatorStateMachine.exitPosition",
    "Machine.m_ParentStateMachinePosition": "AnimatorStateMachine.parentStateMachinePosition",
    "Machine.m_DefaultState": "AnimatorStateMachine.defaultState",
    "State.m_Speed": "AnimatorState.speed",
    "State.m_CycleOffset": "AnimatorState.cycleOffset",
    "State.m_Transitions": "AnimatorState.transitions",
    "State.m_StateMachineBehaviours": "AnimatorState.behaviours",
    "State.m_Position": None,  # the graph position, kept on ChildAnimatorState in the API
    "State.m_IKOnFeet": "AnimatorState.iKOnFeet",
    "State.m_WriteDefaultValues": "AnimatorState.writeDefaultValues",
    "State.m_Mirror": "AnimatorState.mirror",
    "State.m_SpeedParameterActive": "AnimatorState.speedParameterActive",
    "State.m_MirrorParameterActive": "AnimatorState.mirrorParameterActive",
    "State.m_CycleOffsetParameterActive": "AnimatorState.cycleOffsetParameterActive",
    "State.m_TimeParameterActive": "AnimatorState.timeParameterActive",
    "State.m_Motion": "AnimatorState.motion",
    "State.m_Tag": "AnimatorState.tag",
    "State.m_SpeedParameter": "AnimatorState.speedParameter",
    "State.m_MirrorParameter": "AnimatorState.mirrorParameter",
    "State.m_CycleOffsetParameter": "AnimatorState.cycleOffsetParameter",
    "State.m_TimeParameter": "AnimatorState.timeParameter",
    "Transition.m_Conditions": "AnimatorTransitionBase.conditions",
    "Transition.m_DstStateMachine": "AnimatorTransitionBase.destinationStateMachine",
    "Transition.m_DstState": "AnimatorTransitionBase.destinationState",
    "Transition.m_Solo": "AnimatorTransitionBase.solo",
    "Transition.m_Mute": "AnimatorTransitionBase.mute",
    "Transition.m_IsExit": "AnimatorTransitionBase.isExit",
    "Transition.m_TransitionDuration": "AnimatorStateTransition.duration",
    "Transition.m_TransitionOffset": "AnimatorStateTransition.offset",
    "Transition.m_ExitTime": "AnimatorStateTransition.exitTime",
    "Transition.m_HasExitTime": "AnimatorStateTransition.hasExitTime",
    "Transition.m_HasFixedDuration": "AnimatorStateTransition.hasFixedDuration",
    "Transition.m_InterruptionSource": "AnimatorStateTransition.interruptionSource",
    "Transition.m_OrderedInterruption": "AnimatorStateTransition.orderedInterruption",
    "Transition.m_CanTransitionToSelf": "AnimatorStateTransition.canTransitionToSelf",
}
NESTED = {"m_AnimatorLayers": "layer", "m_ChildStates": "child"}
SHORT = {
    "AnimatorController": "Controller",
    "AnimatorStateMachine": "Machine",
    "AnimatorState": "State",
    "AnimatorStateTransition": "Transition",
}


def api_name(member: str) -> str:
    return ("UnityEngine." if member.startswith("Object.") else "UnityEditor.Animations.") + member


def written_fields(text: str) -> set[str]:
    """Class.field for each document's top-level field, nested.field for list items."""
    found: set[str] = set()
    kind, nested = "", ""
    for line in text.splitlines():
        if re.match(r"^[A-Za-z]+:$", line):
            kind = SHORT[line[:-1]]
        elif m := re.match(r"^  (\w+):", line):
            found.add(f"{kind}.{m.group(1)}")
            nested = NESTED.get(m.group(1), "")
        elif nested and (m := re.match(r"^  [- ] (\w+):", line)):
            found.add(f"{nested}.{m.group(1)}")
    return found


def test_the_meta_fields_are_unitys() -> None:
    # NativeFormatImporter is internal (no API entry): it is what Unity writes in the meta
    # of every native asset (.controller, .anim), with mainObjectFileID the main object.
    meta = controller_meta("0" * 32)
    with sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True) as db:
        known = {fqn for (fqn,) in db.execute("SELECT fqn FROM api_records")}
    for key in ("userData", "assetBundleName", "assetBundleVariant"):
        assert f"  {key}: " in meta and f"UnityEditor.AssetImporter.{key}" in known, key


def test_every_class_and_field_written_is_unitys() -> None:
    text = merge_controller(None, "hero", MOVES)
    with sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True) as db:
        known = {fqn.split("(", 1)[0] for (fqn,) in db.execute("SELECT fqn FROM api_records")}
    for kind in re.findall(r"^([A-Za-z]+):$", text, re.M):
        assert api_name(kind) in known, kind
    for written in sorted(written_fields(text)):
        short = written.split(".", 1)[1]
        key = written if written in FIELDS else short
        assert key in FIELDS, f"{written} is not mapped to Unity's API"
        member = FIELDS[key]
        assert member is None or api_name(member) in known, f"{written}: {member} is not Unity's"
