"""Importers and exporters: seed text formats, StaffML, Anki, CSV, JSON, Markdown."""
