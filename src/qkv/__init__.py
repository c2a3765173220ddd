"""qkv-kit: an auto-graded exercise and quiz kit on how attention works."""

__version__ = "0.1.0"
