"""`companion character` into a Unity project: each move's clip loops as the move does;
hero.controller, read by unityparser (a Unity YAML reader that is not ours), has one
state per move, each playing its clip's guid, idle the default; a transition the user
added survives a fourth move, which pays only for itself (the controller part runs where
its writer is installed)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from unityparser import UnityDocument

from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from tests.support.cli import companion
from tests.support.paid import creates

pytestmark = pytest.mark.slow

MOVES = ["--move", "walk=walk cycle", "--move", "idle=idle breathing", "--move", "attack=slash"]
SHORT = ["--seconds", "1", "--resolution", "360p", "--frame-count", "4"]
# A transition the user adds in Unity's Animator window, from idle to attack.
TRANSITION = """--- !u!1101 &-777
AnimatorStateTransition:
  m_ObjectHideFlags: 1
  m_CorrespondingSourceObject: {{fileID: 0}}
  m_PrefabInstance: {{fileID: 0}}
  m_PrefabAsset: {{fileID: 0}}
  m_Name:
  m_Conditions: []
  m_DstStateMachine: {{fileID: 0}}
  m_DstState: {{fileID: {attack}}}
  m_Solo: 0
  m_Mute: 0
  m_IsExit: 0
  serializedVersion: 3
  m_TransitionDuration: 0.25
  m_TransitionOffset: 0
  m_ExitTime: 0.75
  m_HasExitTime: 1
  m_HasFixedDuration: 1
  m_InterruptionSource: 0
  m_OrderedInterruption: 1
  m_CanTransitionToSelf: 1
"""


def _states(path: Path) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    """The base layer's states by name, its state machine, and every entry by id."""
    document = UnityDocument.load_yaml(str(path))
    by_id = {e.anchor: e for e in document.entries}
    (controller,) = [e for e in document.entries if type(e).__name__ == "AnimatorController"]
    machine = by_id[controller.m_AnimatorLayers[0]["m_StateMachine"]["fileID"]]
    states = {
        by_id[c["m_State"]["fileID"]].m_Name: by_id[c["m_State"]["fileID"]]
        for c in machine.m_ChildStates
    }
    return states, machine, by_id


def _guid(clip: Path) -> str:
    found = re.search(
        r"^guid: ([0-9a-f]{32})$", (clip.parent / (clip.name + ".meta")).read_text(), re.M
    )
    assert found, clip
    return found.group(1)


def test_a_character_gets_its_animator_controller(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.3, journal=True)
    project = tmp_path / "unity"
    (project / "ProjectSettings").mkdir(parents=True)
    out = project / "Assets" / "Animations"
    out.mkdir(parents=True)
    draw_character(64).save(project / "Assets" / "hero.png")

    def character(*moves: str) -> dict[str, Any]:
        ran = companion(
            sandbox.base_url, tmp_path / "home", "character", str(project / "Assets" / "hero.png"),
            *moves, *SHORT, "--out", str(out), "--json",
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        said: dict[str, Any] = json.loads(ran.stdout)
        return said

    character(*MOVES)
    assert len(creates(sandbox)) == 3
    # Each move's clip loops as the move does: the attack plays once.
    loops = {m: (out / f"hero_{m}.anim").read_text() for m in ("walk", "idle", "attack")}
    assert {m: "m_LoopTime: 1" in text for m, text in loops.items()} == {
        "walk": True, "idle": True, "attack": False
    }  # fmt: skip
    controller = out / "hero.controller"
    states, machine, _ = _states(controller)
    assert set(states) == {"walk", "idle", "attack"}
    for move, state in states.items():
        assert state.m_Motion["guid"] == _guid(out / f"hero_{move}.anim"), move
    assert machine.m_DefaultState["fileID"] == states["idle"].anchor  # not the first made

    # The user adds a transition from idle to attack in the Animator window.
    text = controller.read_text()
    idle = text.index(f"&{states['idle'].anchor}\nAnimatorState:")
    at = text.index("  m_Transitions: []\n", idle)
    text = text[:at] + "  m_Transitions:\n  - {fileID: -777}\n" + text[at + 20 :]
    controller.write_text(text + TRANSITION.format(attack=states["attack"].anchor))

    fourth = character(*MOVES, "--move", "jump=jump up")
    assert [m["quoted"] > 0 for m in fourth["moves"]] == [False, False, False, True]
    assert len(creates(sandbox)) == 4
    states, machine, by_id = _states(controller)
    assert set(states) == {"walk", "idle", "attack", "jump"}
    assert states["jump"].m_Motion["guid"] == _guid(out / "hero_jump.anim")
    assert states["idle"].m_Transitions == [{"fileID": "-777"}]
    assert by_id["-777"].m_DstState["fileID"] == states["attack"].anchor
    assert machine.m_DefaultState["fileID"] == states["idle"].anchor
