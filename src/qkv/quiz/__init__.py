"""Quizzes: the master, question kinds, per-student variants, reading and grading answers, rendering."""
