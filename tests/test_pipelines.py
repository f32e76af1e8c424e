"""fuser-pipeline-mbarriers against the independent protocol checker (fuser-verify-pipelines).

(a) The protocol the pass derives checks clean for every trip count 0..2S+1.  (b) Mutation: each
derived protocol element perturbed in turn -- an init count, the expect-tx bytes, a parity, an
arrive, a wait, a consumer warp's sync -- makes the checker object every time.  Cases: pointwise
kernels of several schedules and the lit pipeline kernels (both modes, one and two producer
roles).
"""
from pathlib import Path

import pytest
from mlir import ir
from mlir.dialects import arith

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.backend.pipeline import PassPipeline
from fuser_mlir.dialects import new_context, nvasync
from fuser_mlir.frontend.fusion_ir import fusion_ir
from fuser_mlir.passes.pipeline_mbarriers import PROTOCOL
from fuser_mlir.passes.schedule import schedule_attr
from fuser_mlir.passes.verify_pipelines import verify_function
from fuser_mlir.schedulers.pointwise import SCHEDULER, PointwiseSchedule

LIT_PIPELINES = Path(__file__).parent.parent / "lit_tests" / "pipeline"


def _walk(module, predicate):
    found = []
    module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE
                          if predicate(op) else ir.WalkResult.ADVANCE)
    return found


def _problems(module):
    return [m for f in _walk(module, lambda op: op.name == "gpu.func") for _, m in verify_function(f)]


def _protocol_ops(module):
    return _walk(module, lambda op: PROTOCOL in op.attributes)


def _bump_count(op):
    op.attributes["count"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), op.attributes["count"].value + 1)


def _fewer_bytes(op):
    op.attributes["bytes"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), op.attributes["bytes"].value - 16)


def _flip_parity(op):
    with ir.InsertionPoint(op), op.location:
        op.operands[2] = arith.xori(op.operands[2], arith.constant(ir.IntegerType.get_signless(32), 1))


def _delete(op):
    op.erase()


MUTATIONS = {
    "nvasync.mbarrier_init": [("init count + 1", _bump_count)],
    "nvasync.mbarrier_arrive": [("arrive deleted", _delete)],
    "nvasync.mbarrier_arrive_cluster": [("remote arrive deleted", _delete)],
    "nvasync.warp_sync": [("warp sync deleted", _delete)],
    "nvasync.mbarrier_arrive_expect_tx": [("expect-tx - 16 bytes", _fewer_bytes), ("arrive deleted", _delete)],
    "nvasync.mbarrier_try_wait_parity": [("parity flipped", _flip_parity), ("wait deleted", _delete)],
}


def check_protocol(text: str, passes=("fuser-pipeline-mbarriers",), only=lambda what: True) -> int:
    """Derive, check clean, then perturb each protocol element (whose PROTOCOL mark passes `only`)
    in turn: every mutant is caught."""
    mutants = 0
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        PassPipeline(list(passes)).run(module)
        assert _problems(module) == [], "the derived protocol must check clean"
        derived = str(module)
        count = len(_protocol_ops(module))
        for k in range(count):
            op = _protocol_ops(module)[k]
            if not only(ir.StringAttr(op.attributes[PROTOCOL]).value):
                continue
            for description, mutate in MUTATIONS.get(op.name, []):
                mutant = ir.Module.parse(derived)
                victim = _protocol_ops(mutant)[k]
                where = f"{victim.name} ({victim.attributes[PROTOCOL]})"
                mutate(victim)
                assert _problems(mutant), f"{description} on {where} went unnoticed"
                mutants += 1
    return mutants


def pointwise_fusion(n_inputs, dtype):
    with FusionDefinition() as fd:
        xs = [fd.define_tensor([-1, -1], dtype) for _ in range(n_inputs)]
        acc = xs[0]
        for x in xs[1:]:
            acc = fd.ops.mul(acc, x)
        fd.add_output(fd.ops.relu(acc))
    return fd


@pytest.mark.parametrize("n_inputs, dtype, schedule", [
    (2, DataType.BFloat16, PointwiseSchedule(("bf16",) * 2, ("bf16",), 2, 8, 256, 1, 2)),
    (1, DataType.Float, PointwiseSchedule(("f32",), ("f32",), 1, 1, 256, 4, 3)),
    (3, DataType.Half, PointwiseSchedule(("f16",) * 3, ("f16",), 2, 4, 128, 1, 4)),
])
def test_pointwise_protocol_checks_clean_and_every_perturbation_is_caught(n_inputs, dtype, schedule):
    fd = pointwise_fusion(n_inputs, dtype)
    text = fusion_ir(fd, "k", schedule_attr(SCHEDULER, schedule))
    mutants = check_protocol(text, ("fuser-schedule", "fuser-pipeline-mbarriers", "fuser-insert-syncs"))
    # per stage: its init, 2 expect-tx (prologue, refill) x 2 mutations, its wait x 2 mutations
    assert mutants == 7 * schedule.stages


KERNELS = [p for p in sorted(LIT_PIPELINES.glob("*.mlir")) if "expected-error" not in p.read_text()]


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_lit_pipelines_check_clean_and_every_perturbation_is_caught(path):
    assert check_protocol(path.read_text(), ("fuser-pipeline-mbarriers", "fuser-insert-syncs")) > 0


HANDWRITTEN = """
gpu.module @m {
  gpu.func @k(%desc: !llvm.ptr, %n: index) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %e = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %e : i1
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<32xf32, #gpu.address_space<workgroup>>
    %full = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    scf.if %issuer {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.for %i = %c0 to %n step %c1 {
      scf.if %issuer {
        "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = BYTES : i32} : (memref<1xi64, #gpu.address_space<workgroup>>, index) -> ()
        "nvasync.tma_load"(%desc, %buf, %full, %c0, %c0_i32) : (!llvm.ptr, memref<32xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      }
      %p = arith.index_cast %i : index to i32
      %c1_i32 = arith.constant 1 : i32
      %parity = arith.andi %p, %c1_i32 : i32
      "nvasync.mbarrier_try_wait_parity"(%full, %c0, %parity) : (memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
      "nvasync.sync_threads"() : () -> ()
    }
    gpu.return
  }
}
"""


@pytest.mark.parametrize("bytes_, expected", [
    (128, None),                                     # 32 x f32: right
    (64, "announces 64 bytes and the loads deliver 128"),    # half the box: the phase never completes
    (256, "announces 256 bytes and the loads deliver 128"),  # more than arrives: likewise
])
def test_expect_tx_must_equal_the_delivered_bytes(bytes_, expected):
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(HANDWRITTEN.replace("BYTES", str(bytes_)))
        problems = " ".join(_problems(module))
    if expected is None:
        assert problems == ""
    else:
        assert expected in problems, problems


def test_two_loads_on_one_stage_without_a_wait_between_is_caught():
    """The issuer reloads stage 0 before anyone waited: the consumers fall a phase behind."""
    text = HANDWRITTEN.replace("BYTES", "128").replace(
        '      "nvasync.sync_threads"() : () -> ()\n    }\n    gpu.return', "    }\n    gpu.return")
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        problems = " ".join(_problems(module))
    assert "phase" in problems, problems


MULTICAST = LIT_PIPELINES / "multicast_cluster.mlir"


def _derived(passes=("fuser-pipeline-mbarriers", "fuser-insert-syncs")):
    module = ir.Module.parse(MULTICAST.read_text())
    PassPipeline(list(passes)).run(module)
    return module


def _cta_barrier_instead_of_cluster_barrier(k: int) -> str:
    """The problems once the k-th derived cluster barrier is a CTA barrier (bar.sync 0): the CTA's
    own threads stay ordered, its peer's are not."""
    module = _derived()
    assert _problems(module) == []
    sync = _walk(module, lambda op: op.name == "nvasync.cluster_sync")[k]
    with ir.InsertionPoint(sync), sync.location:
        nvasync.SyncThreadsOp()
    sync.erase()
    return " ".join(_problems(module))


def test_a_peer_arriving_before_the_cluster_barrier_after_init_is_caught():
    with new_context(), ir.Location.unknown():
        problems = _cta_barrier_instead_of_cluster_barrier(0)
    assert "of CTA 1 used before it is initialised" in problems or \
        "of CTA 0 used before it is initialised" in problems, problems


def test_a_peer_arriving_after_a_cta_invalidated_or_exited_is_caught():
    """The checker runs both CTAs: without the cluster barrier before the invalidation (and exit),
    a CTA may be done while its peer's consumers still arrive on its empty barriers."""
    with new_context(), ir.Location.unknown():
        problems = _cta_barrier_instead_of_cluster_barrier(-1)
    assert "invalidated while" in problems and "of CTA 1 may still use it" in problems \
        or "exited" in problems, problems


def test_a_cluster_kernel_whose_trip_count_comes_from_block_id_is_rejected():
    """Both CTAs of a cluster must run the same trip counts; the checker binds a trip parameter
    alike in both, which holds for gpu.cluster_id but not gpu.block_id."""
    text = MULTICAST.read_text().replace(
        "    scf.for %t = %c0 to %tiles step %c1 {",
        "    %blk = gpu.block_id x\n    %mine = arith.subi %tiles, %blk : index\n"
        "    scf.for %t = %c0 to %mine step %c1 {")
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        PassPipeline(["fuser-pipeline-mbarriers", "fuser-insert-syncs"]).run(module)
        problems = " ".join(_problems(module))
    assert "gpu.block_id" in problems and "gpu.cluster_id" in problems, problems


def test_matmul_tile_operand_pipeline_checks_clean_and_every_perturbation_is_caught():
    """The one-stage trailing tile pipeline of a matmul's TMA-loaded epilogue operand around its
    warp-specialized K loop (lit_tests/schedule/matmul_tma_operands.mlir): both protocols, as one."""
    text = (LIT_PIPELINES.parent / "schedule" / "matmul_tma_operands.mlir").read_text()
    mutants = check_protocol(text, ("fuser-schedule", "fuser-pipeline-mbarriers", "fuser-insert-syncs"),
                             only=lambda what: "[operands]" in what)     # not the K loop's "full[a]: .."
    # the pair's 2 inits, the producer's expect-tx x 2 mutations and empty wait x 2, the consumers'
    # full wait x 2 and empty arrival, the store warp's empty arrival
    assert mutants == 10
