"""Notebooks: reading a submitted one, building the released one from the story and the reference."""
