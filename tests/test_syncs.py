"""The sync passes against the independent verifier.

(a) Everything the compiler emits verifies clean.  (b) Mutation: deleting any one sync the passes
inserted (each carries `fuser.derived`) makes fuser-verify-syncs report a hazard.  Cases: the
pointwise kernels of several schedules, every lit test in lit_tests/syncs, and the split-K
semaphore protocols of lit_tests/splitk.
"""
from pathlib import Path

import pytest
from mlir import ir

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.dialects import new_context, nvasync
from fuser_mlir.passes.verify_syncs import verify_function
from fuser_mlir.backend.pipeline import SYNC_PASSES, PassPipeline
from fuser_mlir.frontend.fusion_ir import fusion_ir
from fuser_mlir.passes.schedule import schedule_attr
from fuser_mlir.schedulers.pointwise import SCHEDULER, choose_schedule

INSERTION = [p for p in SYNC_PASSES if p != "fuser-verify-syncs"]
LIT_SYNCS = Path(__file__).parent.parent / "lit_tests" / "syncs"
LIT_SPLIT_K = LIT_SYNCS.parent / "splitk" / "tma_reduce_store.mlir"


def _functions(module):
    found = []
    module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE
                           if op.name == "gpu.func" else ir.WalkResult.ADVANCE)
    return found


def _derived(module):
    found = []
    module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE
                          if "fuser.derived" in op.attributes and op.name != "scf.if" else ir.WalkResult.ADVANCE)
    return found


def _problems(module):
    return [p for f in _functions(module) for p in verify_function(f)]


def check_oracle(text: str):
    """Insert, verify clean, then delete each inserted sync in turn: every deletion is caught."""
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        PassPipeline(INSERTION).run(module)
        synced = str(module)
    return every_sync_needed(synced)


def every_sync_needed(kernel_ir: str) -> int:
    """Delete each derived sync of a compiled kernel in turn: fuser-verify-syncs must object to
    every deletion (none is wasted, as far as the verifier's rules go)."""
    with new_context(), ir.Location.unknown():
        assert _problems(ir.Module.parse(kernel_ir)) == [], "the compiler's own output must verify clean"
        count = len(_derived(ir.Module.parse(kernel_ir)))
        for k in range(count):
            mutant = ir.Module.parse(kernel_ir)
            victim = _derived(mutant)[k]
            description = f"{victim.name} ({victim.attributes['fuser.derived']})"
            victim.erase()
            assert _problems(mutant), f"deleting {description} went unnoticed"
    return count


def pointwise(n_inputs, dtype, outputs=1):
    with FusionDefinition() as fd:
        xs = [fd.define_tensor([-1, -1], dtype) for _ in range(n_inputs)]
        acc = xs[0]
        for x in xs[1:]:
            acc = fd.ops.mul(acc, x)
        for k in range(outputs):
            fd.add_output(fd.ops.add(acc, xs[k % n_inputs]) if k else fd.ops.relu(acc))
    return fd


def scheduled(fd, schedule):
    """The kernel fuser-schedule and fuser-pipeline-mbarriers make of `fd` (no syncs yet)."""
    module = ir.Module.parse(fusion_ir(fd, "k", schedule_attr(SCHEDULER, schedule)))
    PassPipeline(["fuser-schedule", "fuser-pipeline-mbarriers"]).run(module)
    return module


@pytest.mark.parametrize("n_inputs, dtype, outputs, view", [
    (2, DataType.BFloat16, 1, (1000, 1024)),     # 4 stages, row view
    (1, DataType.Float, 1, (4097,)),             # flat view, 3 stages
    (3, DataType.BFloat16, 2, (64, 4096)),       # 2 stages, two outputs
])
def test_pointwise_kernels_verify_and_every_sync_is_needed(n_inputs, dtype, outputs, view):
    fd = pointwise(n_inputs, dtype, outputs)
    schedule = choose_schedule(tuple(t.dtype.value for t in fd.inputs),
                               tuple(t.dtype.value for t in fd.outputs), view)
    with new_context(), ir.Location.unknown():
        text = str(scheduled(fd, schedule))
    assert "sync_threads" not in text and "fence" not in text     # the scheduler places none
    assert check_oracle(text) >= 4 * schedule.stages


def _lit_cases():
    """Every kernel of lit_tests/syncs, except chunks that expect diagnostics (--verify-diagnostics
    tests of kernels the passes must reject) and files marked XFAIL."""
    cases = []
    for path in sorted(LIT_SYNCS.glob("*.mlir")):
        source = path.read_text()
        if "XFAIL" in source:
            continue
        for index, chunk in enumerate(source.split("// -----")):
            if "gpu.func" in chunk and "expected-error" not in chunk:
                cases.append(pytest.param(chunk, id=f"{path.stem}-{index}"))
    return cases


@pytest.mark.parametrize("text", _lit_cases())
def test_lit_cases_verify_and_every_sync_is_needed(text):
    check_oracle(text)


def test_unsynchronized_kernel_is_reported():
    fd = pointwise(2, DataType.BFloat16)
    schedule = choose_schedule(("bf16", "bf16"), ("bf16",), (1000, 1024))
    with new_context(), ir.Location.unknown():
        module = scheduled(fd, schedule)
        messages = " ".join(m for _, _, m in _problems(module))
    for expected in ("mbarrier init not fenced", "without fence.proxy.async",
                     "TMA store never committed", "kernel exit"):
        assert expected in messages


LIT_PIPELINE = Path(__file__).parent.parent / "lit_tests" / "pipeline"


@pytest.mark.parametrize("victim, expected", [
    ("wgmma_wait", "no wgmma.wait_group covering the wgmma before the mbarrier arrive releasing its operands"),
    ("warp_sync", "released by one lane's mbarrier arrive without a warp sync before it"),
    ("empty arrive", "are not ordered by an mbarrier arrive after the access and a wait on it before the TMA load"),
    ("empty wait", "are not ordered by an mbarrier arrive after the access and a wait on it before the TMA load"),
])
def test_cross_role_release_is_verified(victim, expected):
    """Warp roles run concurrently: a consumer's wgmma reads are ordered before the producer's
    next TMA load into the stage only by the release chain (wgmma wait, warp sync, arrive on
    `empty`; the producer's wait on it).  Deleting any link of a derived warp-specialized kernel
    makes fuser-verify-syncs object (the lit kernel of fuser-flush-wgmma's release rule)."""
    def chosen(op):
        tag = op.attributes["fuser.pipeline"].value if "fuser.pipeline" in op.attributes else ""
        return {"wgmma_wait": op.name == "nvasync.wgmma_wait" and "empty-barrier" in
                str(op.attributes["fuser.derived"]) if "fuser.derived" in op.attributes else False,
                "warp_sync": op.name == "nvasync.warp_sync",
                "empty arrive": op.name == "nvasync.mbarrier_arrive" and tag.startswith("empty"),
                "empty wait": op.name == "nvasync.mbarrier_try_wait_parity" and tag.startswith("empty")}[victim]

    with new_context(), ir.Location.unknown():
        module = ir.Module.parse((LIT_PIPELINE / "wgmma_release.mlir").read_text())
        PassPipeline(["fuser-pipeline-mbarriers", *INSERTION]).run(module)
        assert _problems(module) == []
        found = []
        module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE
                              if chosen(op) else ir.WalkResult.ADVANCE)
        assert found, f"the derived kernel has no {victim}"
        found[0].erase()
        assert any(expected in message for _, _, message in _problems(module)), _problems(module)


def test_split_k_protocols_verify_and_every_sync_is_needed():
    """fuser-tma-reduce-store's protocols (deterministic, atomic, slots, slots released by the
    arrival): each derived sync is needed, the barriers that hand an acquire by the issuing thread
    (the last split's wait; each split's arrival) on to the block among them."""
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(LIT_SPLIT_K.read_text())
        PassPipeline(["fuser-tma-reduce-store"]).run(module)
        text = str(module)
    assert text.count("for_group = true") == 4
    # per kernel at least: the acquire's barrier, the smem fence and barrier before the TMA op, its
    # commit and the wait before the release
    assert check_oracle(text) >= 4 * 5


LIT_MULTICAST = LIT_SYNCS.parent / "pipeline" / "multicast_cluster.mlir"


def test_multicast_pipeline_cluster_barriers_are_derived_and_each_is_needed():
    """A remote use of an mbarrier (a peer's arrive, a multicast load's complete_tx) needs a cluster
    barrier after the init and before the invalidation; a CTA barrier in its place is caught."""
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(LIT_MULTICAST.read_text())
        PassPipeline(["fuser-pipeline-mbarriers"]).run(module)
        text = str(module)
    assert check_oracle(text) >= 3
    with new_context(), ir.Location.unknown():
        for k, expected in ((0, "not followed by a cluster barrier"), (1, "no cluster barrier")):
            module = ir.Module.parse(text)
            PassPipeline(INSERTION).run(module)
            sync = [op for op in _derived(module) if op.name == "nvasync.cluster_sync"][k]
            with ir.InsertionPoint(sync), sync.location:
                nvasync.SyncThreadsOp()
            sync.erase()
            problems = " ".join(m for _, _, m in _problems(module))
            assert expected in problems, problems


LIT_TRAILING = LIT_PIPELINE / "trailing.mlir"


def _in_place_kernel() -> str:
    """lit_tests/pipeline/trailing.mlir's @in_place after fuser-pipeline-mbarriers: the tile's
    operand arrives by TMA, is rewritten in place and TMA-stored (the matmul epilogue's pattern)."""
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(LIT_TRAILING.read_text())
        PassPipeline(["fuser-pipeline-mbarriers"]).run(module)
        return next(str(f) for f in _functions(module) if f.attributes["sym_name"].value == "in_place")


def _module(func_text: str) -> str:
    return ('module attributes {gpu.container_module} {\ngpu.module @kernels {\n' + func_text + '\n}\n}')


@pytest.mark.parametrize("victim", ["issuer wait", "empty arrive", "empty wait", "full wait"])
def test_round_trip_orders_the_next_tiles_writes_and_each_link_is_needed(victim):
    """The next tile's epilogue writes a buffer the previous tile's TMA store read.  No barrier
    orders them: the round trip does -- the issuer's wait.read, every consumer's arrive on
    `empty`, the producer's wait on it before its arrive.expect_tx on `full`, every consumer's
    wait on `full`.  Without any one link fuser-verify-syncs reports the store -> write hazard
    (and for the producer's wait also the load overwriting the stored tile)."""
    text = _module(_in_place_kernel())
    assert check_oracle(text) >= 4
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        PassPipeline(INSERTION).run(module)
        derived = [str(op.attributes["fuser.derived"]) for op in _derived(module)]
        assert not any("tma_store" in d and "-> memref.store" in d and "WAR" in d for d in derived), derived
        assert _problems(module) == []

        def chosen(op):
            tag = op.attributes["fuser.pipeline"].value if "fuser.pipeline" in op.attributes else ""
            return {"issuer wait": op.name == "nvasync.bulk_wait",
                    "empty arrive": op.name == "nvasync.mbarrier_arrive" and tag.startswith("empty[operands]"),
                    "empty wait": op.name == "nvasync.mbarrier_try_wait_parity" and tag.startswith("empty[operands]"),
                    "full wait": op.name == "nvasync.mbarrier_try_wait_parity" and tag.startswith("full[operands]")
                    }[victim]

        found = []
        module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE
                              if chosen(op) else ir.WalkResult.ADVANCE)
        assert len(found) == 1, f"the derived kernel has {len(found)} {victim}s"
        found[0].erase()
        problems = [m for _, _, m in _problems(module)]
        assert any("'nvasync.tma_store'" in m and "-> 'memref.store'" in m for m in problems), problems


@pytest.mark.parametrize("victim", ["fence after the warp sync", "fence deleted"])
def test_one_lane_handing_a_warps_writes_to_the_async_proxy_needs_every_writers_fence_first(victim):
    """lit_tests/pipeline/offload.mlir's @offloaded_store: each consumer warp hands its staged
    writes to the offload's TMA store with one lane's arrive after a warp sync, so every writer's
    `fence.proxy.async` must come before that sync (after it, the lane may arrive before the
    other lanes fenced).  Moved after the sync, or deleted, fuser-verify-syncs reports it."""
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse((LIT_PIPELINE / "offload.mlir").read_text())
        PassPipeline(["fuser-pipeline-mbarriers", *INSERTION]).run(module)
        func = next(f for f in _functions(module) if f.attributes["sym_name"].value == "offloaded_store")
        assert not verify_function(func)
        found = []      # (fence, the op after it)
        func.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE
                  if op.name == "nvasync.fence_proxy_async" else ir.WalkResult.ADVANCE)
        after = [(f, [o.operation for o in f.block.operations]) for f in found]
        handing = [(f, ops[ops.index(f) + 1]) for f, ops in after if ops[ops.index(f) + 1].name == "nvasync.warp_sync"]
        assert len(handing) == 1, "one fence, right before the consumer warps' sync"
        fence, sync = handing[0]
        if victim == "fence deleted":
            fence.erase()
        else:
            fence.move_after(sync)
        problems = " ".join(m for _, _, m in verify_function(func))
        assert "without fence.proxy.async before the arrive" in problems, problems


def test_a_branch_taken_in_one_iteration_covers_nothing_in_the_next(private_cache):
    """fuser-verify-syncs' "surely runs" is per iteration.  In the deterministic split-K kernel a
    work unit is its tile's last split (then: the epilogue's TMA stores) or not (else: the
    partial's TMA stores, then a wait without .read before the release).  Unit i's output stores ->
    unit i + 1's partial writes need the issuer's wait.read at the top of the else branch: the wait
    before the release ran only if unit i took the else branch.  (The verifier took it for that
    wait, its branch guard naming no iteration, and accepted the kernel without the wait.read.)"""
    import torch

    with FusionDefinition() as fd:
        x, w = fd.define_tensor([-1, -1], DataType.BFloat16), fd.define_tensor([-1, -1], DataType.BFloat16)
        fd.add_output(fd.ops.linear(x, w))
    inputs = [torch.empty(s, dtype=torch.bfloat16, device="meta") for s in ((64, 4096), (512, 4096))]
    kernel_ir = fd.compile(inputs, schedule={"scheduler": "matmul", "split_k": 3,
                                             "split_k_mode": "deterministic"}).kernel_ir
    with new_context(), ir.Location.unknown():
        reasons = [str(op.attributes["fuser.derived"]) for op in _derived(ir.Module.parse(kernel_ir))
                   if op.name == "nvasync.bulk_wait"]
        war = [k for k, r in enumerate(reasons) if "WAR: nvasync.tma_store reads smem -> vector.store" in r]
        assert len(war) == 2, reasons               # the top of each branch
        for k in war:
            mutant = ir.Module.parse(kernel_ir)
            [op for op in _derived(mutant) if op.name == "nvasync.bulk_wait"][k].erase()
            assert any("no covering wait_group.read" in m for _, _, m in _problems(mutant)), k


@pytest.mark.parametrize("m, n, k, schedule", [
    (4096, 4096, 4096, None),                                                # 128 x 256, three stages
    (256, 512, 256, {"cluster_m": 2}),                                       # B multicast to a CTA pair
    (64, 512, 4096, {"split_k": 3, "split_k_mode": "atomic"}),
    (64, 512, 4096, {"split_k": 3, "split_k_mode": "deterministic"}),
    (64, 512, 4096, {"split_k": 3, "split_k_mode": "slots"}),
    (64, 512, 4096, {"block_n": 128, "split_k": 4, "split_k_mode": "cluster"}),
], ids=["plain", "cluster", "splitk-atomic", "splitk-deterministic", "splitk-slots", "splitk-cluster"])
def test_matmul_kernels_need_every_derived_sync(private_cache, m, n, k, schedule):
    """The matmul kernels as compiled (gelu(x @ w^T + bias), and silu(y) * gate with the gate by
    TMA for the plain shape): every barrier, fence and wait the passes derived is one the verifier
    requires."""
    import torch

    def meta(*shapes):
        return [torch.empty(s, dtype=torch.bfloat16, device="meta") for s in shapes]

    with FusionDefinition() as fd:
        x, w = fd.define_tensor([-1, -1], DataType.BFloat16), fd.define_tensor([-1, -1], DataType.BFloat16)
        b = fd.define_tensor([-1], DataType.BFloat16)
        fd.add_output(fd.ops.gelu(fd.ops.linear(x, w, b)))
    named = {"scheduler": "matmul", **schedule} if schedule else None
    assert every_sync_needed(fd.compile(meta((m, k), (n, k), (n,)), schedule=named).kernel_ir) >= 10
    if schedule is None:
        with FusionDefinition() as gated:
            x, w = gated.define_tensor([-1, -1], DataType.BFloat16), gated.define_tensor([-1, -1], DataType.BFloat16)
            g = gated.define_tensor([-1, -1], DataType.BFloat16)
            gated.add_output(gated.ops.mul(gated.ops.silu(gated.ops.linear(x, w)), g))
        compiled = gated.compile(meta((m, k), (n, k), (m, n)))
        assert "empty[operands]" in compiled.kernel_ir          # the gate arrives by TMA (trailing loop)
        assert every_sync_needed(compiled.kernel_ir) >= 10


@pytest.mark.parametrize("index, racy", [("%mine", False), ("%c0", True)])
def test_one_distributed_store_in_a_loop_races_only_at_a_shared_place(index, racy):
    """The executions of one store_peer need no cluster barrier between them when each thread
    writes places of its own (the sender's slot, rank x 128 + thread); every thread storing to
    one place is a race."""
    text = _module(f"""
  gpu.func @sends(%n: index) kernel attributes {{gpu.known_block_size = array<i32: 128, 1, 1>,
                                                  nvvm.cluster_dim = array<i32: 2, 1, 1>}} {{
    %slots = "nvasync.smem_buffer"() {{offset = 0 : i64}} : () -> memref<256xf32, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %rank = "nvasync.cluster_rank"() : () -> i32
    %r = arith.index_cast %rank : i32 to index
    %base = arith.muli %r, %c128 : index
    %mine = arith.addi %base, %tid : index
    %one = arith.constant 1.0 : f32
    %peer = arith.constant 1 : i32
    "nvasync.cluster_arrive"() : () -> ()
    "nvasync.cluster_wait"() : () -> ()
    scf.for %i = %c0 to %n step %c1 {{
      "nvasync.store_peer"(%one, %slots, %peer, {index}) : (f32, memref<256xf32, #gpu.address_space<workgroup>>, i32, index) -> ()
    }}
    "nvasync.cluster_sync"() : () -> ()
    gpu.return
  }}""")
    with new_context(), ir.Location.unknown():
        messages = [m for _, _, m in _problems(ir.Module.parse(text))]
    assert any("stored by a peer CTA" in m for m in messages) == racy, messages
