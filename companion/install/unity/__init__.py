"""Unity installs: files under Assets/ with their metas, a character's Animator
Controller, the user's edits carried through a re-install."""
