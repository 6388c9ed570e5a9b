"""Unit-aware napkin-math parser and claim checker, calculators and hardware data."""
