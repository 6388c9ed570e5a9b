"""sysdrill: drill ML-systems interview questions with verified napkin math."""

__version__ = "0.1.0"

__all__ = ["__version__"]
