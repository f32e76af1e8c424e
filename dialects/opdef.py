"""Declarative op definitions: one table per dialect becomes IRDL, Python op classes and docs.

A dialect module lists its ops as `OpDef`s.  From that single list we derive
  * the IRDL text (`irdl_text`) that MLIR loads, and that a stock `mlir-opt --irdl-file` accepts;
  * one `OpView` subclass per op with a keyword builder and named accessors (`make_opviews`).
IRDL checks kinds (an integer attribute, a memref operand, an i32 coordinate); value checks that
IRDL cannot state (ranges, enums, alignment) live in each dialect's `verify_op` hook, run by the
`fuser-verify-dialects` pass.

This module never imports MLIR at import time: the builders import it on first use.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# IRDL constraint expressions for operand/result kinds.
TYPE_CONSTRAINTS = {
    "ptr": 'irdl.is !llvm.ptr',
    "global_ptr": 'irdl.base "!llvm.ptr"',     # generic or addrspace(1); checked in Python
    "memref": 'irdl.base "!builtin.memref"',
    "tensor": 'irdl.base "!builtin.tensor"',
    "vector": 'irdl.base "!builtin.vector"',
    "i1": 'irdl.is i1',
    "i32": 'irdl.is i32',
    "index": 'irdl.is index',
    "any": 'irdl.any',
}

# IRDL constraint expressions for attribute kinds, and how a Python value becomes that attribute.
ATTR_CONSTRAINTS = {
    "i32": 'irdl.base "#builtin.integer"',
    "i64": 'irdl.base "#builtin.integer"',
    "bool": 'irdl.base "#builtin.integer"',
    "str": 'irdl.base "#builtin.string"',
    "i64s": 'irdl.base "#builtin.dense_array"',
    "type": 'irdl.base "#builtin.type"',
}


@dataclass(frozen=True)
class Operand:
    name: str
    kind: str                 # key of TYPE_CONSTRAINTS
    variadic: bool = False
    same_as: str | None = None   # share the constraint variable: forces an identical type


@dataclass(frozen=True)
class Attr:
    name: str
    kind: str                 # key of ATTR_CONSTRAINTS
    default: object = None    # None: the builder requires it


@dataclass(frozen=True)
class OpDef:
    name: str                 # without the dialect prefix
    summary: str
    operands: tuple[Operand, ...] = ()
    results: tuple[Operand, ...] = ()
    attrs: tuple[Attr, ...] = ()
    regions: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)   # dialect-specific facts (e.g. nvasync semantics)

    @property
    def segmented(self) -> bool:
        """IRDL needs operandSegmentSizes once more than one operand group is variadic."""
        return sum(o.variadic for o in self.operands) > 1


def _ident(name: str) -> str:
    return name.replace(".", "_")


def irdl_text(dialect: str, ops: list[OpDef]) -> str:
    """The `irdl.dialect` for `ops`, as text that IRDL loaders (ours and mlir-opt's) accept."""
    lines = [f"irdl.dialect @{dialect} {{"]
    for op in ops:
        lines.append(f"  irdl.operation @{op.name} {{")
        var_of: dict[str, str] = {}

        def constraint(value: Operand, table: dict, prefix: str) -> str:
            if getattr(value, "same_as", None):
                return var_of[value.same_as]
            var = f"%{prefix}_{_ident(value.name)}"
            lines.append(f"    {var} = {table[value.kind]}")
            var_of[value.name] = var
            return var

        if op.attrs:
            entries = [f'"{a.name}" = {constraint(a, ATTR_CONSTRAINTS, "attr")}' for a in op.attrs]
            lines.append("    irdl.attributes {" + ", ".join(entries) + "}")
        for keyword, values in (("operands", op.operands), ("results", op.results)):
            if values:
                parts = []
                for v in values:
                    var = constraint(v, TYPE_CONSTRAINTS, keyword[:3])
                    parts.append(f"{_ident(v.name)}: {'variadic ' if v.variadic else ''}{var}")
                lines.append(f"    irdl.{keyword}(" + ", ".join(parts) + ")")
        if op.regions:
            names = []
            for r in op.regions:
                lines.append(f"    %region_{r} = irdl.region")
                names.append(f"{r}: %region_{r}")
            lines.append("    irdl.regions(" + ", ".join(names) + ")")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def python_attr(kind: str, value):
    """Build the MLIR attribute of `kind` from a Python value (in the current context)."""
    from mlir import ir

    if isinstance(value, ir.Attribute):
        return value
    if kind in ("i32", "i64"):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(int(kind[1:])), int(value))
    if kind == "bool":
        return ir.BoolAttr.get(bool(value))
    if kind == "str":
        return ir.StringAttr.get(str(value))
    if kind == "i64s":
        return ir.DenseI64ArrayAttr.get([int(v) for v in value])
    if kind == "type":
        return ir.TypeAttr.get(value)
    raise ValueError(f"unknown attribute kind {kind!r}")


def attr_value(attr):
    """The Python value of an attribute built by `python_attr` (int, bool, str, list, type)."""
    from mlir import ir

    if isinstance(attr, ir.BoolAttr):
        return attr.value
    if isinstance(attr, ir.IntegerAttr):
        return attr.value
    if isinstance(attr, ir.StringAttr):
        return attr.value
    if isinstance(attr, ir.DenseI64ArrayAttr):
        return list(attr)
    if isinstance(attr, ir.TypeAttr):
        return attr.value
    return attr


def attr_kind_errors(op) -> list[str]:
    """Errors for declared attributes of `op` whose kind IRDL cannot pin down: an `i64s` must be an
    array of i64 (IRDL checks only `#builtin.dense_array`, whatever its element type)."""
    from mlir import ir

    opdef = getattr(op.opview, "OPDEF", None)
    errors = []
    for a in opdef.attrs if opdef else ():
        if a.kind != "i64s" or a.name not in op.attributes:
            continue
        try:
            ok = isinstance(op.attributes[a.name], ir.DenseI64ArrayAttr)
        except TypeError:       # an element type the bindings cannot even name (i128, bf16)
            ok = False
        if not ok:
            errors.append(f"attribute '{a.name}' must be an array of i64 (array<i64: ...>)")
    return errors


def make_opviews(dialect_name: str, ops: list[OpDef], namespace: dict) -> None:
    """Register one OpView class per op (e.g. `TmaLoadOp`) into `namespace` (a module's globals).

    Builder: `TmaLoadOp(desc, dst, barriers, stage, coords, *, loc=None, ip=None)`: result types
    first (one per result), then operands in declaration order (a list for a variadic group), then
    attributes as keywords (those with a default may be left out).
    """
    from mlir import ir
    from mlir.dialects._ods_common import _cext

    @_cext.register_dialect
    class _Dialect(ir.Dialect):
        DIALECT_NAMESPACE = dialect_name

    namespace["_Dialect"] = _Dialect
    for opdef in ops:
        cls = _opview_class(dialect_name, opdef, ir)
        namespace[cls.__name__] = _cext.register_operation(_Dialect)(cls)


def _opview_class(dialect_name: str, opdef: OpDef, ir):
    segments = [-1 if o.variadic else 1 for o in opdef.operands] if opdef.segmented else None

    def __init__(self, *args, loc=None, ip=None, **kwargs):
        n_res, n_opd = len(opdef.results), len(opdef.operands)
        if len(args) != n_res + n_opd:
            raise TypeError(f"{self.OPERATION_NAME}: expected {n_res} result type(s) and {n_opd} "
                            f"operand(s), got {len(args)} positional arguments")
        result_types = list(args[:n_res])
        operands = []
        for spec, value in zip(opdef.operands, args[n_res:]):
            if spec.variadic:
                operands.append(list(value)) if segments else operands.extend(value)
            else:
                operands.append(value)
        attributes = {}
        for a in opdef.attrs:
            value = kwargs.pop(a.name, a.default)
            if value is None:
                raise TypeError(f"{self.OPERATION_NAME}: missing attribute '{a.name}'")
            attributes[a.name] = python_attr(a.kind, value)
        if kwargs:
            raise TypeError(f"{self.OPERATION_NAME}: unknown attribute(s) {sorted(kwargs)}")
        ir.OpView.__init__(self, self.OPERATION_NAME, self._ODS_REGIONS, self._ODS_OPERAND_SEGMENTS,
                           self._ODS_RESULT_SEGMENTS, attributes=attributes, results=result_types,
                           operands=operands, successors=None, regions=len(opdef.regions),
                           loc=loc, ip=ip)

    body = {
        "OPERATION_NAME": f"{dialect_name}.{opdef.name}",
        "_ODS_REGIONS": (len(opdef.regions), True),
        "_ODS_OPERAND_SEGMENTS": segments,
        "_ODS_RESULT_SEGMENTS": None,
        "OPDEF": opdef,
        "__init__": __init__,
        "__doc__": opdef.summary,
    }
    # Named accessors: operands (a list for a variadic group), results, attributes (Python values).
    for index, spec in enumerate(opdef.operands):
        body[_ident(spec.name)] = property(lambda self, i=index: _operand_group(self, opdef, i))
    for index, spec in enumerate(opdef.results):
        body[_ident(spec.name)] = property(lambda self, i=index: self.operation.results[i])
    for a in opdef.attrs:
        body[_ident(a.name)] = property(lambda self, n=a.name: attr_value(self.operation.attributes[n]))
    for index, r in enumerate(opdef.regions):
        body[_ident(r)] = property(lambda self, i=index: self.operation.regions[i])
    class_name = "".join(part.capitalize() for part in opdef.name.split("_")) + "Op"
    return type(class_name, (ir.OpView,), body)


def _operand_group(view, opdef: OpDef, index: int):
    """Operand group `index` of `view`: a Value, or a list for a variadic group."""
    operands = list(view.operation.operands)
    if opdef.segmented:
        sizes = list(view.operation.attributes["operandSegmentSizes"])
    else:
        n_variadic = len(operands) - (len(opdef.operands) - 1)
        sizes = [n_variadic if o.variadic else 1 for o in opdef.operands]
    start = sum(sizes[:index])
    group = operands[start:start + sizes[index]]
    return group if opdef.operands[index].variadic else group[0]
