"""fuser-unroll-loops: fully unroll every `scf.for` marked `fuser.unroll`.

Rule.  A scheduler keeps repetitive per-thread code rolled in kernel IR (a matmul epilogue walks
the accumulator fragment in a loop) so the sync passes analyse one copy of it; registers need it
unrolled, since an accumulator indexed by a loop variable would live in local memory.  This pass
runs after the sync passes, at the start of the lowering.  Each iteration is a clone of the body
with the induction variable a constant; canonicalization then folds the index arithmetic
(dynamic `vector.extract` positions become static).  The unrolled code performs the same
accesses as the loop, in the same order but for one change: where the body reads shared memory
it (or an earlier iteration) also writes -- an epilogue updating a tile in place --, every
iteration's shared-memory loads (and the index arithmetic they need) go first, when no thread's
load reads a byte that one of its own earlier stores wrote (each access's bytes evaluated for
every thread of `gpu.known_block_size`) and the body does nothing but arithmetic, loads and
shared-memory stores.  No other thread can tell: the body holds no barrier, so the syncs derived
for the loop still order every access they ordered.  Why: ptxas keeps a shared-memory load behind
every earlier store it cannot prove disjoint, so each load waited for the previous iteration's
store.  Measured (H100, Nsight Compute, tools/ncu_matmul.py, the kernels with and without
interleaved on one machine, two rounds each): the matmul epilogue that updates its TMA-loaded
operand tile in place, residual add at 4096^3 193.0-194.6 us against 196.9-197.0, at 8192 x 10240
x 8192 1778 against 1791-1792; silu(y) * gate 197.6-198.4 against 199.4-199.6 and 1796 against 1803.

Contract
  in:  marked loops with constant bounds and step, no results, nothing but `scf.yield` ending
       the body; unmarked loops are left alone.
  out: no marked loop remains, its iterations in order (their shared-memory loads first, where
       the rule allows; none for a loop of no iterations).  A marked loop with non-constant
       bounds, a step below 1, more than MAX_UNROLLED iterations or results is an error.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .smem_model import GENERIC_ACCESS, block_dims, byte_range, enclosing_func, is_smem, per_thread

UNROLL_ATTR = "fuser.unroll"
MAX_UNROLLED = 4096     # iterations: the schedulers' loops have at most a few dozen
# What a body may hold besides shared-memory loads and stores for its loads to go first: arithmetic
# with no memory effects, and global loads (no shared-memory store aliases them).
PURE = ("arith.", "math.", "index.", "vector.extract", "vector.insert", "vector.from_elements", "vector.broadcast",
        "vector.bitcast", "llvm.getelementptr", "nvvm.rcp.approx", "nvvm.ex2.approx")
PURE_INTRINSICS = ("llvm.nvvm.ex2.approx", "llvm.nvvm.rcp.approx", "llvm.nvvm.lg2.approx")


def run(module_op, pass_) -> None:
    loops = []
    module_op.walk(lambda op: loops.append(op) or ir.WalkResult.ADVANCE
                   if op.name == "scf.for" and UNROLL_ATTR in op.attributes else ir.WalkResult.ADVANCE)
    for loop in loops:                     # the walk is post-order: inner loops first
        bounds = [_constant(v) for v in loop.operands[:3]]
        problem = _problem(loop, bounds)
        if problem:
            loop.location.emit_error(f"fuser-unroll-loops: a loop marked fuser.unroll {problem}")
            pass_.signal_pass_failure()
            return
        _unroll(loop, *bounds)


def _problem(loop, bounds) -> str | None:
    """Why the marked `loop` (constant `bounds` or None each) cannot be unrolled, or None."""
    if None in bounds or loop.results:
        return "needs constant bounds and no results"
    if bounds[2] < 1:
        return f"needs a step of at least 1, got {bounds[2]}"
    if len(range(*bounds)) > MAX_UNROLLED:
        return f"has {len(range(*bounds))} iterations; at most {MAX_UNROLLED} are unrolled"
    return None


def _constant(value):
    owner = value.owner
    if getattr(owner, "name", None) == "arith.constant":
        return ir.IntegerAttr(owner.attributes["value"]).value
    return None


def _unroll(loop, lower: int, upper: int, step: int) -> None:
    body = loop.regions[0].blocks[0]
    iv = body.arguments[0]
    ops = [op for op in body.operations if op.name != "scf.yield"]
    with ir.InsertionPoint(loop), loop.location:
        mappings = [{iv: arith.constant(iv.type, i)} for i in range(lower, upper, step)]
        iterations = [[clone_with(op, mapping).operation for op in ops] for mapping in mappings]
    first = _loads_first(ops, iterations) if iterations else []
    if first:
        anchor = next(clone for k, clone in enumerate(iterations[0]) if k not in first)
        for clones in iterations:
            for k in first:
                clones[k].move_before(anchor)
    loop.erase()


def _loads_first(ops, iterations) -> list[int]:
    """Positions in the body of its shared-memory loads and the ops they need, when every
    iteration's may go before all the rest (module docstring); else []."""
    if any(len(op.regions) or not (op.name in GENERIC_ACCESS or _movable(op)) for op in ops):
        return []
    accesses = {k: GENERIC_ACCESS[op.name] for k, op in enumerate(ops) if op.name in GENERIC_ACCESS}
    if any(not is_smem(ops[k].operands[buf]) for k, (_, buf, _) in accesses.items()):
        return []
    loads = [k for k, (write, _, _) in accesses.items() if not write]
    stores = [k for k, (write, _, _) in accesses.items() if write]
    if not loads or not stores:
        return []
    needed, stack = set(), list(loads)
    positions = {op.operation: k for k, op in enumerate(ops)}
    while stack:                      # the loads and the ops (in the body) their operands come from
        k = stack.pop()
        if k in needed:
            continue
        needed.add(k)
        stack += [positions[v.owner.operation] for v in ops[k].operands
                  if not isinstance(v, ir.BlockArgument) and v.owner.operation in positions]
    dims = block_dims(enclosing_func(ops[0]))
    if dims is None:
        return []
    memo: dict = {}
    # Each thread's bytes of every store, then of every load that would now run before it.
    written = [set() for _ in range(dims[0] * dims[1] * dims[2])]
    for clones in iterations:
        for k, clone in enumerate(clones):
            if k not in accesses:
                continue
            spans = _bytes_per_thread(clone, accesses[k], dims, memo)
            if spans is None:
                return []
            if accesses[k][0]:
                for mine, span in zip(written, spans):
                    mine.update(range(*span))
            elif any(not mine.isdisjoint(range(*span)) for mine, span in zip(written, spans)):
                return []
    return sorted(needed)


def _movable(op) -> bool:
    """Arithmetic with no memory effects, or a load of global memory."""
    if op.name == "llvm.call_intrinsic":
        return ir.StringAttr(op.attributes["intrin"]).value.startswith(PURE_INTRINSICS)
    if op.name == "llvm.load":
        return str(op.operands[0].type) == "!llvm.ptr<1>"      # global memory
    return op.name.startswith(PURE)


def _bytes_per_thread(op, access, dims, memo):
    """[(first byte, end)] of `op`'s shared-memory access in every thread, or None when its buffer
    is not a whole smem_buffer or an index depends on more than the thread index and constants."""
    is_write, buf, first = access
    buffer = op.operands[buf]
    if isinstance(buffer, ir.BlockArgument) or buffer.owner.name != "nvasync.smem_buffer":
        return None
    start, _ = byte_range(buffer)
    memref = ir.MemRefType(buffer.type)
    accessed = op.operands[0].type if is_write else op.results[0].type     # the element or a 1-D vector
    count = ir.VectorType(accessed).shape if isinstance(accessed, ir.VectorType) else [1]
    if len(count) != 1:
        return None
    indices = [per_thread(v, dims, memo) for v in list(op.operands)[first:]]
    if any(i is None for i in indices):
        return None
    itemsize = memref.element_type.width // 8
    width, shape = itemsize * count[0], memref.shape
    spans = []
    for thread in range(dims[0] * dims[1] * dims[2]):
        linear = 0
        for index, extent in zip((i[thread] for i in indices), shape):
            linear = linear * extent + index
        spans.append((start + linear * itemsize, start + linear * itemsize + width))
    return spans


def clone_with(op, mapping: dict):
    """Clone `op` at the current insertion point with its operands (and those of the ops nested
    in it) replaced as `mapping` says; its results are added to `mapping`.  Returns the clone."""
    clone = op.clone(ip=ir.InsertionPoint.current)

    def visit(nested):
        for k, value in enumerate(nested.operands):
            if value in mapping:
                nested.operands[k] = mapping[value]
        return ir.WalkResult.ADVANCE

    clone.operation.walk(visit)
    for old, new in zip(op.results, clone.results):
        mapping[old] = new
    return clone
