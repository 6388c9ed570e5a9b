"""Number formats people type for tensors (``bf16``, ``fp8``, ``int8``...) and their sizes.

One closed set for every calculator that stores or moves tensors, read with the
spellings found in framework configs (``bfloat16``, ``half``, ``float32``,
``e4m3``) so ``--kv-dtype bfloat16`` and ``--kv-dtype bf16`` mean the same.
"""

from __future__ import annotations

from enum import Enum

from sysdrill.napkin.calculators._quantity import Quantity, quantity

__all__ = ["DType", "bytes_per_element"]


class DType(Enum):
    """A tensor element format."""

    FP32 = "fp32"
    TF32 = "tf32"
    """Stored in 32 bits; only the tensor-core multiply rounds to a 10-bit mantissa."""
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"

    @classmethod
    def _missing_(cls, value: object) -> DType | None:
        if not isinstance(value, str):
            return None
        spelled = value.strip().lower().replace("-", "").replace("_", "")
        canonical = {member.value: member for member in cls}
        return canonical.get(spelled) or _ALIASES.get(spelled)


_ALIASES: dict[str, DType] = {
    "float32": DType.FP32,
    "single": DType.FP32,
    "float": DType.FP32,
    "tensorfloat32": DType.TF32,
    "bfloat16": DType.BF16,
    "float16": DType.FP16,
    "half": DType.FP16,
    "fp8e4m3": DType.FP8,
    "fp8e5m2": DType.FP8,
    "e4m3": DType.FP8,
    "e5m2": DType.FP8,
    "float8": DType.FP8,
    "uint8": DType.INT8,
    "uint4": DType.INT4,
}

_BITS: dict[DType, int] = {
    DType.FP32: 32,
    DType.TF32: 32,
    DType.BF16: 16,
    DType.FP16: 16,
    DType.FP8: 8,
    DType.INT8: 8,
    DType.INT4: 4,
}


def bytes_per_element(dtype: DType) -> Quantity:
    """Storage size of one element (byte).

    fp32 and tf32 4, bf16 and fp16 2, fp8 and int8 1, int4 0.5.
    """
    return quantity(_BITS[dtype] / 8, "byte")
