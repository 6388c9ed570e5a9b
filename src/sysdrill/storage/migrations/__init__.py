"""Alembic migrations of the study database, applied in order when a store opens."""
