"""The command line names configuration mistakes with their fix (exit 2, before any
request), guesses the format meant, never claims a charge it did not make, and tells a
job held by a budget from one that failed."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from tests.support.calls import Api
from tests.support.cli import companion, environment, in_process
from tests.support.sandbox import listed

SMALL = ["--frame-count", "4", "--width", "64", "--height", "64"]
SHORT = ["--seconds", "1", "--resolution", "360p"]


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return in_process(args, env)


def _calls(sandbox: SandboxThread) -> int:
    api = Api(sandbox.base_url)
    return len(listed(api, "animations")) + len(listed(api, "video-generations"))


@pytest.mark.parametrize(
    "address,fix",
    [
        ("{root}", "must end with the API version /v1: use {root}/v1"),
        ("{root}/", "use {root}/v1"),
        ("{hostport}/v1", "no http:// or https:// scheme; give the whole address, e.g. https://"),
    ],
)
def test_a_wrong_service_address_is_a_usage_error_naming_the_fix(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path, address: str, fix: str
) -> None:
    sandbox = make_sandbox()
    root = sandbox.base_url.removesuffix("/v1")
    values = {"root": root, "hostport": root.removeprefix("http://")}
    env = environment(address.format(**values), tmp_path / "home")
    for command in (["credits"], ["serve", "--port", "0"]):
        result = _run(env, *command)
        assert result.returncode == 2, result.stderr
        assert fix.format(**values) in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1


def test_an_address_without_a_key_is_a_usage_error_not_the_sandbox(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    env = environment(sandbox.base_url, tmp_path / "home")
    del env["COMPANION_API_KEY"]
    result = _run(env, "credits")
    assert result.returncode == 2, result.stderr
    assert "no API key is set: set COMPANION_API_KEY" in result.stderr
    assert "embedded sandbox" in result.stderr  # how to get it, if that was meant
    assert not (tmp_path / "home" / "sandbox").exists()


@pytest.mark.parametrize(
    "given,meant",
    [
        ("godot", "godot_pack"),
        ("spritesheat", "spritesheet"),
        ("unity", "unity_meta or unity_pack"),
        ("png", "spritesheet or frames_zip"),  # a format named by its file type
        ("webm", "webm_alpha"),
        ("godot,png", "godot_pack for 'godot'; spritesheet or frames_zip for 'png'"),
    ],
)
def test_a_format_name_gets_a_did_you_mean(tmp_path: Path, given: str, meant: str) -> None:
    draw_character(64).save(tmp_path / "hero.png")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env["COMPANION_HOME"] = str(tmp_path / "home")
    result = _run(
        env, "animate", str(tmp_path / "hero.png"), "--prompt", "idle",
        "--formats", f"gif,{given}", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert f"did you mean {meant}?" in result.stderr


@pytest.mark.slow
def test_a_run_that_spends_nothing_says_so(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    draw_character(64).save(tmp_path / "hero.png")
    args = ["animate", str(tmp_path / "hero.png"), "--prompt", "idle", "--formats", "gif"]
    args += [*SMALL, *SHORT, "--out", str(tmp_path / "out")]
    first = companion(sandbox.base_url, tmp_path / "home", *args)
    assert first.returncode == 0, first.stderr
    assert "; charged " in first.stderr
    again = companion(sandbox.base_url, tmp_path / "home", *args)
    assert again.returncode == 0, again.stderr
    assert "already made" in again.stderr
    assert "charged" not in again.stderr and "nothing spent by this run" in again.stderr
    assert _calls(sandbox) == 1


@pytest.mark.slow
def test_a_job_held_by_a_budget_waits_for_approval_and_names_the_command(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("budgets:\n  per_job: 1\n")
    draw_character(64).save(tmp_path / "hero.png")
    args = ["animate", str(tmp_path / "hero.png"), "--prompt", "idle", "--formats", "gif"]
    args += [*SMALL, *SHORT, "--out", str(tmp_path / "out")]
    held = companion(sandbox.base_url, home, *args)
    assert held.returncode == 4, held.stderr
    last = held.stderr.strip().splitlines()[-1]
    assert last.startswith("companion: waiting for approval: job ")
    assert "nothing was spent" in last and "error" not in last
    approve = last.split("Approve it with: ")[1].split(" (")[0]
    assert approve.startswith("companion jobs approve ")
    assert _calls(sandbox) == 0
    # It says what approving does: that command pays and writes the outputs itself.
    assert f"writes its outputs to {tmp_path / 'out'}" in last and "no need to run" in last
    approved = companion(sandbox.base_url, home, *approve.split()[1:])
    assert approved.returncode == 0, approved.stderr
    assert (tmp_path / "out" / "hero.gif").exists() and _calls(sandbox) == 1
    done = companion(sandbox.base_url, home, *args)  # only reports what was made
    assert done.returncode == 0 and "already made" in done.stderr, done.stderr
    assert _calls(sandbox) == 1


@pytest.mark.parametrize(
    "args,said",
    [
        (
            ["animate", "x.png", "--promt", "walk", "--formats", "gif", "--out", "o"],
            "--promt is not a flag of companion animate (did you mean --prompt?)",
        ),
        (
            ["jobs", "add", "x.png", "--prompt", "x", "--formats", "gif", "--targt", "o"],
            "--targt is not a flag of companion jobs add (did you mean --target?)",
        ),
        (  # a flag's unique start is the flag, as argparse reads it: what is missing is said
            ["animate", "x.png", "--prom", "walk", "--formats", "gif"],
            "the following arguments are required: --out",
        ),
    ],
)
def test_a_mistyped_flag_is_named_with_the_flag_meant(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    from companion.cli.main import main

    with pytest.raises(SystemExit) as ended:
        main(args)  # not sys.argv: the arguments given are the ones read
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert err.count("companion: error:") == 1 and said in err, err
