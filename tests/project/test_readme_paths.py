"""Every file of the checkout the README and the documentation pages name is there, under
the name they give."""

from __future__ import annotations

import re

from tests.support.paths import REPO

ROOT = REPO
# A path written in backticks that ends in a source or document suffix: a file of the
# checkout (paths inside a user's project, such as res:// or Assets/, end otherwise).
NAMED = re.compile(r"`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.(?:py|gd|cs|md|json|toml|sql))`")


def test_every_source_path_the_readme_and_the_docs_name_exists() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    named = sorted(set(NAMED.findall(text)))
    # Files in the companion's home or in a user's project, not in the checkout.
    elsewhere = ("COMPANION_HOME/", "Packages/", "MYGAME/", "PROJECT/")  # not ours
    missing = [p for p in named if not p.startswith(elsewhere) and not (ROOT / p).exists()]
    assert named and missing == [], missing
