"""Small builders for kernel IR (call inside an MLIR context and insertion point)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, scf, vector

from ..dialects import nvasync

# Element types as they live in memory; bool travels as one byte.
_MEMORY_TYPES = {"f32": ir.F32Type.get, "f16": ir.F16Type.get, "bf16": ir.BF16Type.get,
                 "i1": lambda: ir.IntegerType.get_signless(8), "i32": lambda: ir.IntegerType.get_signless(32),
                 "i64": lambda: ir.IntegerType.get_signless(64)}


def memory_type(dtype: str):
    return _MEMORY_TYPES[dtype]()


def smem_type(shape, dtype: str):
    return ir.MemRefType.get(shape, memory_type(dtype),
                             memory_space=ir.Attribute.parse("#gpu.address_space<workgroup>"))


def index(v: int):
    return arith.constant(ir.IndexType.get(), v)


def i32(v: int):
    return arith.constant(ir.IntegerType.get_signless(32), v)


def to_index(v):
    return arith.index_cast(ir.IndexType.get(), v)


def to_i32(v):
    return arith.index_cast(ir.IntegerType.get_signless(32), v)


def i64(v: int):
    return arith.constant(ir.IntegerType.get_signless(64), v)


def to_i64(v):
    """A signed i32 widened to i64 (a product of two such values lowers to one mul.wide.s32)."""
    return arith.extsi(ir.IntegerType.get_signless(64), v)


class _Yielding:
    """`with` builds into `block` and closes it with `scf.yield` (blocks of results-free scf ops)."""

    def __init__(self, block):
        self.block = block

    def __enter__(self):
        self.ip = ir.InsertionPoint(self.block)
        self.ip.__enter__()

    def __exit__(self, *exc):
        scf.YieldOp([])
        self.ip.__exit__(*exc)


def if_then(cond) -> _Yielding:
    """`with if_then(cond):` builds the then-block of an scf.if with no results."""
    return _Yielding(scf.IfOp(cond).then_block)


def if_then_else(cond) -> tuple[_Yielding, _Yielding]:
    """`then, otherwise = if_then_else(cond)`; `with then:` ... `with otherwise:` ... build the two
    blocks of an scf.if with no results."""
    op = scf.IfOp(cond, has_else=True)
    return _Yielding(op.then_block), _Yielding(op.else_block)


class for_range:
    """`with for_range(lb, ub) as i:` builds the body of `scf.for i = lb to ub step 1` (i32 or
    index bounds, signed)."""

    def __init__(self, lower, upper):
        one = arith.constant(ir.Value(lower).type, 1)
        self.body = _Yielding(scf.ForOp(lower, upper, one).body)

    def __enter__(self):
        self.body.__enter__()
        return self.body.block.arguments[0]

    def __exit__(self, *exc):
        self.body.__exit__(*exc)


def kernel_func(name: str, arg_types: list[str], threads: int, insertion_point, min_ctas: int = 1,
                cluster: int = 1):
    """An empty kernel `gpu.func @name(arg_types)` of `threads` threads per CTA, inserted at
    `insertion_point` (inside a gpu.module); its entry block holds only `gpu.return`.  `min_ctas`
    CTAs must fit on an SM (`nvvm.minctasm`: ptxas caps the registers to make them fit); CTAs
    launch in clusters of `cluster` (`nvvm.cluster_dim`, PTX .reqnctapercluster: the grid must be
    a multiple)."""
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
    extra = f", nvvm.minctasm = {min_ctas} : i32" if min_ctas > 1 else ""    # 1: fuser-kernel-abi's default
    extra += f", nvvm.cluster_dim = array<i32: {cluster}, 1, 1>" if cluster > 1 else ""
    holder = ir.Module.parse(
        f"gpu.module @holder {{ gpu.func @{name}({args}) kernel attributes "
        f"{{gpu.known_block_size = array<i32: {threads}, 1, 1>{extra}}} {{ gpu.return }} }}")
    kernel = holder.body.operations[0].regions[0].blocks[0].operations[0]
    kernel.operation.detach_from_parent()
    insertion_point.insert(kernel.operation)
    return kernel


# --- global memory: `!llvm.ptr<1>` kernel arguments, element offsets, explicit alignment -------
GLOBAL_PTR = "!llvm.ptr<1>"
_ARG_TYPES = {"tensormap": lambda p: "!llvm.ptr", "pointer": lambda p: GLOBAL_PTR, "scalar": lambda p: p["type"],
              "value": lambda p: str(memory_type(p["dtype"]))}


def build_kernel_with(builder, func_op, schedule, kernel_name: str, threads: int, insertion_point, min_ctas: int = 1,
                      cluster: int = 1):
    """A scheduler's kernel for fusion `func_op`: `gpu.func @kernel_name` with the schedule's
    kernel parameters (`min_ctas` per SM, clusters of `cluster`: kernel_func), inserted at
    `insertion_point` (inside a gpu.module), its body built by
    `builder(func_op, schedule, params, arguments).build()`."""
    params = schedule.kernel_params()
    kernel = kernel_func(kernel_name, [kernel_arg_type(p) for p in params], threads, insertion_point, min_ctas,
                         cluster)
    entry = kernel.regions[0].blocks[0]
    with ir.InsertionPoint(entry.operations[0]):
        builder(func_op, schedule, params, list(entry.arguments)).build()
    return kernel


def kernel_arg_type(param: dict) -> str:
    """The kernel argument type of one entry of a schedule's kernel parameters (artifact meta
    "params"): a tensor map (by value), a global pointer, an i32 scalar or a scalar input's value."""
    return _ARG_TYPES[param["kind"]](param)


_DYNAMIC_INDEX = -2 ** 31         # llvm.getelementptr's marker for an index given as an operand


def gep(base, offset, dtype: str):
    """The address of element `offset` (i64) of a `dtype` array at global pointer `base`."""
    return llvm.getelementptr(ir.Type.parse(GLOBAL_PTR), base, [offset], [_DYNAMIC_INDEX],
                              memory_type(dtype), None)


def load_global(address, ty, align: int, l1: bool = True):
    """A scalar or vector load of type `ty` from global memory; `align` bytes are promised (a
    16-byte aligned vector<8xbf16> becomes one ld.global.v4.b32).  `l1=False` (vectors of 4, 8 or
    16 bytes aligned so): the data streams past the L1 (`ld.global.L1::no_allocate`, which LLVM
    has no form for), leaving the L1 to data read again (a norm's weights).  The asm claims no
    memory effects: for data the kernel never writes."""
    words = ty.shape[0] * ty.element_type.width // 32 if isinstance(ty, ir.VectorType) else 0
    if l1 or words not in (1, 2, 4) or align < 4 * words:
        return llvm.load(ty, address, alignment=align)
    i32 = ir.IntegerType.get_signless(32)
    vec = "" if words == 1 else f".v{words}"
    outs = ", ".join(f"${i}" for i in range(words))
    result = i32 if words == 1 else ir.Type.parse(f"!llvm.struct<({', '.join(['i32'] * words)})>")
    loaded = llvm.inline_asm(result, [address], f"ld.global.L1::no_allocate{vec}.b32 {{{outs}}}, [${words}];",
                             ",".join(["=r"] * words + ["l"]))
    parts = [loaded] if words == 1 else [llvm.extractvalue(i32, loaded, [i]) for i in range(words)]
    return vector.bitcast(ty, vector.from_elements(ir.VectorType.get([words], i32), parts))


def store_global(value, address, align: int) -> None:
    llvm.store(value, address, alignment=align)


def lanes(vec) -> list:
    """The elements of a 1-D vector value, as scalars."""
    return [vector.extract(vec, [], [i]) for i in range(ir.VectorType(vec.type).shape[0])]


def pack(values):
    """A 1-D vector of the scalar `values` (all of one type)."""
    return vector.from_elements(ir.VectorType.get([len(values)], values[0].type), values)


def elected_lane_of_warp0(tid):
    """One lane of warp 0 (elect.sync inside a warp-uniform test).  Kernel IR computes it once:
    bulk groups are per thread, so every TMA op, commit and wait must run on the same lane."""
    first_warp = arith.cmpi(arith.CmpIPredicate.ult, tid, index(32))
    return arith.andi(first_warp, nvasync.ElectOneOp(ir.IntegerType.get_signless(1)).elected)
