"""Operand notations met on real napkin text, rewritten before tokenising.

``1920x1080`` is a product, ``7B INT4 = 3.5 GB`` is ``7B × 0.5 bytes``, ``(2MB each)``
after a count multiplies and ``each`` before a result says nothing
(docs/napkin.md, "Silent when unsure", stage 2).
"""

from __future__ import annotations

import re

__all__ = ["rewrite_operands"]

_GLUED_PRODUCT = re.compile(r"(?<![\w.,])\d+(?:x\d+)+(?![\w.,])")
"""``3840x2160x3``, ``1920x1080``: whole numbers glued by ``x`` are a product (dimensions);
``8x22B`` (a suffix) stays a name."""
_DIGIT_X_DIGIT = re.compile(r"\dx\d")
"""What every glued product holds (a cheap test: most lines with an "x" have it in words)."""
_DTYPE_BYTES = {"FP32": "4", "FP16": "2", "BF16": "2", "FP8": "1", "INT8": "1", "INT4": "0.5"}
_DTYPE_BITS = {"32": "4", "16": "2", "8": "1", "4": "0.5"}
_DTYPE_SIZE = re.compile(
    r"(?:(?<=[\d)])|(?<=\d[KMBT]))(\s+(?:params?|parameters?)\s+(?:at|in)|\s+(?:at|in))?\s+"
    r"(?:(?P<dtype>FP32|FP16|BF16|FP8|INT8|INT4)|(?P<bits>32|16|8|4)-bit)"
    r"(?P<label>\s+(?:params?|parameters?|weights?|model))?"
    r"(?=\s*=\s*~?\s*\d[\d.,]*\s*[KMGT]?i?B\b)"
)
"""``7B INT4 = 3.5 GB``, ``10B parameters at FP16 = 20 GB``: a count then its number
format, equated to bytes, is the count times the format's bytes."""
_EACH_GROUP = re.compile(r"\(\s*([~$]*\d[\d.,]*\s*[A-Za-z/]*)\s+each\s*\)")
"""``1024 images (1MB each)``: the price or size of each counted thing multiplies."""
_EACH = re.compile(r"(?<=[\dA-Za-z])\s+each\b(?=\s*[=≈~])")
"""``@ ~$2k each = $20M``: "each" before the result only says the value is per thing."""


def _dtype_size(match: re.Match[str]) -> str:
    """A number format after a count as its size: ``7B INT4`` is ``7B × 0.5 bytes``."""
    size = _DTYPE_BYTES[match["dtype"]] if match["dtype"] else _DTYPE_BITS[match["bits"]]
    return f" × {size} bytes"


def _glued_product(match: re.Match[str]) -> str:
    """``1920x1080`` as ``1920 × 1080``, in parentheses after a division sign."""
    product = match.group(0).replace("x", " × ")
    if match.string[: match.start()].rstrip().endswith(("/", "÷")):
        return f"({product})"
    return product


def rewrite_operands(text: str) -> str:
    """``text`` with glued products, number-format sizes and ``each`` rewritten."""
    if "each" in text:
        text = _EACH.sub("", _EACH_GROUP.sub(r"× \1", text))
    if "x" in text and _DIGIT_X_DIGIT.search(text):
        text = _GLUED_PRODUCT.sub(_glued_product, text)
    if "=" in text and ("FP" in text or "INT" in text or "BF" in text or "-bit" in text):
        text = _DTYPE_SIZE.sub(_dtype_size, text)
    return text
