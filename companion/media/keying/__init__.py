"""Transparency from a keyed video: the key colour chosen, the chroma key, and the rim
un-mixed against the character's own colours."""
