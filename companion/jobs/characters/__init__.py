"""A character: one picture, several moves, priced as one set and wired into the
character's own engine files."""
