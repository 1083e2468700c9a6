"""A character's Unity Animator Controller: `NAME.controller`, one state per move, each
playing its clip; made once, then the user's.

Made fresh it holds the AnimatorController (one layer, "Base Layer"), that layer's
AnimatorStateMachine and an AnimatorState per move whose m_Motion is the move's clip
(`{fileID: 7400000, guid: CLIP, type: 2}`: an .anim asset's main object), with idle the
default state, else the first move. A move that plays once gets an exit-time transition
back to the default state, so an attack returns to idle instead of freezing on its last
frame.

Given the user's controller it only ADDS: a state for each move the base layer does not
play yet (no state of that name, and none already playing that clip, so a state the user
renamed is not made twice), listed in that layer's state machine, and a default state
only where the machine has none. Their transitions, parameters, layers, states and
settings are left byte for byte: the new documents are appended and two lines of the state
machine are touched. The same moves again give the same text.

fileIDs are derived from the controller's name and the move's, and stepped past any the
file already uses, so they are unique in the file and stable across runs. Unity's YAML is
read line by line, as anim_merge does: two-space indents, a list's items at the indent of
their key."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from companion.install.errors import NotInstallable
from companion.media.formats.common import stable_int64

HEADER = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n"
CONTROLLER_ID = 9100000  # the main object of a .controller, as Unity numbers it
CLIP_ID = 7400000  # an .anim's main object: the AnimationClip
CONTROLLER, STATE, MACHINE, TRANSITION = 91, 1102, 1107, 1101  # Unity's class ids
DOCUMENT = re.compile(r"^--- !u!(\d+) &(-?\d+)(?: stripped)?$", re.M)
FILE_ID = re.compile(r"\{fileID: (-?\d+)")
GUID = re.compile(r"^[0-9a-f]{32}$")
PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_ .()\-]*$")
OBJECT = (
    "  m_ObjectHideFlags: {flags}\n"
    "  m_CorrespondingSourceObject: {{fileID: 0}}\n"
    "  m_PrefabInstance: {{fileID: 0}}\n"
    "  m_PrefabAsset: {{fileID: 0}}\n"
)


@dataclass(frozen=True)
class ControllerMove:
    """One move of a character: its state's name, its clip's guid, whether it loops."""

    name: str
    clip_guid: str
    loop: bool


def merge_controller(existing: str | None, name: str, moves: Sequence[ControllerMove]) -> str:
    """The controller's YAML: made from moves when existing is None, else existing with a
    state added for each move it does not play yet (existing itself when there is none)."""
    _check(name, moves)
    if existing is None:
        return _fresh(name, moves)
    return _add(existing, name, moves)


def _check(name: str, moves: Sequence[ControllerMove]) -> None:
    if not name.strip() or "\n" in name:
        raise NotInstallable(f"controller name {name!r}: give a one-line, non-empty name")
    if not moves:
        raise NotInstallable("moves: give at least one move for the controller")
    seen: set[str] = set()
    for move in moves:
        if not move.name.strip() or "\n" in move.name:
            raise NotInstallable(f"move name {move.name!r}: give a one-line, non-empty name")
        if move.name in seen:
            raise NotInstallable(f"move {move.name!r} is given twice: give each move once")
        seen.add(move.name)
        if not GUID.match(move.clip_guid):
            raise NotInstallable(
                f"move {move.name!r}: clip_guid {move.clip_guid!r} is not a Unity guid "
                "(32 lowercase hex digits, as in the clip's .meta)"
            )


def _scalar(text: str) -> str:
    """A name as Unity writes it: plain when YAML allows, else single-quoted."""
    if PLAIN.match(text) and text == text.strip():
        return text
    return "'" + text.replace("'", "''") + "'"


def _unscalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def _default_move(moves: Sequence[ControllerMove]) -> ControllerMove:
    return next((m for m in moves if m.name.lower() == "idle"), moves[0])


class _Ids:
    """fileIDs derived from names, stepped past every one already in the file."""

    def __init__(self, name: str, used: set[int]) -> None:
        self.name, self.used = name, used

    def new(self, *parts: str) -> int:
        for step in range(1000):
            candidate = stable_int64("unity-controller", self.name, *parts, str(step))
            if candidate not in self.used and candidate not in (CONTROLLER_ID, CLIP_ID):
                self.used.add(candidate)
                return candidate
        raise NotInstallable(f"{self.name}.controller: no free fileID for {parts}")


def _state(file_id: int, move: ControllerMove, transition: int | None) -> str:
    transitions = f"\n  - {{fileID: {transition}}}" if transition is not None else " []"
    return (
        f"--- !u!{STATE} &{file_id}\nAnimatorState:\n  serializedVersion: 6\n"
        + OBJECT.format(flags=1)
        + f"  m_Name: {_scalar(move.name)}\n  m_Speed: 1\n  m_CycleOffset: 0\n"
        f"  m_Transitions:{transitions}\n  m_StateMachineBehaviours: []\n"
        "  m_Position: {x: 50, y: 50, z: 0}\n  m_IKOnFeet: 0\n  m_WriteDefaultValues: 1\n"
        "  m_Mirror: 0\n  m_SpeedParameterActive: 0\n  m_MirrorParameterActive: 0\n"
        "  m_CycleOffsetParameterActive: 0\n  m_TimeParameterActive: 0\n"
        f"  m_Motion: {{fileID: {CLIP_ID}, guid: {move.clip_guid}, type: 2}}\n"
        "  m_Tag: \n  m_SpeedParameter: \n  m_MirrorParameter: \n"
        "  m_CycleOffsetParameter: \n  m_TimeParameter: \n"
    )


def _back_to(file_id: int, destination: int) -> str:
    """A one-shot move's way home: at the clip's end, straight to destination."""
    return (
        f"--- !u!{TRANSITION} &{file_id}\nAnimatorStateTransition:\n"
        + OBJECT.format(flags=1)
        + "  m_Name: \n  m_Conditions: []\n  m_DstStateMachine: {fileID: 0}\n"
        f"  m_DstState: {{fileID: {destination}}}\n  m_Solo: 0\n  m_Mute: 0\n  m_IsExit: 0\n"
        "  serializedVersion: 3\n  m_TransitionDuration: 0\n  m_TransitionOffset: 0\n"
        "  m_ExitTime: 1\n  m_HasExitTime: 1\n  m_HasFixedDuration: 1\n"
        "  m_InterruptionSource: 0\n  m_OrderedInterruption: 1\n  m_CanTransitionToSelf: 1\n"
    )


def _child(state: int, index: int) -> str:
    # A column beside Entry, one row per move, so the graph opens readable.
    return (
        f"  - serializedVersion: 1\n    m_State: {{fileID: {state}}}\n"
        f"    m_Position: {{x: 300, y: {index * 70}, z: 0}}\n"
    )


def _new_states(
    ids: _Ids, moves: Sequence[ControllerMove], default: int | None, first_row: int
) -> tuple[list[str], list[str], dict[str, int]]:
    """The documents and child-state entries for moves, and each move's state id."""
    states = {m.name: ids.new("state", m.name) for m in moves}
    home = default if default is not None else states[_default_move(moves).name]
    documents, children = [], []
    for row, move in enumerate(moves, start=first_row):
        transition = None
        if not move.loop and states[move.name] != home:
            transition = ids.new("transition", move.name)
        documents.append(_state(states[move.name], move, transition))
        if transition is not None:
            documents.append(_back_to(transition, home))
        children.append(_child(states[move.name], row))
    return documents, children, states


def _fresh(name: str, moves: Sequence[ControllerMove]) -> str:
    ids = _Ids(name, set())
    machine = ids.new("state machine")
    documents, children, states = _new_states(ids, moves, None, 0)
    default = states[_default_move(moves).name]
    controller = (
        f"--- !u!{CONTROLLER} &{CONTROLLER_ID}\nAnimatorController:\n"
        + OBJECT.format(flags=0)
        + f"  m_Name: {_scalar(name)}\n  serializedVersion: 5\n  m_AnimatorParameters: []\n"
        "  m_AnimatorLayers:\n  - serializedVersion: 5\n    m_Name: Base Layer\n"
        f"    m_StateMachine: {{fileID: {machine}}}\n    m_Mask: {{fileID: 0}}\n"
        "    m_Motions: []\n    m_Behaviours: []\n    m_BlendingMode: 0\n"
        "    m_SyncedLayerIndex: -1\n    m_DefaultWeight: 0\n    m_IKPass: 0\n"
        f"    m_SyncedLayerAffectsTiming: 0\n    m_Controller: {{fileID: {CONTROLLER_ID}}}\n"
    )
    state_machine = (
        f"--- !u!{MACHINE} &{machine}\nAnimatorStateMachine:\n  serializedVersion: 6\n"
        + OBJECT.format(flags=1)
        + "  m_Name: Base Layer\n  m_ChildStates:\n"
        + "".join(children)
        + "  m_ChildStateMachines: []\n  m_AnyStateTransitions: []\n"
        "  m_EntryTransitions: []\n  m_StateMachineTransitions: {}\n"
        "  m_StateMachineBehaviours: []\n  m_AnyStatePosition: {x: 50, y: 20, z: 0}\n"
        "  m_EntryPosition: {x: 50, y: 120, z: 0}\n  m_ExitPosition: {x: 800, y: 120, z: 0}\n"
        "  m_ParentStateMachinePosition: {x: 800, y: 20, z: 0}\n"
        f"  m_DefaultState: {{fileID: {default}}}\n"
    )
    return HEADER + controller + state_machine + "".join(documents)


# -- adding to the user's controller ------------------------------------------------------


@dataclass
class _Document:
    class_id: int
    file_id: int
    start: int  # offset of its `--- !u!` line in the text
    end: int

    def body(self, text: str) -> str:
        return text[self.start : self.end]


def _documents(text: str) -> list[_Document]:
    heads = list(DOCUMENT.finditer(text))
    return [
        _Document(int(h.group(1)), int(h.group(2)), h.start(), nxt.start() if nxt else len(text))
        for h, nxt in zip(heads, [*heads[1:], None], strict=False)
    ]


def _field(body: str, key: str, indent: int = 2) -> str | None:
    match = re.search(rf"^{' ' * indent}{key}:(.*)$", body, re.M)
    return None if match is None else match.group(1)


def _block(body: str, key: str) -> list[str]:
    """The lines of a top-level list `key:` (its items at indent 2, `- ` first)."""
    lines = body.split("\n")
    head = next((i for i, line in enumerate(lines) if line.startswith(f"  {key}:")), None)
    if head is None:
        return []
    found = []
    for line in lines[head + 1 :]:
        if not (line.startswith("  - ") or line.startswith("    ")):
            break
        found.append(line)
    return found


def _refs(lines: list[str], key: str) -> list[int]:
    return [int(m.group(1)) for line in lines if key in line for m in [FILE_ID.search(line)] if m]


def _unreadable(name: str, why: str) -> NotInstallable:
    return NotInstallable(
        f"{name}.controller: {why}; it is left alone (rename or move it and run again to "
        "have a new controller made)"
    )


def _played(
    text: str, by_id: dict[int, _Document], machine: int, seen: set[int]
) -> tuple[set[str], set[str]]:
    """The state names and clip guids a state machine (and those inside it) plays."""
    names: set[str] = set()
    guids: set[str] = set()
    doc = by_id.get(machine)
    if doc is None or doc.class_id != MACHINE or machine in seen:
        return names, guids
    seen.add(machine)
    body = doc.body(text)
    for state_id in _refs(_block(body, "m_ChildStates"), "m_State:"):
        state = by_id.get(state_id)
        if state is None:
            continue
        state_body = state.body(text)
        names.add(_unscalar(_field(state_body, "m_Name") or ""))
        motion = re.search(r"guid: ([0-9a-fA-F]{32})", _field(state_body, "m_Motion") or "")
        if motion:
            guids.add(motion.group(1).lower())
    for inner in _refs(_block(body, "m_ChildStateMachines"), "m_StateMachine:"):
        more_names, more_guids = _played(text, by_id, inner, seen)
        names |= more_names
        guids |= more_guids
    return names, guids


def _add(existing: str, name: str, moves: Sequence[ControllerMove]) -> str:
    text = existing.replace("\r\n", "\n")
    documents = _documents(text)
    by_id = {d.file_id: d for d in documents}
    controller = next((d for d in documents if d.class_id == CONTROLLER), None)
    if controller is None:
        raise _unreadable(name, "it holds no AnimatorController")
    layers = _block(controller.body(text), "m_AnimatorLayers")
    machines = _refs(layers, "m_StateMachine:")
    if not machines or by_id.get(machines[0]) is None or by_id[machines[0]].class_id != MACHINE:
        raise _unreadable(name, "its first layer has no state machine")
    machine = by_id[machines[0]]
    names, guids = _played(text, by_id, machine.file_id, set())
    wanted = [m for m in moves if m.name not in names and m.clip_guid not in guids]
    if not wanted:
        return existing
    body = machine.body(text)
    if not re.search(r"^  m_ChildStates:", body, re.M):
        raise _unreadable(name, "its base layer's state machine lists no m_ChildStates")
    default_line = _field(body, "m_DefaultState")
    default_ref = FILE_ID.search(default_line or "")
    default = int(default_ref.group(1)) if default_ref and default_ref.group(1) != "0" else None
    ids = _Ids(name, {d.file_id for d in documents})
    rows = len(_refs(_block(body, "m_ChildStates"), "m_State:"))
    added, children, states = _new_states(ids, wanted, default, rows)
    body = _with_children(body, children)
    if default is None and default_line is not None:
        body = body.replace(
            f"  m_DefaultState:{default_line}\n",
            f"  m_DefaultState: {{fileID: {states[_default_move(wanted).name]}}}\n",
            1,
        )
    text = text[: machine.start] + body + text[machine.end :]
    return text + ("" if text.endswith("\n") else "\n") + "".join(added)


def _with_children(body: str, children: list[str]) -> str:
    if re.search(r"^  m_ChildStates: \[\]$", body, re.M):
        return re.sub(
            r"^  m_ChildStates: \[\]\n",
            lambda _: "  m_ChildStates:\n" + "".join(children),
            body,
            count=1,
            flags=re.M,
        )
    present = _block(body, "m_ChildStates")
    head = body.index("  m_ChildStates:")
    after = body.index("\n", head) + 1
    end = after + sum(len(line) + 1 for line in present)
    return body[:end] + "".join(children) + body[end:]
