"""Persistence through SQLAlchemy (SQLite or PostgreSQL) and the compiled vault database."""
