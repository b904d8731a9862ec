"""Rule packs as objects: the library of a rules folder, each pack loaded and compiled once, cached by content hash."""
