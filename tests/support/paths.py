"""Where the tests find the project and their own files, wherever a test module sits."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUPPORT = REPO / "tests" / "support"
