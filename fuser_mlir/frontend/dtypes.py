"""Element types of the API and torch's promotion rules among them (no MLIR, no torch at import)."""
from __future__ import annotations

import enum


class DataType(enum.Enum):
    Float = "f32"
    Half = "f16"
    BFloat16 = "bf16"
    Bool = "i1"

    @property
    def itemsize(self) -> int:
        return {"f32": 4, "f16": 2, "bf16": 2, "i1": 1}[self.value]

    @property
    def is_float(self) -> bool:
        return self is not DataType.Bool


_RANK = {DataType.Bool: 0, DataType.BFloat16: 1, DataType.Half: 1, DataType.Float: 2}


def promote(a: DataType, b: DataType) -> DataType:
    """torch's promotion among our float types: f16 with bf16 gives f32; the wider wins."""
    if a == b:
        return a
    if {a, b} == {DataType.Half, DataType.BFloat16}:
        return DataType.Float
    return max(a, b, key=_RANK.__getitem__)


_TORCH_NAMES = {DataType.Float: "float32", DataType.Half: "float16", DataType.BFloat16: "bfloat16",
                DataType.Bool: "bool"}
_FROM_TORCH_NAME = {name: dtype for dtype, name in _TORCH_NAMES.items()}


def torch_dtype(dtype: DataType):
    import torch

    return getattr(torch, _TORCH_NAMES[dtype])


def from_torch(torch_dtype) -> DataType | None:
    """Our DataType for a torch dtype, or None when the API has none."""
    return _FROM_TORCH_NAME.get(str(torch_dtype).removeprefix("torch."))
