"""What keeps an install safe: archives extracted defensively, names from outside cleaned
and confined, plain files only, and nothing the user made replaced unasked."""
