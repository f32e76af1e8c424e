"""What the sync passes and the verifier know about a kernel: smem accesses, threads, guards.

Facts only, no placement policy.  Both the insertion passes and fuser-verify-syncs read them;
each decides on its own what the facts require.

* `accesses(func)`: every shared-memory access with its byte range (from `nvasync.smem_buffer`;
  two accesses conflict when the ranges overlap), read or write, proxy (generic for
  memref/vector loads and stores, async for TMA and wgmma per `nvasync.Semantics`, mbarrier for
  an mbarrier word -- `remote` when the op reaches that word in peer CTAs of the cluster too), the
  threads that execute it and, for generic accesses, a structural key of its thread->element mapping.
  A wgmma operand that is a k-slice (`memref.subview`) of a swizzled tile accesses the whole tile.
* `is_divergent(value)`: may differ between the threads of a CTA.  Uniform are constants, kernel
  arguments, block/grid/cluster ids and sizes, the cluster rank, what pure ops compute from
  uniform values, and IVs and carried values of loops with uniform bounds; the thread index,
  `elect_one`, loaded data and unknown ops are divergent.  A condition is block-uniform when it is not divergent.
* `threads_of(op)`: the threads that run an op -- every thread, a contiguous range of whole warps
  (first warp, count), the "issuer" (one elected lane, the `elect_one` guard) or some other
  subset: derived from the enclosing warp_roles, the divergent scf.if branches and loops with
  divergent trip counts.  A thread-index condition counts as whole warps when, evaluated for
  every thread of `gpu.known_block_size`, it holds for all lanes of a contiguous range of warps
  and for no other lane (`warps_taking`): `tid < 128`, `tid / 32 >= 4`, the lowered warp_role
  test.  Warp roles are warp ranges by construction, so both kinds are the same fact.
* `barrier_problem(op)`: a barrier synchronizes exactly the threads that reach it, so
  `sync_threads` (bar.sync 0) must be reached by every thread and `named_barrier` by whole
  warps, counted exactly; `barrier_orders(op, a, b)`: a legal barrier whose threads include both.
* `mbarrier_relays(func)`: pairs (E, F) of single mbarrier words that one thread of a warp role
  relays: it waits on E, then arrives on F (arrive or arrive.expect_tx) later in the same block.
  Its arrival on F follows its acquire of E's phase, so a thread that waits on F's phase is
  ordered after every thread that arrived on E's phase before (release -> acquire, transitive).
* `linear(value)`: `iv * coeff + const` for index arithmetic on an scf.for induction variable,
  so guards like `r * S + s < n` can be compared across stages and iterations.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..dialects import nvasync
from ..dialects.nvasync import memref_bytes  # noqa: F401  (re-exported: the passes import it from here)

TMA_LOADS = ("nvasync.tma_load", "nvasync.tma_load_multicast")
MBARRIER_OPS = {"nvasync.mbarrier_init": True, "nvasync.mbarrier_inval": True, "nvasync.mbarrier_arrive": False,
                "nvasync.mbarrier_arrive_cluster": False, "nvasync.mbarrier_arrive_expect_tx": False,
                "nvasync.mbarrier_try_wait_parity": False, "nvasync.tma_load": False,
                "nvasync.tma_load_multicast": False}   # op -> writes the mbarrier word (init/inval) or only uses it
REMOTE_MBARRIER_OPS = ("nvasync.mbarrier_arrive_cluster", "nvasync.tma_load_multicast")  # reach peers' barriers
GENERIC_ACCESS = {
    "memref.load": (False, 0, 1), "memref.store": (True, 1, 2),
    "vector.load": (False, 0, 1), "vector.store": (True, 1, 2),
}   # name -> (is_write, buffer operand index, first index operand)
UNIFORM_SOURCES = {"gpu.block_id", "gpu.block_dim", "gpu.grid_dim", "gpu.cluster_id", "gpu.cluster_dim",
                   "gpu.cluster_block_id", "gpu.cluster_dim_blocks", "gpu.num_subgroups", "gpu.subgroup_size",
                   "nvasync.smem_buffer", "nvasync.cluster_rank"}          # the same in every thread of a CTA
ACQUIRES = ("nvasync.wait_flag", "nvasync.arrive_flag")                           # semaphore acquires
RELEASES = ("nvasync.release_flag", "nvasync.arrive_flag")                        # semaphore releases
PURE_DIALECTS = ("arith", "index", "math", "affine", "vector")   # results from operands (no memref operand)
PURE_OPS = {"memref.dim", "memref.rank"}
UNBOUNDED = 1 << 62


@dataclass(frozen=True)
class Threads:
    role: tuple[int, int] | None      # (first_warp, num_warps); None: every warp of the CTA
    issuer: tuple | None = None       # one elected lane: (the elect_one op selecting it,)
    subset: bool = False              # some other divergent subset

    def describe(self) -> str:
        who = "all threads" if self.role is None else f"warps [{self.role[0]}, {sum(self.role)})"
        return f"the issuing thread of {who}" if self.issuer is not None else (f"a subset of {who}" if self.subset else who)

    def within(self, role) -> bool:
        """Every thread of this set lies in the warps `role` ((first, count); None: the CTA)."""
        if role is None:
            return True
        return self.role is not None and role[0] <= self.role[0] and sum(self.role) <= sum(role)

    def disjoint(self, other: "Threads") -> bool:
        """No warp is in both sets (each names a warp range): warps that run concurrently unless a
        barrier over both or an mbarrier handoff orders them."""
        first, second = self.role, other.role
        return first is not None and second is not None and (sum(first) <= second[0] or sum(second) <= first[0])

    def covers(self, other: "Threads") -> bool:
        """Every thread of `other` is in this set."""
        return self == other or (self.issuer is None and not self.subset and other.within(self.role))


@dataclass(frozen=True)
class Access:
    op: object                        # ir.Operation
    start: int
    end: int
    is_write: bool
    proxy: str                        # "generic" | "async" | "mbarrier" (an mbarrier word)
    threads: Threads
    mapping: tuple | None             # generic: structural key of (buffer, indices) if thread-indexed
    remote: bool = False              # mbarrier: the op reaches the word in peer CTAs of the cluster too

    def overlaps(self, other: "Access") -> bool:
        return self.start < other.end and other.start < self.end


def op_key(op):
    """A stable identity for an operation handle (Python wrappers differ between walks)."""
    return op.operation if hasattr(op, "operation") else op


def block_key(block) -> tuple:
    """A stable identity for a block: Block handles hash by object identity, not by the block."""
    owner = op_key(block.owner)
    for index, region in enumerate(owner.regions):
        if any(b == block for b in region.blocks):
            return (owner, index)
    raise ValueError("block not found in its owner")




def byte_range(value) -> tuple[int, int]:
    owner = op_key(value.owner)
    if isinstance(owner, ir.Operation) and owner.name == "nvasync.smem_buffer":
        start = owner.attributes["offset"].value
        return start, start + memref_bytes(value.type)
    return 0, UNBOUNDED                # a derived view: assume it may alias anything


def is_smem(value) -> bool:
    return isinstance(value.type, ir.MemRefType) and str(value.type.memory_space) == "#gpu.address_space<workgroup>"


GLOBAL_OPERAND_KINDS = ("ptr", "global_ptr")     # nvasync operands naming global memory: a TMA descriptor, an address
LLVM_MEMORY_OPS = {"llvm.load": 0, "llvm.store": 1, "llvm.atomicrmw": 0, "llvm.cmpxchg": 0}   # -> pointer operand
UNKNOWN_EFFECT_OPS = ("llvm.call", "func.call", "gpu.printf", "llvm.inline_asm")


def accesses_global(op) -> bool:
    """May `op` itself (not the ops of its regions) read or write global memory?  An nvasync op
    with a TMA descriptor or global address operand, but for a hint (an L2 prefetch); an llvm
    load, store or atomic through a pointer outside shared memory (address space 3); a
    memref/vector access of a memref outside shared memory; a call or inline assembly (effects
    unknown)."""
    op = op_key(op)
    name = op.name
    if name.startswith("nvasync."):
        opdef = nvasync.OPS_BY_NAME.get(name.partition(".")[2])
        return opdef is not None and not opdef.extra["semantics"].hint \
            and any(o.kind in GLOBAL_OPERAND_KINDS for o in opdef.operands)
    if name in LLVM_MEMORY_OPS:
        return str(op.operands[LLVM_MEMORY_OPS[name]].type) != "!llvm.ptr<3>"
    if name in GENERIC_ACCESS:
        return not is_smem(op.operands[GENERIC_ACCESS[name][1]])
    return name in UNKNOWN_EFFECT_OPS


def first_nested(op, predicate):
    """The first op, `op` itself or one in its regions (pre-order), for which `predicate` holds, or None."""
    found = []

    def visit(inner):
        if predicate(inner):
            found.append(inner)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    op_key(op).walk(visit, ir.WalkOrder.PRE_ORDER)
    return op_key(found[0]) if found else None


def first_global_access(op):
    """The first op in `op` and its regions (pre-order) that may access global memory, or None."""
    return first_nested(op, accesses_global)


def parent_ops(op):
    """Enclosing operations, innermost first, up to (excluding) the gpu.func."""
    chain = []
    parent = op_key(op).parent
    while parent is not None and op_key(parent).name != "gpu.func":
        chain.append(op_key(parent))
        parent = op_key(parent).parent
    return chain


_divergent: dict = {}      # value key -> divergence; cleared by `reset_memo`
_order: list = []          # the keys of _divergent, in the order they were concluded
_assumed: dict = {}        # keys being evaluated, assumed uniform -> whether that was relied on
_warps: dict = {}          # (cond key, taken) -> warp range taking the branch, or None
_threads: dict = {}        # op hash -> Threads


def reset_memo() -> None:
    """Forget memoized facts (op hashes are pointers: call at the start of every pass run)."""
    _divergent.clear()
    _order.clear()
    _assumed.clear()
    _warps.clear()
    _threads.clear()


def _value_key(value):
    if isinstance(value, ir.BlockArgument):
        return ("arg", block_key(value.owner), value.arg_number)
    return (op_key(value.owner), value.result_number)


def is_divergent(value) -> bool:
    """May `value` differ between the threads of a CTA?  Uniform: constants, kernel arguments,
    block/grid/cluster ids and sizes, and what pure arith/index/math/affine/vector ops compute
    from uniform values; loop IVs and carried values of loops whose bounds (and, for carried
    values, inits and yields) are uniform; results of scf ops whose conditions and yields are.
    Also a `memref.load` of shared memory at uniform indices: the sync passes order every write of
    that word against every read of it (no race), so the threads reading it at one point of the
    program read the same write -- how one thread hands a value (a semaphore count) to its group.
    Everything else -- thread/lane ids, `elect_one`, other loaded data, per-thread wgmma fragments,
    ops this list does not know -- is divergent."""
    key = _value_key(value)
    if key in _assumed:
        _assumed[key] = True
        return False
    if key in _divergent:
        return _divergent[key]
    # Loop-carried values reach themselves: assume uniform while evaluating, and if that turns
    # out wrong forget whatever was concluded under the assumption (an optimistic fixpoint).
    mark = len(_order)
    _assumed[key] = False
    result = _compute_divergent(value)
    if _assumed.pop(key) and result:
        for k in _order[mark:]:
            del _divergent[k]
        del _order[mark:]
    _divergent[key] = result
    _order.append(key)
    return result


def _compute_divergent(value) -> bool:
    if isinstance(value, ir.BlockArgument):
        owner = op_key(value.owner.owner)
        if owner.name == "gpu.func":
            return False                               # kernel arguments
        if owner.name == "scf.for":
            if value.arg_number == 0:
                return any(is_divergent(v) for v in control_operands(owner))
            return _carried_divergent(owner, value.arg_number - 1)
        return True
    owner = op_key(value.owner)
    name = owner.name
    if name in UNIFORM_SOURCES:
        return False
    if len(owner.regions):
        return _carried_divergent(owner, value.result_number)
    if name == "memref.load" and is_smem(owner.operands[0]):
        return any(is_divergent(v) for v in owner.operands)
    reads_memory = any(isinstance(v.type, ir.MemRefType) for v in owner.operands)
    pure = name in PURE_OPS or (name.partition(".")[0] in PURE_DIALECTS and not reads_memory)
    return not pure or any(is_divergent(v) for v in owner.operands)


def _carried_divergent(op, k) -> bool:
    """Result k of a region op (and, for scf.for, iter_arg k): divergent when the op's control
    operands, its init k (scf.for) or any value its regions yield as result k are."""
    if op.name not in ("scf.if", "scf.for", "scf.execute_region", "scf.index_switch"):
        return True
    if any(is_divergent(v) for v in control_operands(op)):
        return True
    if op.name == "scf.for" and is_divergent(op.operands[3 + k]):
        return True
    for region in op.regions:
        for block in region.blocks:
            terminator = list(block.operations)[-1]
            if k < len(terminator.operands) and is_divergent(terminator.operands[k]):
                return True
    return False


def control_operands(op) -> list:
    """The operands deciding whether (and how often) `op`'s regions run."""
    if op.name == "scf.if":
        return [op.operands[0]]
    if op.name == "scf.for":
        return list(op.operands)[:3]
    if op.name == "scf.while":
        condition = list(op.regions[0].blocks[0].operations)[-1]
        return [*op.operands, condition.operands[0]]
    return list(op.operands)


def elect_op(value):
    """The elect_one op behind `value` (an elect result, possibly and-ed with warp tests), or None.
    Guards from one elect_one select one thread; two elect_one ops may elect different lanes."""
    if isinstance(value, ir.BlockArgument):
        return None
    owner = op_key(value.owner)
    if owner.name == "nvasync.elect_one":
        return owner
    if owner.name == "arith.andi":
        return next((e for e in map(elect_op, owner.operands) if e is not None), None)
    return None


def enclosing_func(op):
    current = op_key(op)
    while current.name != "gpu.func":
        current = op_key(current.parent)
    return current


def kernels(module_op) -> list:
    """Every gpu.func of the module."""
    found = []
    module_op.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE
                   if op.name == "gpu.func" else ir.WalkResult.ADVANCE)
    return found


def block_dims(func) -> tuple[int, int, int] | None:
    """The kernel's block size when it declares one (`gpu.known_block_size`)."""
    if "gpu.known_block_size" not in func.attributes:
        return None
    return tuple(ir.DenseI32ArrayAttr(func.attributes["gpu.known_block_size"]))


def cluster_size(func) -> int:
    """CTAs per cluster of a kernel (`nvvm.cluster_dim`; 1 without one)."""
    if "nvvm.cluster_dim" not in func.attributes:
        return 1
    size = 1
    for d in ir.DenseI32ArrayAttr(func.attributes["nvvm.cluster_dim"]):
        size *= d
    return size


def warp_count(func) -> int | None:
    dims = block_dims(func)
    return None if dims is None else -(-dims[0] * dims[1] * dims[2] // 32)


def threads_of(op) -> Threads:
    """The threads that run `op`: the warps of its enclosing warp_roles and of the divergent
    scf.if branches it sits in whose condition selects whole warps (a contiguous range), the
    issuer of an elect_one guard, or some other subset."""
    key = op_key(op)
    if key not in _threads:
        _threads[key] = _threads_of(op)
    return _threads[key]


def divergence_root(op):
    """The innermost op enclosing `op` that whole warps reach (the block, a warp role or a
    warp-aligned branch: its group) -- the outermost of the divergent branches and loops `op`
    sits in -- or None where whole warps run `op` itself.  A semaphore acquired by `op` reaches
    the rest of the group through a barrier right after it."""
    threads = threads_of(op)
    if threads.issuer is None and not threads.subset:
        return None
    return next((p for p in parent_ops(op) if threads_of(p).issuer is None and not threads_of(p).subset), None)


def group_acquires(func) -> list:
    """[(acquire, its divergence_root)] for each semaphore acquired `for_group` by a subset of
    the group: the acquires a barrier after the root must hand on."""
    waits = []
    func.walk(lambda op: waits.append(op) or ir.WalkResult.ADVANCE
              if op.name in ACQUIRES and ir.BoolAttr(op.attributes["for_group"]).value
              else ir.WalkResult.ADVANCE)
    return [(wait, root) for wait in waits for root in [divergence_root(wait)] if root is not None]


RELAY_ARRIVES = ("nvasync.mbarrier_arrive", "nvasync.mbarrier_arrive_expect_tx")


def mbarrier_relays(func) -> set:
    """{(E, F)}: byte ranges of single mbarrier words (a constant stage) such that threads of a
    warp role wait on E and then, later in the same block (or in a branch there that some of them
    take, e.g. one lane arriving for its warp), arrive on F: each arriving thread waited first.
    Which phases pair up is the pipeline's (fuser-verify-pipelines checks them)."""
    words = [a for a in accesses(func) if a.proxy == "mbarrier" and a.end - a.start == 8
             and a.threads.role is not None]
    found = set()
    for wait in words:
        if wait.op.name != "nvasync.mbarrier_try_wait_parity":
            continue
        block = [op_key(o) for o in op_key(wait.op).block.operations]
        later = set(block[block.index(op_key(wait.op)) + 1:])
        found |= {((wait.start, wait.end), (x.start, x.end)) for x in words
                  if x.op.name in RELAY_ARRIVES and wait.threads.covers(x.threads)
                  and any(p in later for p in (op_key(x.op), *parent_ops(x.op)))}
    return found


def _threads_of(op) -> Threads:
    func = enclosing_func(op)
    total = warp_count(func)
    first, end = 0, total                  # the warps reaching op: [first, end); end None: unknown
    issuer, subset = None, False
    child = op_key(op)
    for parent in parent_ops(op):
        warps = None
        if parent.name == "nvasync.warp_role":
            start = parent.attributes["first_warp"].value
            warps = (start, parent.attributes["num_warps"].value)
        elif parent.name == "scf.if" and is_divergent(parent.operands[0]):
            cond = parent.operands[0]
            taken = child.block.region == parent.regions[0]
            elected = elect_op(cond) if taken else None
            if elected is not None:
                issuer = (elected,)       # a 1-tuple: an ir.Operation does not compare with None
            else:
                warps = warps_taking(cond, taken)
                subset |= warps is None
        elif parent.name != "scf.if" and any(is_divergent(v) for v in control_operands(parent)):
            subset = True                  # e.g. a loop whose trip count differs between threads
        if warps is not None:
            first = max(first, warps[0])
            end = sum(warps) if end is None else min(end, sum(warps))
        child = parent
    if end is not None and first >= end:
        subset, end = True, first          # no thread gets here
    role = None if first == 0 and end == total else (first, end - first)
    return Threads(role, issuer, subset and issuer is None)


# --- which threads take a branch -----------------------------------------------------------------

def warps_taking(cond, taken: bool = True) -> tuple[int, int] | None:
    """(first warp, count) when the threads for which `cond` is `taken` are exactly a contiguous
    range of whole warps, decided by the thread index alone: the condition is evaluated for every
    thread of the declared block size (`gpu.known_block_size`).  None when the block size is
    unknown, the condition depends on anything else (an `andi` with a uniform value included:
    nest the branches instead), or the set is anything else."""
    key = (_value_key(cond), taken)
    if key not in _warps:
        _warps[key] = _warps_taking(cond, taken)
    return _warps[key]


def _warps_taking(cond, taken):
    if isinstance(cond, ir.BlockArgument):
        return None
    dims = block_dims(enclosing_func(cond.owner))
    if dims is None or (dims[0] * dims[1] * dims[2]) % 32:
        return None
    values = per_thread(cond, dims, {})
    if values is None:
        return None
    warps = []
    for w in range(len(values) // 32):
        lanes = {bool(v) == taken for v in values[32 * w:32 * w + 32]}
        if len(lanes) > 1:
            return None                    # a warp split by the condition
        if True in lanes:
            warps.append(w)
    if not warps or warps != list(range(warps[0], warps[-1] + 1)):
        return None
    return warps[0], len(warps)


def _width(ty) -> int:
    return 64 if isinstance(ty, ir.IndexType) else ir.IntegerType(ty).width


def _signed(v, w):
    return v - (1 << w) if v >> (w - 1) & 1 else v


def _truncdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_BINARY = {
    "arith.addi": lambda a, b, w: a + b, "arith.subi": lambda a, b, w: a - b,
    "arith.muli": lambda a, b, w: a * b, "arith.andi": lambda a, b, w: a & b,
    "arith.ori": lambda a, b, w: a | b, "arith.xori": lambda a, b, w: a ^ b,
    "arith.divui": lambda a, b, w: a // b, "arith.remui": lambda a, b, w: a % b,
    "arith.ceildivui": lambda a, b, w: -(-a // b),
    "arith.divsi": lambda a, b, w: _truncdiv(_signed(a, w), _signed(b, w)),
    "arith.remsi": lambda a, b, w: _signed(a, w) - _signed(b, w) * _truncdiv(_signed(a, w), _signed(b, w)),
    "arith.floordivsi": lambda a, b, w: _signed(a, w) // _signed(b, w),
    "arith.ceildivsi": lambda a, b, w: -(-_signed(a, w) // _signed(b, w)),
    "arith.shli": lambda a, b, w: a << b if b < w else 0, "arith.shrui": lambda a, b, w: a >> b,
    "arith.shrsi": lambda a, b, w: _signed(a, w) >> b,
    "arith.minui": lambda a, b, w: min(a, b), "arith.maxui": lambda a, b, w: max(a, b),
    "arith.minsi": lambda a, b, w: min(_signed(a, w), _signed(b, w)),
    "arith.maxsi": lambda a, b, w: max(_signed(a, w), _signed(b, w)),
}
_COMPARE = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 6: lambda a, b: a < b, 7: lambda a, b: a <= b,
            8: lambda a, b: a > b, 9: lambda a, b: a >= b}          # unsigned; 2-5: the signed forms
_CASTS = {"arith.index_cast": True, "arith.extsi": True, "arith.index_castui": False,
          "arith.extui": False, "arith.trunci": False}              # name -> sign-extends


def per_thread(value, dims, memo):
    """`value` in every thread of the block (linear thread order, unsigned in its bit width), or
    None when it depends on anything but the thread index and constants."""
    if isinstance(value, ir.BlockArgument):
        return None
    key = _value_key(value)
    if key not in memo:
        memo[key] = _evaluate(op_key(value.owner), value, dims, memo)
    return memo[key]


def _evaluate(owner, value, dims, memo):
    count = dims[0] * dims[1] * dims[2]
    name = owner.name
    try:
        w = _width(value.type)
    except ValueError:
        return None
    mask = (1 << w) - 1
    if name == "arith.constant":
        try:
            return [ir.IntegerAttr(owner.attributes["value"]).value & mask] * count
        except ValueError:
            return None
    if name in ("gpu.thread_id", "gpu.block_dim"):
        axis = "xyz".index(str(owner.attributes["dimension"])[-2])
        if name == "gpu.block_dim":
            return [dims[axis]] * count
        stride = 1 if axis == 0 else dims[0] if axis == 1 else dims[0] * dims[1]
        return [t // stride % dims[axis] for t in range(count)]
    if name == "gpu.lane_id":
        return [t % 32 for t in range(count)]
    operands = [per_thread(v, dims, memo) for v in owner.operands]
    if any(o is None for o in operands):
        return None
    if name in _BINARY:
        a, b = operands
        if name in ("arith.divui", "arith.remui", "arith.ceildivui", "arith.divsi", "arith.remsi",
                    "arith.floordivsi", "arith.ceildivsi") and 0 in b:
            return None
        return [_BINARY[name](x, y, w) & mask for x, y in zip(a, b)]
    if name == "arith.cmpi":
        pred = ir.IntegerAttr(owner.attributes["predicate"]).value
        a, b = operands
        ow = _width(owner.operands[0].type)
        if 2 <= pred <= 5:
            a, b, pred = [_signed(x, ow) for x in a], [_signed(x, ow) for x in b], pred + 4
        return [int(_COMPARE[pred](x, y)) for x, y in zip(a, b)]
    if name == "arith.select":
        c, a, b = operands
        return [x if k else y for k, x, y in zip(c, a, b)]
    if name in _CASTS:
        iw = _width(owner.operands[0].type)
        src = operands[0]
        return [(_signed(x, iw) if _CASTS[name] else x) & mask for x in src]
    return None


# --- barriers -------------------------------------------------------------------------------------

CLUSTER_SYNC = "nvasync.cluster_sync"
CLUSTER_BARRIERS = (CLUSTER_SYNC, "nvasync.cluster_arrive", "nvasync.cluster_wait")


def barrier_problem(op) -> str | None:
    """Why the barrier `op` does not name exactly the threads that reach it (None: it does).
    `bar.sync 0` waits for every thread of the CTA; `bar.sync id, n` for n threads, counted per
    warp: a barrier reached by fewer threads hangs, one reached by more releases early.  A cluster
    barrier waits for every thread of every CTA of the cluster: reached by every thread, and only
    in the kernel's top-level block (what conditions are uniform over a cluster is not modelled)."""
    who = threads_of(op)
    name = op_key(op).name
    if name in CLUSTER_BARRIERS:
        if who != Threads(None):
            return (f"'{name}' waits for every thread of every CTA of the cluster, but only "
                    f"{who.describe()} reach it: a hang")
        if op_key(op).parent.name != "gpu.func":
            return (f"'{name}' must stand in the kernel's top-level block: a condition or loop "
                    "around it could differ between the CTAs of a cluster (a hang)")
        return None
    if op_key(op).name == "nvasync.sync_threads":
        if who == Threads(None):
            return None
        return (f"'nvasync.sync_threads' (bar.sync 0) waits for every thread of the CTA, but only "
                f"{who.describe()} reach it (a condition or warp role that is not block-uniform): a hang")
    count = op_key(op).attributes["threads"].value
    if who.issuer or who.subset:
        return (f"named barrier {op_key(op).attributes['id'].value} is reached by {who.describe()}, "
                "which is not a set of whole warps: its thread count cannot name them")
    warps = who.role[1] if who.role else warp_count(enclosing_func(op))
    if warps is None:
        return (f"named barrier {op_key(op).attributes['id'].value} is reached by every thread of a "
                "CTA whose size is unknown (no gpu.known_block_size): its thread count cannot be checked")
    if 32 * warps != count:
        return (f"named barrier {op_key(op).attributes['id'].value} counts {count} threads but "
                f"{32 * warps} reach it ({who.describe()})")
    return None


def barrier_orders(op, a: Threads, b: Threads) -> bool:
    """Does barrier `op`, where it stands, order the threads of `a` before those of `b`?  It must
    name exactly the threads reaching it, and those must include both sets."""
    who = threads_of(op)
    return barrier_problem(op) is None and who.covers(a) and who.covers(b)


# Fences that order generic writes to the CTA's shared memory before the async proxy: the
# cluster's shared memory includes the CTA's, and the bare form covers every state space.
FENCE_SPACES_COVERING_CTA_SMEM = ("shared::cta", "shared::cluster", "all")


def named_attributes(op):
    """An op's NamedAttributes (iterating `op.attributes` yields only names)."""
    attributes = op.attributes
    return [attributes[i] for i in range(len(attributes))]


def structural_key(value, depth=0):
    """Equal keys: the values are computed the same way from the same inputs."""
    if isinstance(value, ir.BlockArgument):
        return ("arg", block_key(value.owner), value.arg_number)
    owner = op_key(value.owner)
    if depth > 12 or not (owner.name.startswith(("arith.", "gpu.", "index.")) and len(owner.regions) == 0):
        return ("value", owner, value.result_number if hasattr(value, "result_number") else 0)
    attrs = tuple(sorted((a.name, str(a.attr)) for a in named_attributes(owner)))
    return (owner.name, attrs, tuple(structural_key(v, depth + 1) for v in owner.operands))


def accesses(func) -> list[Access]:
    found: list[Access] = []

    def visit(op):
        name = op.name
        if name in GENERIC_ACCESS:
            is_write, buf_index, first_index = GENERIC_ACCESS[name]
            buffer = op.operands[buf_index]
            if is_smem(buffer):
                indices = list(op.operands)[first_index:]
                mapping = None
                if any(is_divergent(i) for i in indices):
                    # what one thread touches: where (indices) and how much (the accessed type)
                    accessed = op.results[0].type if not is_write else op.operands[0].type
                    mapping = (byte_range(buffer), tuple(structural_key(i) for i in indices), str(accessed))
                found.append(Access(op, *byte_range(buffer), is_write, "generic", threads_of(op), mapping))
        if name in MBARRIER_OPS:
            view = op.opview
            start, end = byte_range(view.barriers)
            stage = linear(view.stage)
            if stage is not None and stage[0] is None and end != UNBOUNDED:   # one known mbarrier
                start, end = start + 8 * stage[2], start + 8 * stage[2] + 8
            found.append(Access(op, start, end, MBARRIER_OPS[name], "mbarrier", threads_of(op), None,
                                name in REMOTE_MBARRIER_OPS))
        if name not in GENERIC_ACCESS:
            sem = nvasync.semantics(name)
            if sem is not None and (sem.reads or sem.writes):
                view = op.opview
                for names, is_write in ((sem.reads, False), (sem.writes, True)):
                    for operand in names:
                        value = getattr(view, operand)
                        if name == "nvasync.wgmma":     # a k-slice (subview) reads across its whole tile
                            value = nvasync.wgmma_tile(value)[0]
                        found.append(Access(op, *byte_range(value), is_write, sem.proxy, threads_of(op), None))
        return ir.WalkResult.ADVANCE

    func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def same_thread_mapping(a: Access, b: Access) -> bool:
    """Each thread touches only elements it touched itself (no cross-thread hazard)."""
    return (a.proxy == b.proxy == "generic" and a.mapping is not None and a.mapping == b.mapping
            and a.threads == b.threads)


# --- induction-variable arithmetic for guards ------------------------------------------------------

def linear(value):
    """(iv key, coeff, const) when `value` = iv * coeff + const on an scf.for IV, or (None, 0, c)."""
    if isinstance(value, ir.BlockArgument):
        if op_key(value.owner.owner).name == "scf.for" and value.arg_number == 0:
            return (block_key(value.owner), 1, 0)
        return None
    owner = op_key(value.owner)
    if owner.name == "arith.constant":
        try:
            return (None, 0, ir.IntegerAttr(owner.attributes["value"]).value)
        except (ValueError, TypeError):
            return None
    if owner.name in ("arith.addi", "arith.muli"):
        a, b = (linear(v) for v in owner.operands)
        if a is None or b is None:
            return None
        if owner.name == "arith.addi":
            if a[0] is not None and b[0] is not None and a[0] != b[0]:
                return None
            return (a[0] or b[0], a[1] + b[1], a[2] + b[2])
        if a[0] is not None and b[0] is not None:
            return None
        (var, coeff, const), scale = (a, b[2]) if b[0] is None else (b, a[2])
        return (var, coeff * scale, const * scale)
    return None


def loop_step(iv_key) -> int | None:
    """The constant step of the scf.for whose body block has key `iv_key` (see `block_key`)."""
    return _steps.get(iv_key)


_steps: dict[int, int] = {}


def record_loop_steps(func) -> None:
    def visit(op):
        if op.name == "scf.for":
            step = linear(op.operands[2])
            if step is not None and step[0] is None:
                _steps[block_key(op.regions[0].blocks[0])] = step[2]
        return ir.WalkResult.ADVANCE

    func.walk(visit)


# --- wgmma accumulators --------------------------------------------------------------------------

def accumulator_readers(func) -> list[tuple]:
    """(wgmma, reader) pairs: ops other than wgmma/scf.yield that read a wgmma result, directly or
    through the scf.for and scf.if results it is carried into (a yield hands the registers on; it
    reads nothing)."""
    pairs = []

    def readers_of(value, wgmma, seen):
        for use in value.uses:
            user = op_key(use.owner)
            if user.name == "nvasync.wgmma":
                continue
            if user.name == "scf.yield" and op_key(user.parent).name in ("scf.for", "scf.if"):
                carrier = op_key(user.parent)
                result = carrier.results[use.operand_number]
                if carrier not in seen:
                    seen.add(carrier)
                    readers_of(result, wgmma, seen)
                continue
            pairs.append((wgmma, user))

    def visit(op):
        if op.name == "nvasync.wgmma":
            readers_of(op.results[0], op, set())
        return ir.WalkResult.ADVANCE

    func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return pairs
