"""Reading and writing files safely: atomic replacement, encodings, BOMs and line endings kept."""
