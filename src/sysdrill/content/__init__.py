"""Pydantic models of items, decks, chains and taxonomy; YAML vault loading."""
