"""Ordered migration scripts; an applied migration is never edited."""
