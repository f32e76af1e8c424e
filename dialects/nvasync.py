"""The `nvasync` dialect: how Hopper moves data asynchronously, with the facts analyses need.

Every op states, in its `Semantics`, which shared-memory operand it reads or writes, through which
proxy, how its completion is observed and who must execute it.  The sync passes read these facts;
they never look at PTX.

Shared memory is one dynamic allocation.  `nvasync.smem_buffer {offset}` is a view at a fixed byte
offset, so two buffers alias exactly when their byte ranges overlap.  mbarriers are `i64` elements
of such a buffer, addressed as (buffer, stage index).  TMA descriptors are `!llvm.ptr` kernel
arguments (passed by value as `__grid_constant__`).

The PTX each op becomes is listed in `PTX` below and in the README.
"""
from __future__ import annotations

from dataclasses import dataclass

from .opdef import Attr, OpDef, Operand, make_opviews

DIALECT = "nvasync"


@dataclass(frozen=True)
class Semantics:
    reads: tuple[str, ...] = ()       # shared-memory operands the op reads
    writes: tuple[str, ...] = ()      # shared-memory operands the op writes
    proxy: str = "generic"            # "async": TMA / wgmma access smem through the async proxy;
    #                                   "cluster": a peer CTA's shared memory (distributed)
    completion: str | None = None     # "mbarrier" | "bulk_group" | "wgmma_group": how to observe it
    executed_by: str = "thread"       # "thread" (any set of threads; TMA: one elected thread),
    #                                   "warp" (all lanes, converged), "warpgroup" (all 128 threads),
    #                                   "cta" (every thread), "cluster" (every thread of every CTA)
    is_sync: bool = False             # a barrier/fence/wait/commit: what the sync passes insert
    hint: bool = False                # a cache hint: moves no data any thread observes (orders against nothing)


def _op(name, summary, operands=(), results=(), attrs=(), regions=(), semantics=Semantics(), ptx=""):
    return OpDef(name, summary, tuple(operands), tuple(results), tuple(attrs), tuple(regions),
                 extra={"semantics": semantics, "ptx": ptx})


_BARRIER = (Operand("barriers", "memref"), Operand("stage", "index"))
_SYNC = Semantics(is_sync=True)

OPS = [
    _op("smem_buffer", "A view of the dynamic shared memory at a fixed byte offset.",
        results=[Operand("buffer", "memref")], attrs=[Attr("offset", "i64")],
        ptx="(address arithmetic on the `.extern .shared .align 1024` array)"),
    _op("tma_load", "TMA tile load global -> `dst`; completes on mbarrier `barriers[stage]` "
        "(complete_tx bytes). Issued by one thread.",
        operands=[Operand("desc", "ptr"), Operand("dst", "memref"), *_BARRIER,
                  Operand("coords", "i32", variadic=True)],
        semantics=Semantics(writes=("dst",), proxy="async", completion="mbarrier"),
        ptx="cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes"),
    _op("tma_load_multicast", "TMA tile load global -> `dst` shared by the `ctas` CTAs of the cluster "
        "(the kernel's `nvvm.cluster_dim`), each running this op with the same operands: CTA r loads "
        "slice r of the tile (`dst`'s dim 0 split `ctas` ways, coordinate 0 advanced by r x rows / ctas; "
        "the descriptor's box is one slice) and delivers it to `dst` and to mbarrier `barriers[stage]` "
        "of every CTA of the cluster.  So each CTA's `dst` fills whole and its barrier completes `dst`'s "
        "bytes, as for tma_load.  Issued by one thread.",
        operands=[Operand("desc", "ptr"), Operand("dst", "memref"), *_BARRIER,
                  Operand("coords", "i32", variadic=True)],
        attrs=[Attr("ctas", "i32")],
        semantics=Semantics(writes=("dst",), proxy="async", completion="mbarrier"),
        ptx="cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"),
    _op("pipeline_load", "A TMA tile load global -> `dst` inside a loop marked `nvasync.pipeline`: "
        "one stage's worth, with no mbarrier. fuser-pipeline-mbarriers gives it its stage buffer, "
        "its mbarrier protocol and its issuing thread (`role` names its producer).",
        operands=[Operand("desc", "ptr"), Operand("dst", "memref"), Operand("coords", "i32", variadic=True)],
        attrs=[Attr("role", "str", "producer")],
        semantics=Semantics(writes=("dst",), proxy="async", completion="mbarrier"),
        ptx="(rewritten into tma_load by fuser-pipeline-mbarriers)"),
    _op("tma_prefetch", "Prefetch the TMA tile at `coords` from global memory into L2.  A hint: nothing "
        "any thread observes is read or written (L2 is where every SM's global accesses meet, so a line "
        "fetched early is never stale), so it needs no wait and may run before `grid_dependency_wait`.  "
        "Issued by one thread.",
        operands=[Operand("desc", "ptr"), Operand("coords", "i32", variadic=True)],
        semantics=Semantics(hint=True), ptx="cp.async.bulk.prefetch.tensor.Nd.L2.global.tile"),
    _op("tma_store", "TMA tile store `src` -> global; completes through the bulk group. "
        "Issued by one thread.",
        operands=[Operand("desc", "ptr"), Operand("src", "memref"), Operand("coords", "i32", variadic=True)],
        semantics=Semantics(reads=("src",), proxy="async", completion="bulk_group"),
        ptx="cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group"),
    _op("tma_reduce", "TMA reduce-store: global op= `src` (kind: add | min | max); bulk group.",
        operands=[Operand("desc", "ptr"), Operand("src", "memref"), Operand("coords", "i32", variadic=True)],
        attrs=[Attr("kind", "str")],
        semantics=Semantics(reads=("src",), proxy="async", completion="bulk_group"),
        ptx="cp.reduce.async.bulk.tensor.Nd.global.shared::cta.{add|min|max}.tile.bulk_group"),
    _op("bulk_commit", "Close the issuing thread's open bulk group.",
        semantics=_SYNC, ptx="cp.async.bulk.commit_group"),
    _op("bulk_wait", "Wait until at most `pending` bulk groups of this thread are in flight; with "
        "`read`, only until their smem sources have been read.",
        attrs=[Attr("pending", "i32", 0), Attr("read", "bool", False)],
        semantics=_SYNC, ptx="cp.async.bulk.wait_group[.read] N"),
    _op("mbarrier_init", "Initialise mbarrier `barriers[stage]` with an arrival count.",
        operands=_BARRIER, attrs=[Attr("count", "i32")],
        semantics=Semantics(is_sync=True), ptx="mbarrier.init.shared.b64"),
    _op("mbarrier_arrive", "Arrive on `barriers[stage]`.",
        operands=_BARRIER, semantics=_SYNC, ptx="mbarrier.arrive.shared.b64"),
    _op("mbarrier_arrive_cluster", "Arrive on `barriers[stage]` of the CTA of rank `cta` in this CTA's "
        "cluster: `barriers`, as for store_peer, names the same array in every CTA.  It releases at CTA "
        "scope (the default): a stage's release needs its reads done, not ordered for the cluster.",
        operands=[*_BARRIER, Operand("cta", "i32")], semantics=_SYNC,
        ptx="mapa.shared::cluster.u64; mbarrier.arrive.shared::cluster.b64"),
    _op("mbarrier_arrive_expect_tx", "Arrive on `barriers[stage]` and expect `bytes` of TMA "
        "transactions in this phase.",
        operands=_BARRIER, attrs=[Attr("bytes", "i32")],
        semantics=_SYNC, ptx="mbarrier.arrive.expect_tx.shared.b64"),
    _op("mbarrier_try_wait_parity", "Wait (looping on try_wait) until the phase of "
        "`barriers[stage]` with parity `parity` has completed.",
        operands=[*_BARRIER, Operand("parity", "i32")],
        semantics=_SYNC, ptx="mbarrier.try_wait.parity.shared.b64 (in a retry loop)"),
    _op("mbarrier_inval", "Invalidate `barriers[stage]` before its memory is reused.",
        operands=_BARRIER, semantics=_SYNC, ptx="mbarrier.inval.shared.b64"),
    _op("release_flag", "Signal other CTAs (a semaphore release): atomically add `value` to the i32 "
        "at global address `flag`, with release semantics at GPU scope.",
        operands=[Operand("flag", "global_ptr"), Operand("value", "i32")],
        semantics=Semantics(), ptx="red.release.gpu.global.add.s32"),
    _op("wait_flag", "Acquire a semaphore: each executing thread spins until the i32 at global address "
        "`flag` is at least `value` (ld.acquire.gpu), so what the releasers wrote before their release "
        "is visible to it -- and, `for_group`, to every thread of the group reaching the divergent "
        "branch it runs in, once fuser-insert-syncs' barrier after that branch orders them after it.",
        operands=[Operand("flag", "global_ptr"), Operand("value", "i32")],
        attrs=[Attr("for_group", "bool", False)],
        semantics=Semantics(), ptx="ld.acquire.gpu.global.b32 in a retry loop"),
    _op("arrive_flag", "Arrive on a semaphore: atomically add `value` to the i32 at global address `flag` "
        "and return what it held before (`old`), with release and acquire semantics at GPU scope: a "
        "release_flag, and an acquire of what the earlier arrivals released -- for the executing "
        "thread and, `for_group`, for its group, as for wait_flag.",
        operands=[Operand("flag", "global_ptr"), Operand("value", "i32")], results=[Operand("old", "i32")],
        attrs=[Attr("for_group", "bool", False)],
        semantics=Semantics(), ptx="atom.acq_rel.gpu.global.add.u32"),
    _op("reset_flag", "Leave a semaphore ready for the next launch: its only waiter, past a wait_flag "
        "that saw the last release, stores 0.  No release follows, and no other CTA touches it again.",
        operands=[Operand("flag", "global_ptr")],
        semantics=Semantics(), ptx="st.relaxed.gpu.global.b32 0"),
    _op("split_k_store", "A scheduler's mark (fuser-tma-reduce-store rewrites it): split `split` of a "
        "split-K tile adds its partial box `src` into the f32 workspace tile at `coords` (`desc`) -- or, "
        "mode slots, stores it into a slot of its own there --, and signals semaphore `flag` once its run "
        "of boxes is in (mode: atomic | deterministic | slots; in atomic mode the signal is the "
        "split_k_last after it). Issued by one thread; in modes deterministic and slots never by the "
        "tile's last split, which waits with split_k_wait.",
        operands=[Operand("desc", "ptr"), Operand("src", "memref"), Operand("flag", "global_ptr"),
                  Operand("split", "i32"), Operand("coords", "i32", variadic=True)],
        attrs=[Attr("mode", "str")],
        semantics=Semantics(reads=("src",), proxy="async", completion="bulk_group"),
        ptx="(rewritten by fuser-tma-reduce-store)"),
    _op("split_k_wait", "A scheduler's mark (fuser-tma-reduce-store rewrites it): the last of `splits` "
        "splits of a tile waits until the other splits' partials are in its workspace tile, for every "
        "executing thread, and leaves the tile's semaphore `flag` ready for the next launch; `issuer` "
        "selects the thread that acquires for the others (the kernel's TMA issuer).",
        operands=[Operand("flag", "global_ptr"), Operand("issuer", "i1")], attrs=[Attr("splits", "i32")],
        semantics=Semantics(), ptx="(rewritten by fuser-tma-reduce-store)"),
    _op("split_k_last", "A scheduler's mark (fuser-tma-reduce-store rewrites it), atomic mode: this split "
        "arrives on semaphore `flag`, its partial added before (the split_k_stores before it); `last` is "
        "true, for every executing thread, when every other of the tile's `splits` splits arrived before "
        "it: this split then runs the tile's epilogue on the workspace, and leaves `flag` ready for the "
        "next launch.  `issuer` arrives for the others and hands the count on in `cell` (an i32 of "
        "shared memory, the kernel's).",
        operands=[Operand("flag", "global_ptr"), Operand("issuer", "i1"), Operand("cell", "memref")],
        results=[Operand("last", "i1")], attrs=[Attr("splits", "i32")],
        semantics=Semantics(), ptx="(rewritten by fuser-tma-reduce-store)"),
    _op("fence_proxy_async", "Order generic-proxy accesses before async-proxy ones "
        "(space: shared::cta | shared::cluster | global | all).",
        attrs=[Attr("space", "str", "shared::cta")],
        semantics=_SYNC, ptx="fence.proxy.async{.shared::cta|.shared::cluster|.global|}"),
    _op("grid_dependency_wait", "Wait until the grids this kernel depends on (the kernel before it in its "
        "stream, when the launch let this one start early: programmatic dependent launch) have completed "
        "and their memory operations are visible to this thread; at once otherwise.",
        semantics=_SYNC, ptx="griddepcontrol.wait"),
    _op("launch_dependents", "Let the kernel after this one in its stream, launched as its programmatic "
        "dependent, start once every CTA of this grid has run this op or exited (it still waits, "
        "`grid_dependency_wait`, for this grid to complete before it touches memory).",
        semantics=_SYNC, ptx="griddepcontrol.launch_dependents"),
    _op("fence_mbarrier_init", "Make mbarrier initialisation visible to the async proxy/cluster.",
        semantics=_SYNC, ptx="fence.mbarrier_init.release.cluster"),
    _op("cluster_rank", "This CTA's rank in its cluster (the kernel's `nvvm.cluster_dim`).",
        results=[Operand("rank", "i32")], ptx="mov.u32 %r, %cluster_ctarank"),
    _op("store_peer", "Store `value` into `dst[index]` of the CTA of rank `peer` in this CTA's cluster "
        "(distributed shared memory): `dst`, rank 1, names the same buffer in every CTA of the cluster; "
        "a vector value fills dst[index ..] (aligned to its size: one vector store).",
        operands=[Operand("value", "any"), Operand("dst", "memref"), Operand("peer", "i32"), Operand("index", "index")],
        semantics=Semantics(writes=("dst",), proxy="cluster"),
        ptx="mapa.shared::cluster.u64; st.shared::cluster"),
    _op("cluster_sync", "Barrier over every thread of every CTA of the cluster: their shared-memory "
        "accesses before it, a peer's distributed stores included, happen before those after it "
        "(release at the arrive, acquire at the wait).",
        semantics=Semantics(is_sync=True, executed_by="cluster"),
        ptx="barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned"),
    _op("cluster_arrive", "The arrive half of a cluster barrier, relaxed (no memory ordering): with the "
        "matching cluster_wait, every CTA of the cluster has started (its shared memory exists).",
        semantics=Semantics(is_sync=True, executed_by="cluster"), ptx="barrier.cluster.arrive.relaxed.aligned"),
    _op("cluster_wait", "The wait half of a cluster barrier: every thread of the cluster has arrived.",
        semantics=Semantics(is_sync=True, executed_by="cluster"), ptx="barrier.cluster.wait.aligned"),
    _op("sync_threads", "Barrier over all threads of the CTA (`__syncthreads`).",
        semantics=Semantics(is_sync=True, executed_by="cta"), ptx="bar.sync 0"),
    _op("named_barrier", "Barrier `id` (1-15) over `threads` threads (a multiple of 32).",
        attrs=[Attr("id", "i32"), Attr("threads", "i32")],
        semantics=Semantics(is_sync=True, executed_by="warp"), ptx="bar.sync id, threads"),
    _op("warp_sync", "Barrier over the lanes of the warp, ordering their memory accesses (`__syncwarp`).",
        semantics=Semantics(is_sync=True, executed_by="warp"), ptx="bar.warp.sync 0xffffffff"),
    _op("elect_one", "True in exactly one lane of each converged warp.",
        results=[Operand("elected", "i1")], semantics=Semantics(executed_by="warp"),
        ptx="elect.sync _|p, 0xffffffff"),
    _op("wgmma_fence", "Order register/smem accesses before the following wgmma.",
        semantics=Semantics(is_sync=True, executed_by="warpgroup"), ptx="wgmma.fence.sync.aligned"),
    _op("wgmma", "acc += A x B^T on a warpgroup: A [64 x 16] and B [N x 16], both K-major in smem "
        "laid out as a `swizzle`-byte swizzled tile (rows `swizzle` bytes apart, as a TMA box of that "
        "swizzle writes it); acc vector<N/2 x f32> per thread. `accumulate=false` ignores acc. "
        "An operand is either a whole tile one k-step wide (16 columns, 32-byte swizzle for 16-bit "
        "types) or the k-th 16-column slice of a wider tile, `memref.subview %tile[r, 16k] [rows, 16] "
        "[1, 1]` (a static column; r a multiple of 8, static or a value such as a consumer warpgroup's "
        "first row, which only the builder can vouch for): the descriptor's start address then moves "
        "by r rows (whole swizzle atoms) and 32*k bytes inside the atom (the hardware applies the "
        "swizzle to the final address).  A rank-3 B is N-major (wgmma's transposed B, imm-trans-b: "
        "from a [K, N] matrix): [N/R, 16, R] with R = `swizzle` bytes of elements, the k-th 16-row "
        "slice `memref.subview %tile[0, 16k, 0] [N/R, 16, R] [1, 1, 1]` of a tile [N/R, rows, R] of "
        "N/R column boxes, each laid out as a TMA box of that swizzle writes it.  The access is "
        "the whole underlying tile.",
        operands=[Operand("a", "memref"), Operand("b", "memref"), Operand("acc", "vector")],
        results=[Operand("result", "vector", same_as="acc")],
        attrs=[Attr("swizzle", "i32", 128), Attr("accumulate", "bool", True)],
        semantics=Semantics(reads=("a", "b"), proxy="async", completion="wgmma_group",
                            executed_by="warpgroup"),
        ptx="wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16|f16}.{bf16|f16}"),
    _op("wgmma_commit", "Close the warpgroup's open wgmma group.",
        semantics=Semantics(is_sync=True, executed_by="warpgroup"),
        ptx="wgmma.commit_group.sync.aligned"),
    _op("wgmma_wait", "Wait until at most `pending` wgmma groups are in flight.",
        attrs=[Attr("pending", "i32", 0)],
        semantics=Semantics(is_sync=True, executed_by="warpgroup"),
        ptx="wgmma.wait_group.sync.aligned N"),
    _op("setmaxnreg", "Change the per-thread register budget of the warpgroup (action inc | dec).",
        attrs=[Attr("regs", "i32"), Attr("action", "str")],
        semantics=Semantics(executed_by="warpgroup"), ptx="setmaxnreg.{inc|dec}.sync.aligned.u32 N"),
    _op("offload", "Run the body on `warps` warps of its own, once per iteration of the loop around it, "
        "beside the kernel's other roles: fuser-pipeline-mbarriers gives it warps of the producer "
        "warpgroup and hands the shared memory it uses from the consumers to it and back through "
        "mbarriers.  The body's one block argument is the thread's index in those warps; it ends "
        "with gpu.yield.",
        attrs=[Attr("warps", "i32")], regions=["body"],
        ptx="(none: fuser-pipeline-mbarriers rewrites it into a warp role)"),
    _op("warp_role", "Run the body on warps [first_warp, first_warp + num_warps) only "
        "(warp specialization). The body ends with gpu.yield.",
        attrs=[Attr("first_warp", "i32"), Attr("num_warps", "i32")], regions=["body"],
        ptx="(a warp-uniform branch on %tid.x / 32)"),
]

OPS_BY_NAME = {op.name: op for op in OPS}


def semantics(op_name: str) -> Semantics | None:
    """The semantics of `nvasync.<name>` (full name accepted), or None for other ops."""
    dialect, _, name = op_name.partition(".")
    return OPS_BY_NAME[name].extra["semantics"] if dialect == DIALECT and name in OPS_BY_NAME else None


# --- verification beyond what IRDL can state ------------------------------------------------------

FENCE_SPACES = ("shared::cta", "shared::cluster", "global", "all")
REDUCE_KINDS = ("add", "min", "max")
SPLIT_K_MODES = ("atomic", "deterministic", "slots")
WGMMA_SWIZZLES = (32, 64, 128)
TMA_ELEMENT_TYPES = ("f32", "f16", "bf16", "i8", "i16", "i32", "i64", "f64")


def verify_op(op) -> list[str]:
    """Errors (messages) for one nvasync op; the caller attaches the op's location."""
    op = op.operation
    check = _CHECKS.get(op.name.partition(".")[2])
    return check(op.opview) if check else []


def _ir():
    from mlir import ir

    return ir


def _is_workgroup_memref(ty) -> bool:
    from mlir import ir

    if not isinstance(ty, ir.MemRefType) or ty.memory_space is None:
        return False
    space = str(ty.memory_space)
    return space in ("#gpu.address_space<workgroup>", "3", "3 : i64", "3 : i32")


def _smem(view, name, what) -> list[str]:
    ty = getattr(view, name).type
    if not _is_workgroup_memref(ty):
        return [f"'{name}' ({what}) must be a shared-memory memref "
                f"(memory space #gpu.address_space<workgroup>), got {ty}"]
    if not ty.has_static_shape:
        return [f"'{name}' ({what}) must have a static shape, got {ty}"]
    return []


def _buffer_offset(value):
    """Byte offset of the smem_buffer that `value` is (None when it is a derived view)."""
    owner = value.owner
    name = getattr(owner, "name", None)
    if name == f"{DIALECT}.smem_buffer":
        return owner.attributes["offset"].value
    return None


def _barrier(view) -> list[str]:
    errors = _smem(view, "barriers", "mbarrier array")
    if not errors:
        ty = view.barriers.type
        if str(ty.element_type) != "i64" or ty.rank != 1:
            errors.append(f"'barriers' must be a 1-D memref of i64 mbarriers, got {ty}")
    return errors


def _tma(view, buffer_name) -> list[str]:
    errors = _smem(view, buffer_name, "TMA box") + _coords(view)
    if errors:
        return errors
    ty = getattr(view, buffer_name).type
    if ty.rank != len(view.coords):
        errors.append(f"the smem box has rank {ty.rank} but {len(view.coords)} coordinate(s) were given")
    if str(ty.element_type) not in TMA_ELEMENT_TYPES:
        errors.append(f"TMA does not move element type {ty.element_type}")
    if any(d > 256 for d in ty.shape):
        errors.append(f"TMA box dimensions must be at most 256 elements, got {list(ty.shape)}")
    offset = _buffer_offset(getattr(view, buffer_name))
    if offset is not None and offset % 128:
        errors.append(f"TMA smem buffers must be 128-byte aligned, buffer offset is {offset}")
    return errors


def _coords(view) -> list[str]:
    count = len(view.coords)
    return [] if 1 <= count <= 5 else [f"TMA takes 1 to 5 coordinates, got {count}"]


def _check_smem_buffer(view):
    ty = view.buffer.type
    errors = [] if _is_workgroup_memref(ty) else [
        f"result must be a memref in #gpu.address_space<workgroup>, got {ty}"]
    if not errors and not ty.has_static_shape:
        errors.append(f"smem buffers need a static shape, got {ty}")
    if not errors and str(ty.layout) != f"affine_map<({', '.join(f'd{i}' for i in range(ty.rank))}) -> ({', '.join(f'd{i}' for i in range(ty.rank))})>":
        errors.append(f"smem buffers need the identity layout, got {ty.layout}")
    offset = view.offset
    if offset < 0 or offset % 16:
        errors.append(f"offset must be a non-negative multiple of 16 bytes, got {offset}")
    return errors


def _check_tma_load_multicast(view):
    errors = _tma(view, "dst") + _barrier(view)
    if errors:
        return errors
    if not 2 <= view.ctas <= 16:
        return [f"ctas must be a cluster size in [2, 16], got {view.ctas}"]
    ty = view.dst.type
    rows = ty.shape[0]
    row_bytes = memref_bytes(ty) // rows
    # Each slice starts where a 128-byte-swizzled box may start: a 1024-byte boundary.
    if rows % view.ctas or (rows // view.ctas * row_bytes) % 1024:
        errors.append(f"dst's {rows} rows of {row_bytes} bytes do not split into {view.ctas} slices of whole "
                      "1024-byte units")
    return errors


def memref_bytes(ty) -> int:
    """Bytes of a statically shaped memref type."""
    ty = _ir().MemRefType(ty)
    size = ty.element_type.width // 8
    for d in ty.shape:
        size *= d
    return size


def _check_tma_reduce(view):
    errors = _tma(view, "src")
    if view.kind not in REDUCE_KINDS:
        errors.append(f"kind must be one of {', '.join(REDUCE_KINDS)}, got '{view.kind}'")
    return errors


def _check_store_peer(view):
    ir = _ir()
    ty = ir.MemRefType(view.dst.type)
    errors = [] if _is_workgroup_memref(ty) and ty.rank == 1 else [
        f"'dst' must be a rank-1 shared-memory memref, got {ty}"]
    value = view.value.type
    vec = ir.VectorType(value) if isinstance(value, ir.VectorType) else None
    element = vec.element_type if vec else value
    if element != ty.element_type:
        errors.append(f"'value' of type {value} does not match 'dst' elements ({ty.element_type})")
    elif vec and (vec.rank != 1 or vec.shape[0] not in (1, 2, 4) or vec.shape[0] * element.width > 128):
        errors.append(f"a vector 'value' must be 1-D of 1, 2 or 4 elements, at most 16 bytes (one "
                      f"st.shared::cluster), got {value}")
    return errors


def _flag(view) -> list[str]:
    ty = str(view.flag.type)
    return [] if ty in ("!llvm.ptr", "!llvm.ptr<1>") else [
        f"'flag' must be a global pointer (!llvm.ptr or !llvm.ptr<1>), got {ty}"]


def _check_split_k_store(view):
    errors = _tma(view, "src") + _flag(view)
    if view.mode not in SPLIT_K_MODES:
        errors.append(f"mode must be one of {', '.join(SPLIT_K_MODES)}, got '{view.mode}'")
    if not errors and str(view.src.type.element_type) != "f32":
        errors.append(f"split-K partials are f32 (the accumulator), got {view.src.type.element_type}")
    return errors


def _check_split_k_wait(view):
    return _flag(view) + ([] if view.splits >= 2 else [f"a split-K tile has at least 2 splits, got {view.splits}"])


def _check_split_k_count(view):
    ty = _ir().MemRefType(view.cell.type)
    errors = _check_split_k_wait(view)
    if not (_is_workgroup_memref(ty) and ty.rank == 1 and str(ty.element_type) == "i32"):
        errors.append(f"'cell' must be a rank-1 shared-memory memref of i32, got {ty}")
    return errors


def _check_bulk_wait(view):
    return [] if 0 <= view.pending <= 63 else [f"pending must be in [0, 63], got {view.pending}"]


def _check_mbarrier_init(view):
    errors = _barrier(view)
    if not 1 <= view.count < (1 << 20):
        errors.append(f"arrival count must be in [1, 2^20), got {view.count}")
    return errors


def _check_expect_tx(view):
    errors = _barrier(view)
    if not 1 <= view.bytes < (1 << 20):
        errors.append(f"expected transaction bytes must be in [1, 2^20), got {view.bytes}")
    return errors


def _check_fence(view):
    if view.space not in FENCE_SPACES:
        return [f"space must be one of {', '.join(FENCE_SPACES)}, got '{view.space}'"]
    return []


def _check_named_barrier(view):
    errors = []
    if not 1 <= view.id <= 15:      # barrier 0 belongs to sync_threads (__syncthreads)
        errors.append(f"barrier id must be in [1, 15], got {view.id}")
    if view.threads <= 0 or view.threads % 32 or view.threads > 1024:
        errors.append(f"thread count must be a positive multiple of 32 up to 1024, got {view.threads}")
    return errors


def wgmma_tile(value):
    """(the smem value a wgmma operand slices, the slice's element offset per dimension): the
    source of a `memref.subview` and its offsets (None where dynamic), else the operand itself at
    offset 0."""
    owner = value.owner
    if getattr(owner, "name", None) != "memref.subview":
        return value, (0,) * _ir().MemRefType(value.type).rank
    offsets = list(_ir().DenseI64ArrayAttr(owner.attributes["static_offsets"]))
    dynamic = _ir().ShapedType.get_dynamic_stride_or_offset()
    return owner.operands[0], tuple(None if o == dynamic else o for o in offsets)


def _wgmma_operand(view, name, swizzle) -> list[str]:
    """The layout rules of one wgmma operand: K-major rows `swizzle` bytes apart, or (a rank-3 B)
    N-major column boxes of `swizzle`-byte rows."""
    ty = getattr(view, name).type
    elem_bytes = ty.element_type.width // 8
    strides, _ = ty.get_strides_and_offset()
    errors = []
    if strides[-1] != 1:
        major = "N-major (unit stride along N)" if ty.rank == 3 else "K-major (unit stride along K)"
        errors.append(f"'{name}' must be {major}, got strides {strides}")
    elif strides[-2] * elem_bytes != swizzle:
        errors.append(f"'{name}' rows are {strides[-2] * elem_bytes} bytes apart, but a {swizzle}-byte "
                      f"swizzled tile has rows of {swizzle} bytes ({swizzle // elem_bytes} elements): pass "
                      f"the whole tile's k-th 16-{'row' if ty.rank == 3 else 'column'} slice (memref.subview)")
    elif ty.rank == 3 and (strides[0] * elem_bytes) % (8 * swizzle):
        errors.append(f"'{name}' column boxes are {strides[0] * elem_bytes} bytes apart; they must be whole "
                      f"swizzle atoms ({8 * swizzle} bytes)")
    tile, offsets = wgmma_tile(getattr(view, name))
    # The k-slice: K-major at a static column 16k (rows on a swizzle atom, maybe dynamic); N-major
    # at a static [0, 16k, 0].
    if ty.rank == 3:
        if None in offsets:
            errors.append(f"'{name}' is a subview with a dynamic offset; the k-slice must be static")
        elif not errors and (offsets[0] or offsets[2] or offsets[1] % 16):
            errors.append(f"'{name}' slices its tile at {list(offsets)}: an N-major k-slice starts at "
                          "[0, a multiple of 16, 0]")
    elif offsets[-1] is None:
        errors.append(f"'{name}' is a subview with a dynamic column offset; the k-slice must be static")
    elif not errors and ((offsets[0] or 0) % 8 or offsets[-1] % 16):
        errors.append(f"'{name}' slices its tile at row {offsets[0]}, column {offsets[-1]}: rows must start at a "
                      "multiple of 8 (a swizzle atom) and columns at a multiple of 16 (a k-step)")
    offset = _buffer_offset(tile)
    if offset is not None and offset % (8 * swizzle):
        errors.append(f"{swizzle}-byte swizzled wgmma operand '{name}' must be {8 * swizzle}-byte aligned "
                      f"(a swizzle atom: 8 rows of {swizzle} bytes), buffer offset is {offset}")
    return errors


def _check_wgmma(view):
    errors = _smem(view, "a", "wgmma A operand") + _smem(view, "b", "wgmma B operand")
    if view.swizzle not in WGMMA_SWIZZLES:
        errors.append(f"swizzle must be one of {WGMMA_SWIZZLES} bytes, got {view.swizzle}")
    if errors:
        return errors
    a, b, acc = view.a.type, view.b.type, view.acc.type
    elem = str(a.element_type)
    if elem not in ("bf16", "f16") or str(b.element_type) != elem:
        errors.append(f"A and B must both be bf16 or both f16, got {a.element_type} and {b.element_type}")
    if list(a.shape) != [64, 16]:
        errors.append(f"A must be a 64x16 tile, got {list(a.shape)}")
    row = view.swizzle // (b.element_type.width // 8)       # elements in one swizzled row
    n = b.shape[0] if b.rank == 2 else b.shape[0] * b.shape[2] if b.rank == 3 else -1
    if b.rank == 3 and (b.shape[1] != 16 or b.shape[2] != row or n > 256):
        errors.append(f"an N-major B must be [N/{row}, 16, {row}] with N <= 256 ({view.swizzle}-byte rows of "
                      f"{b.element_type}), got {list(b.shape)}")
    elif b.rank not in (2, 3) or b.rank == 2 and (b.shape[1] != 16 or not (8 <= n <= 256 and n % 8 == 0)):
        errors.append(f"B must be an Nx16 tile with N a multiple of 8 in [8, 256], got {list(b.shape)}")
    elif acc.rank != 1 or acc.shape[0] != n // 2 or str(acc.element_type) != "f32":
        errors.append(f"the accumulator must be vector<{n // 2}xf32> for N = {n}, got {acc}")
    if errors:
        return errors
    return _wgmma_operand(view, "a", view.swizzle) + _wgmma_operand(view, "b", view.swizzle)


def _check_wgmma_wait(view):
    return [] if 0 <= view.pending <= 7 else [f"pending must be in [0, 7], got {view.pending}"]


def _check_setmaxnreg(view):
    errors = []
    if view.regs % 8 or not 24 <= view.regs <= 256:
        errors.append(f"register count must be a multiple of 8 in [24, 256], got {view.regs}")
    if view.action not in ("inc", "dec"):
        errors.append(f"action must be 'inc' or 'dec', got '{view.action}'")
    return errors


def _check_warp_role(view):
    errors = []
    if view.first_warp < 0 or view.num_warps <= 0 or view.first_warp + view.num_warps > 32:
        errors.append(f"warps [{view.first_warp}, {view.first_warp + view.num_warps}) "
                      "must lie within the 32 warps of a CTA")
    blocks = list(view.body.blocks)
    if len(blocks) != 1 or not list(blocks[0].operations) or \
            blocks[0].operations[len(blocks[0].operations) - 1].name != "gpu.yield":
        errors.append("the body must be one block ending with gpu.yield")
    else:
        nested = []
        view.operation.walk(lambda o: nested.append(o.name) or _ir().WalkResult.ADVANCE)
        uses_warpgroup_ops = any((semantics(name) or Semantics()).executed_by == "warpgroup" for name in nested)
        if uses_warpgroup_ops and (view.first_warp % 4 or view.num_warps % 4):
            errors.append("a role that runs warpgroup ops (wgmma, setmaxnreg) must cover whole "
                          f"warpgroups, got warps [{view.first_warp}, {view.first_warp + view.num_warps})")
    return errors


def _check_offload(view):
    errors = [] if 1 <= view.warps <= 3 else [f"warps must be in [1, 3] (the producer warpgroup's), got {view.warps}"]
    blocks = list(view.body.blocks)
    if len(blocks) != 1 or len(blocks[0].arguments) != 1 or str(blocks[0].arguments[0].type) != "index" \
            or not list(blocks[0].operations) \
            or blocks[0].operations[len(blocks[0].operations) - 1].name != "gpu.yield":
        errors.append("the body must be one block with one index argument (the thread in the offload's warps), "
                      "ending with gpu.yield")
    return errors


_CHECKS = {
    "smem_buffer": _check_smem_buffer,
    "store_peer": _check_store_peer,
    "tma_load": lambda v: _tma(v, "dst") + _barrier(v),
    "tma_load_multicast": _check_tma_load_multicast,
    "pipeline_load": lambda v: _tma(v, "dst"),
    "tma_store": lambda v: _tma(v, "src"),
    "tma_prefetch": _coords,
    "tma_reduce": _check_tma_reduce,
    "split_k_store": _check_split_k_store,
    "split_k_wait": _check_split_k_wait,
    "split_k_last": _check_split_k_count,
    "arrive_flag": _flag,
    "reset_flag": _flag,
    "wait_flag": _flag,
    "release_flag": _flag,
    "bulk_wait": _check_bulk_wait,
    "mbarrier_init": _check_mbarrier_init,
    "mbarrier_arrive": _barrier,
    "mbarrier_arrive_cluster": _barrier,
    "mbarrier_arrive_expect_tx": _check_expect_tx,
    "mbarrier_try_wait_parity": _barrier,
    "mbarrier_inval": _barrier,
    "fence_proxy_async": _check_fence,
    "named_barrier": _check_named_barrier,
    "wgmma": _check_wgmma,
    "wgmma_wait": _check_wgmma_wait,
    "setmaxnreg": _check_setmaxnreg,
    "warp_role": _check_warp_role,
    "offload": _check_offload,
}


def register_python_classes(namespace: dict) -> None:
    make_opviews(DIALECT, OPS, namespace)
