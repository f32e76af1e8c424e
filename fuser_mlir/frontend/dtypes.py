"""Element types of the API and torch's promotion rules among them and Python numbers (no MLIR,
no torch at import)."""
from __future__ import annotations

import enum
from functools import reduce


class DataType(enum.Enum):
    Float = "f32"
    Half = "f16"
    BFloat16 = "bf16"
    Int32 = "i32"
    Int64 = "i64"
    Bool = "i1"

    @property
    def itemsize(self) -> int:
        """Bytes per element in memory (Bool is one byte, as torch.bool)."""
        return _ITEMSIZE[self]

    @property
    def is_float(self) -> bool:
        return _CATEGORY[self] == _FLOAT

    @property
    def is_int(self) -> bool:
        return _CATEGORY[self] == _INT

    @property
    def compute(self) -> "DataType":
        """The type values of this dtype compute in: f32 for every floating-point type."""
        return DataType.Float if self.is_float else self


_ITEMSIZE = {DataType.Float: 4, DataType.Half: 2, DataType.BFloat16: 2, DataType.Int32: 4, DataType.Int64: 8,
             DataType.Bool: 1}
# torch's type categories: a higher category wins promotion outright (int with float gives the float).
_BOOL, _INT, _FLOAT = range(3)
_CATEGORY = {DataType.Bool: _BOOL, DataType.Int32: _INT, DataType.Int64: _INT, DataType.BFloat16: _FLOAT,
             DataType.Half: _FLOAT, DataType.Float: _FLOAT}
# Within a category the wider type wins (f16 with bf16 is the exception: f32).
_RANK = {DataType.Bool: 0, DataType.Int32: 1, DataType.Int64: 2, DataType.BFloat16: 3, DataType.Half: 3,
         DataType.Float: 4}
# The dtype torch gives a Python number of each category (torch's defaults: int64, float32).
_SCALAR_DEFAULT = {_BOOL: DataType.Bool, _INT: DataType.Int64, _FLOAT: DataType.Float}
# Largest finite value per floating-point type (torch.finfo(dtype).max): nan_to_num's defaults.
FINITE_MAX = {DataType.Float: 3.4028234663852886e38, DataType.Half: 65504.0,
              DataType.BFloat16: 3.3895313892515355e38}
# Value ranges of the integer types: a Python int outside its op's type is an error, as in torch.
INT_RANGE = {DataType.Int32: (-2**31, 2**31 - 1), DataType.Int64: (-2**63, 2**63 - 1)}


def promote(a: DataType, b: DataType) -> DataType:
    """torch's promotion of two tensor dtypes."""
    if a == b:
        return a
    if {a, b} == {DataType.Half, DataType.BFloat16}:
        return DataType.Float
    return max(a, b, key=_RANK.__getitem__)


def scalar_dtype(value) -> DataType:
    """The dtype of a Python number's category (bool, int, float) by torch's defaults."""
    if isinstance(value, bool):
        return DataType.Bool
    return DataType.Int64 if isinstance(value, int) else DataType.Float


def result_type(tensor_dtypes, scalars, scalar_dtypes=()) -> DataType:
    """torch.result_type of tensors of `tensor_dtypes` and Python numbers `scalars` (or scalar
    inputs of `scalar_dtypes`, which promote like the numbers of their category): numbers count
    only through their category, and only when it is above the tensors' (a Python float with a bf16
    tensor stays bf16; with an int tensor it gives float32)."""
    tensors = reduce(promote, tensor_dtypes) if tensor_dtypes else None
    kinds = [*map(scalar_dtype, scalars), *scalar_dtypes]
    if kinds:
        number = max(kinds, key=_CATEGORY.__getitem__)
        if tensors is None or _CATEGORY[number] > _CATEGORY[tensors]:
            return _SCALAR_DEFAULT[_CATEGORY[number]]
    return tensors


_TORCH_NAMES = {DataType.Float: "float32", DataType.Half: "float16", DataType.BFloat16: "bfloat16",
                DataType.Int32: "int32", DataType.Int64: "int64", DataType.Bool: "bool"}
_FROM_TORCH_NAME = {name: dtype for dtype, name in _TORCH_NAMES.items()}
TORCH_DTYPE_NAMES = tuple(_TORCH_NAMES.values())       # what inputs may be, for error messages


def torch_dtype(dtype: DataType):
    import torch

    return getattr(torch, _TORCH_NAMES[dtype])


def from_torch(torch_dtype) -> DataType | None:
    """Our DataType for a torch dtype, or None when the API has none."""
    return _FROM_TORCH_NAME.get(str(torch_dtype).removeprefix("torch."))
