// The matmul scheduler on silu(x @ w^T) * gate: the gate [M, N] arrives by TMA in the output's
// shared-memory tile.  fuser-schedule marks the persistent tile loop a one-stage `trailing`
// pipeline (role "operands", one load per output box) around the warp-specialized K loop, and the
// epilogue reads each fragment pair of the gate where it then writes the result.
// The passes derive: the A producer loading the tile's gate right after the tile's A loads (its
// full/empty pair initialised by the issuer), the consumers' wait after their K loop, and after
// each tile's TMA store the issuer's wait.read on it before every consumer thread hands the tile
// back (`empty`), so the next tile's gate cannot overwrite it early.  That round trip (empty ->
// the producer -> full) also orders the next tile's epilogue writes after the store's reads: no
// barrier opens the epilogue.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=KERNEL
// RUN: fuser-opt %s -p fuser-verify-dialects -p fuser-schedule -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

func.func @linear_silu_gate(%x: tensor<?x512xbf16>, %w: tensor<768x512xbf16>, %g: tensor<?x768xbf16>) -> tensor<?x768xbf16>
    attributes {fusion.fusion} {
  %y = "fusion.matmul"(%x, %w) {transpose_b = true} : (tensor<?x512xbf16>, tensor<768x512xbf16>) -> tensor<?x768xbf16>
  %s = "fusion.unary"(%y) {kind = "silu"} : (tensor<?x768xbf16>) -> tensor<?x768xbf16>
  %o = "fusion.binary"(%s, %g) {kind = "mul"} : (tensor<?x768xbf16>, tensor<?x768xbf16>) -> tensor<?x768xbf16>
  return %o : tensor<?x768xbf16>
}

// The gate is a tensor map (%arg2) like x, w and the output; its boxes are the output's.
// KERNEL-LABEL: gpu.func @linear_silu_gate(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr, %arg4: i32, %arg5: i32, %arg6: i32)
// KERNEL-DAG: %[[OUT0:.*]] = "nvasync.smem_buffer"() {offset = 49152 : i64} : () -> memref<128x64xbf16
// KERNEL-NOT: barrier
// KERNEL: scf.for
// KERNEL: "nvasync.pipeline_load"(%arg2, %[[OUT0]], %{{.*}}, %{{.*}}) {role = "operands"}
// KERNEL-COUNT-3: "nvasync.pipeline_load"(%arg2, %{{.*}}) {role = "operands"}
// KERNEL: "nvasync.pipeline_load"({{.*}}) {role = "a"}
// KERNEL: nvasync.pipeline = {consumer_regs = 232 : i64, mode = "warp_specialized"
// KERNEL: %[[GATE:.*]] = vector.load %[[OUT0]][%[[ROW:.*]], %[[COL:.*]]] : memref<128x64xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// KERNEL: vector.store %{{.*}}, %[[OUT0]][%[[ROW]], %{{.*}}] : memref<128x64xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// KERNEL: "nvasync.tma_store"(%arg3, %[[OUT0]]
// KERNEL: } {nvasync.pipeline = {mode = "trailing", stages = 1 : i64}}
// KERNEL-NOT: mbarrier

// SYNCED-LABEL: gpu.func @linear_silu_gate(
// SYNCED: "nvasync.mbarrier_init"(%[[FULL:[0-9]+]], %{{.*}}) {count = 1 : i32, fuser.pipeline = "full[operands]: init (1 arrival: role a's elected lane)"}
// SYNCED: "nvasync.mbarrier_init"(%[[EMPTY:[0-9]+]], %{{.*}}) {count = 256 : i32, fuser.pipeline = "empty[operands]: init (256 arrivals: every consumer thread)"}
// SYNCED: "nvasync.warp_role"
// SYNCED: "nvasync.setmaxnreg"() {action = "dec", regs = 40 : i32}
// SYNCED: fuser.pipeline = "full[a]: arrive.expect_tx"
// SYNCED: "nvasync.mbarrier_try_wait_parity"(%[[EMPTY]], {{.*}}fuser.pipeline = "empty[operands]: wait"
// SYNCED: "nvasync.mbarrier_arrive_expect_tx"(%[[FULL]], %{{.*}}) {bytes = 65536 : i32
// SYNCED-COUNT-4: "nvasync.tma_load"(%arg2
// SYNCED: "nvasync.warp_role"
// SYNCED: "nvasync.setmaxnreg"() {action = "inc", regs = 232 : i32}
// SYNCED-NOT: "nvasync.tma_load"(%arg2
// SYNCED: "nvasync.mbarrier_try_wait_parity"({{.*}}fuser.pipeline = "full[b]: wait"
// SYNCED: "nvasync.mbarrier_try_wait_parity"(%[[FULL]], {{.*}}fuser.pipeline = "full[operands]: wait"
// SYNCED-NOT: named_barrier
// SYNCED: vector.load
// SYNCED: "nvasync.fence_proxy_async"
// SYNCED-NEXT: "nvasync.named_barrier"() {fuser.derived = "RAW: vector.store -> nvasync.tma_store"
// SYNCED-COUNT-4: "nvasync.tma_store"(%arg3
// SYNCED-NEXT: "nvasync.bulk_commit"
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store reads smem -> nvasync.tma_load", pending = 0 : i32, read = true}
// SYNCED: "nvasync.mbarrier_arrive"(%[[EMPTY]], %{{.*}}) {fuser.pipeline = "empty[operands]: arrive (consumer thread)"}
// SYNCED: "nvasync.mbarrier_inval"(%[[FULL]]

// The epilogue reads the gate from shared memory: no global load after the last wgmma; the
// consumers issue no TMA load (the producer warps' code comes first).
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: wgmma.mma_async
// PTX: ld.shared.v2.b16
// PTX-NOT: ld.global
// PTX: cp.async.bulk.wait_group.read 0
// PTX-NOT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
