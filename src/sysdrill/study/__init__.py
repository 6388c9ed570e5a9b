"""Scheduling with FSRS, practice sessions, grading and progress."""
