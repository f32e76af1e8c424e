// The matmul scheduler on silu(x @ w^T) * gate: the gate [M, N] arrives by TMA in the output's
// shared-memory tile.  fuser-schedule marks the persistent tile loop a one-stage `trailing`
// pipeline (role "operands", one load per output box) around the warp-specialized K loop, and the
// epilogue reads each fragment pair of the gate where it then writes the result.
// The passes derive: the A producer loading the tile's gate right after the tile's A loads (its
// full/empty pair initialised by the issuer), the consumers' wait after their K loop, and the
// TMA store on a warp of its own (an nvasync.offload of one warp, the scheduler's): the consumers
// hand it the written tile (their proxy fence, then an arrival a warp), its elected lane stores
// the boxes and waits for their smem reads, and its threads hand the tile back to the consumers
// (`empty[offload0]`) and, with them, to the next tile's gate load (`empty[operands]`), so the
// gate cannot overwrite the tile early.  The round trip (empty -> the producer -> full) also
// orders the next tile's epilogue writes after the store's reads: no barrier opens the epilogue.
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
// SYNCED: "nvasync.mbarrier_init"(%[[STORE:[0-9]+]], %{{.*}}) {count = 8 : i32, fuser.pipeline = "full[offload0]: init (8 arrivals: one per consumer warp)"}
// SYNCED: "nvasync.mbarrier_init"(%[[STORED:[0-9]+]], %{{.*}}) {count = 32 : i32, fuser.pipeline = "empty[offload0]: init (32 arrivals: every thread of the offload)"}
// SYNCED: "nvasync.mbarrier_init"(%[[FULL:[0-9]+]], %{{.*}}) {count = 1 : i32, fuser.pipeline = "full[operands]: init (1 arrival: role a's elected lane)"}
// SYNCED: "nvasync.mbarrier_init"(%[[EMPTY:[0-9]+]], %{{.*}}) {count = 288 : i32, fuser.pipeline = "empty[operands]: init (288 arrivals: every consumer thread and every thread of the offload)"}
// SYNCED: "nvasync.warp_role"
// SYNCED: "nvasync.setmaxnreg"() {action = "dec", regs = 40 : i32}
// SYNCED: fuser.pipeline = "full[a]: arrive.expect_tx"
// SYNCED: "nvasync.mbarrier_try_wait_parity"(%[[EMPTY]], {{.*}}fuser.pipeline = "empty[operands]: wait"
// SYNCED: "nvasync.mbarrier_arrive_expect_tx"(%[[FULL]], %{{.*}}) {bytes = 65536 : i32
// SYNCED-COUNT-4: "nvasync.tma_load"(%arg2
// The store warp: per tile, the consumers' handover, the four boxes' stores, their smem reads
// done, then the tile back to the consumers and to the gate's next load.
// SYNCED: "nvasync.mbarrier_try_wait_parity"(%[[STORE]], {{.*}}fuser.pipeline = "full[offload0]: wait"
// SYNCED-COUNT-4: "nvasync.tma_store"(%arg3
// SYNCED-NEXT: "nvasync.bulk_commit"
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store reads smem -> vector.store", pending = 0 : i32, read = true}
// SYNCED: "nvasync.mbarrier_arrive"(%[[STORED]], %{{.*}}) {fuser.pipeline = "empty[offload0]: arrive (offload thread)"}
// SYNCED-NEXT: arith.constant
// SYNCED-NEXT: "nvasync.mbarrier_arrive"(%[[EMPTY]], %{{.*}}) {fuser.pipeline = "empty[operands]: arrive (offload thread)"}
// The consumers: no load of the gate, no store, no barrier; after their K loop they wait for the
// store warp's previous tile and the gate, and hand the tile to the store warp (each writer's
// proxy fence, then one lane a warp).
// SYNCED: "nvasync.warp_role"
// SYNCED: "nvasync.setmaxnreg"() {action = "inc", regs = 232 : i32}
// SYNCED-NOT: "nvasync.tma_load"(%arg2
// SYNCED: "nvasync.mbarrier_try_wait_parity"({{.*}}fuser.pipeline = "full[b]: wait"
// SYNCED: "nvasync.mbarrier_try_wait_parity"(%[[STORED]], {{.*}}fuser.pipeline = "empty[offload0]: wait"
// SYNCED: "nvasync.mbarrier_try_wait_parity"(%[[FULL]], {{.*}}fuser.pipeline = "full[operands]: wait"
// SYNCED-NOT: {{named_barrier|tma_store|bulk_wait}}
// SYNCED: vector.load
// SYNCED: "nvasync.fence_proxy_async"
// SYNCED-NEXT: "nvasync.warp_sync"
// SYNCED: "nvasync.mbarrier_arrive"(%[[STORE]], %{{.*}}) {fuser.pipeline = "full[offload0]: arrive (consumer warp)"}
// SYNCED: "nvasync.mbarrier_arrive"(%[[EMPTY]], %{{.*}}) {fuser.pipeline = "empty[operands]: arrive (consumer thread)"}
// SYNCED: "nvasync.mbarrier_inval"(%[[STORE]]

// The epilogue reads the gate from shared memory: no global load after the last wgmma.  The
// producer warpgroup's code comes first: the gate's loads, then the store warp's stores and its
// wait for their smem reads; the consumers issue no TMA load or store.
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.wait_group.read 0
// PTX: wgmma.mma_async
// PTX: ld.shared.v2.b16
// PTX-NOT: ld.global
// PTX-NOT: cp.async.bulk.tensor
