"""Field types the request schemas share: a folder named relative to a project, checked
by the engine-file serializer's rules before any job exists (so the 400 names the
field, never a 500 from the file system or a broken .tres later)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, StringConstraints

from companion.media import folder_text_refusal


def _folder(text: str) -> str:
    refusal = folder_text_refusal(text)
    if refusal is not None:
        raise ValueError(refusal)
    return text


Folder = Annotated[str, StringConstraints(max_length=1024), AfterValidator(_folder)]
