"""Exporters: a vault out to Anki (``.apkg`` and text), CSV, StaffML JSON and Markdown.

``export_vault`` is the one entry point; the formats live in their own
modules and are imported only when used.
"""

from __future__ import annotations

from sysdrill.interop.export.cards import ExportedItem
from sysdrill.interop.export.service import (
    ExportFilters,
    ExportFormat,
    ExportReport,
    export_vault,
)

__all__ = ["ExportFilters", "ExportFormat", "ExportReport", "ExportedItem", "export_vault"]
