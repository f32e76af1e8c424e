"""What the sync passes and the verifier know about a kernel: smem accesses, threads, guards.

Facts only, no placement policy.  Both the insertion passes and fuser-verify-syncs read them;
each decides on its own what the facts require.

* `accesses(func)`: every shared-memory access with its byte range (from `nvasync.smem_buffer`;
  two accesses conflict when the ranges overlap), read or write, proxy (generic for
  memref/vector loads and stores, async for TMA and wgmma per `nvasync.Semantics`), the threads
  that execute it and, for generic accesses, a structural key of its thread->element mapping.
* `threads_of(op)`: "all", a warp role (first warp, count), or the role's "issuer" (one elected
  lane, the `elect_one` guard): derived from the enclosing warp_role and divergent scf.if guards.
* `is_divergent(value)`: depends on the thread index, `elect_one` or loaded data.
* `linear(value)`: `iv * coeff + const` for index arithmetic on an scf.for induction variable,
  so guards like `r * S + s < n` can be compared across stages and iterations.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..dialects import nvasync

MBARRIER_OPS = {"nvasync.mbarrier_init": True, "nvasync.mbarrier_inval": True, "nvasync.mbarrier_arrive": False,
                "nvasync.mbarrier_arrive_expect_tx": False, "nvasync.mbarrier_try_wait_parity": False,
                "nvasync.tma_load": False}   # op -> writes the mbarrier word (init/inval) or only uses it
GENERIC_ACCESS = {
    "memref.load": (False, 0, 1), "memref.store": (True, 1, 2),
    "vector.load": (False, 0, 1), "vector.store": (True, 1, 2),
}   # name -> (is_write, buffer operand index, first index operand)
THREAD_SOURCES = {"gpu.thread_id", "gpu.lane_id", "nvasync.elect_one", "memref.load", "vector.load"}
UNBOUNDED = 1 << 62


@dataclass(frozen=True)
class Threads:
    role: tuple[int, int] | None      # (first_warp, num_warps); None: every warp of the CTA
    issuer: int | None = None         # one elected lane: the elect_one op selecting it (its hash)
    subset: bool = False              # some other divergent subset

    def describe(self) -> str:
        who = "all threads" if self.role is None else f"warps [{self.role[0]}, {sum(self.role)})"
        return f"the issuing thread of {who}" if self.issuer else (f"a subset of {who}" if self.subset else who)


@dataclass(frozen=True)
class Access:
    op: object                        # ir.Operation
    start: int
    end: int
    is_write: bool
    proxy: str                        # "generic" | "async" | "mbarrier" (an mbarrier word)
    threads: Threads
    mapping: tuple | None             # generic: structural key of (buffer, indices) if thread-indexed

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
            return (hash(owner), index)
    raise ValueError("block not found in its owner")


def memref_bytes(ty) -> int:
    """Bytes of a statically shaped memref type."""
    ty = ir.MemRefType(ty)
    size = ty.element_type.width // 8
    for d in ty.shape:
        size *= d
    return size


def byte_range(value) -> tuple[int, int]:
    owner = op_key(value.owner)
    if isinstance(owner, ir.Operation) and owner.name == "nvasync.smem_buffer":
        start = owner.attributes["offset"].value
        return start, start + memref_bytes(value.type)
    return 0, UNBOUNDED                # a derived view: assume it may alias anything


def is_smem(value) -> bool:
    return isinstance(value.type, ir.MemRefType) and str(value.type.memory_space) == "#gpu.address_space<workgroup>"


def parent_ops(op):
    """Enclosing operations, innermost first, up to (excluding) the gpu.func."""
    chain = []
    parent = op_key(op).parent
    while parent is not None and op_key(parent).name != "gpu.func":
        chain.append(op_key(parent))
        parent = op_key(parent).parent
    return chain


_divergent: dict[int, bool] = {}    # op hash -> result divergence; cleared by `reset_memo`


def reset_memo() -> None:
    """Forget memoized facts (op hashes are pointers: call at the start of every pass run)."""
    _divergent.clear()


def is_divergent(value) -> bool:
    if isinstance(value, ir.BlockArgument):
        return False                   # kernel args and loop IVs are uniform
    owner = op_key(value.owner)
    key = hash(owner)
    if key not in _divergent:
        _divergent[key] = False        # (SSA is acyclic outside block arguments)
        _divergent[key] = owner.name in THREAD_SOURCES or any(is_divergent(v) for v in owner.operands)
    return _divergent[key]


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


def threads_of(op) -> Threads:
    role, issuer, subset = None, None, False
    for parent in parent_ops(op):
        if parent.name == "nvasync.warp_role" and role is None:
            role = (parent.attributes["first_warp"].value, parent.attributes["num_warps"].value)
        elif parent.name == "scf.if" and is_divergent(parent.operands[0]):
            elected = elect_op(parent.operands[0])
            if elected is not None:
                issuer = hash(elected)
            else:
                subset = True
    return Threads(role, issuer, subset and issuer is None)


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
        return ("value", hash(owner), value.result_number if hasattr(value, "result_number") else 0)
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
            found.append(Access(op, start, end, MBARRIER_OPS[name], "mbarrier", threads_of(op), None))
        if name not in GENERIC_ACCESS:
            sem = nvasync.semantics(name)
            if sem is not None and (sem.reads or sem.writes):
                view = op.opview
                for names, is_write in ((sem.reads, False), (sem.writes, True)):
                    for operand in names:
                        value = getattr(view, operand)
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
    through the scf.for results it is carried into."""
    pairs = []

    def readers_of(value, wgmma, seen):
        for use in value.uses:
            user = op_key(use.owner)
            if user.name == "nvasync.wgmma":
                continue
            if user.name == "scf.yield" and op_key(user.parent).name == "scf.for":
                loop = op_key(user.parent)
                result = loop.results[use.operand_number]
                if hash(loop) not in seen:
                    seen.add(hash(loop))
                    readers_of(result, wgmma, seen)
                continue
            pairs.append((wgmma, user))

    def visit(op):
        if op.name == "nvasync.wgmma":
            readers_of(op.results[0], op, set())
        return ir.WalkResult.ADVANCE

    func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return pairs
