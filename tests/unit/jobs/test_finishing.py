"""The local finishing as one typed model: what a body, a drop and the flags say, what a
request keeps in its local_export, and the sides under the service's 64 px."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from companion.jobs import Finishing


def test_said_kept_and_on() -> None:
    said = Finishing(in_place=False, loop=True)
    assert said.asked() == {"in_place": False, "loop": True}  # trim left open
    assert said.switches() == {"in_place": False, "loop": True, "trim": False,
                               "pixel_art": False}  # fmt: skip
    assert said.on() == {"loop": True}
    # A local_export keeps the switches on; a re-cut's options may say None (left open).
    local = {"loop": True, "trim": None, "pixel_art": True, "frame_size": [32, 32]}
    assert Finishing.kept(local) == Finishing(loop=True, pixel_art=True)
    assert Finishing.kept({}) == Finishing()


def test_small_sides() -> None:
    assert Finishing().small() is None
    assert Finishing(frame_width=32).small() == (32, None)
    for side in (15, 64):
        with pytest.raises(ValidationError):
            Finishing(frame_height=side)


def test_the_finishing_alone_of_a_model_made_of_it() -> None:
    class Settings(Finishing):
        name: str = ""

    settings = Settings(name="hero", trim=False, frame_width=32)
    assert settings.finishing() == Finishing(trim=False, frame_width=32)
    assert type(settings.finishing()) is Finishing
