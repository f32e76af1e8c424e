// The pointwise scheduler in mode "warp_specialized" (fusion.schedule): its kernel IR is the
// pipelined kernel's with another mode on the loop (no mbarrier, barrier, fence or wait);
// fuser-pipeline-mbarriers adds a producer warpgroup after the 256 consumer threads (block 384)
// and full/empty mbarriers; the sync passes then derive, per stage, the consumers' proxy fence and
// a *named* barrier over the 256 consumers only (the producers run in another role) before the
// elected consumer's TMA store, a bar.sync 0 over all 384 threads after the init and before the
// invalidation (outside the roles), and nothing else.  Register budgets appear as setmaxnreg.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=KERNEL
// RUN: fuser-opt %s -p fuser-verify-dialects -p fuser-schedule -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

func.func @relu_mul(%x: tensor<?x1024xbf16>, %y: tensor<?x1024xbf16>) -> tensor<?x1024xbf16>
    attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise", rank = 2, box_rows = 8, box_cols = 256, boxes = 1, stages = 2, mode = "warp_specialized"}} {
  %r = "fusion.unary"(%x) {kind = "relu"} : (tensor<?x1024xbf16>) -> tensor<?x1024xbf16>
  %m = "fusion.binary"(%r, %y) {kind = "mul"} : (tensor<?x1024xbf16>, tensor<?x1024xbf16>) -> tensor<?x1024xbf16>
  return %m : tensor<?x1024xbf16>
}

func.func @gelu_regs(%x: tensor<?xf32>) -> tensor<?xf32>
    attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise", rank = 1, box_rows = 1, box_cols = 256, boxes = 8, stages = 3, mode = "warp_specialized", producer_regs = 40, consumer_regs = 232}} {
  %g = "fusion.unary"(%x) {kind = "gelu"} : (tensor<?xf32>) -> tensor<?xf32>
  return %g : tensor<?xf32>
}

// KERNEL-LABEL: gpu.func @relu_mul(
// KERNEL-SAME: gpu.known_block_size = array<i32: 256, 1, 1>
// KERNEL-NOT: mbarrier
// KERNEL-NOT: sync_threads
// KERNEL-NOT: named_barrier
// KERNEL-NOT: fence
// KERNEL-NOT: warp_role
// KERNEL: } {nvasync.pipeline = {mode = "warp_specialized", prefetch = 2 : i64, stages = 2 : i64}}
// KERNEL-LABEL: gpu.func @gelu_regs(
// KERNEL-SAME: gpu.known_block_size = array<i32: 256, 1, 1>
// KERNEL-NOT: mbarrier
// KERNEL-NOT: setmaxnreg
// KERNEL: } {nvasync.pipeline = {consumer_regs = 232 : i64, mode = "warp_specialized", prefetch = 3 : i64, producer_regs = 40 : i64, stages = 3 : i64}}

// SYNCED-LABEL: gpu.func @relu_mul(
// SYNCED-SAME: gpu.known_block_size = array<i32: 384, 1, 1>
// SYNCED-COUNT-4: "nvasync.mbarrier_init"
// SYNCED: "nvasync.fence_mbarrier_init"
// SYNCED-NEXT: {{^ *}$}}
// SYNCED-NEXT: "nvasync.sync_threads"() {fuser.derived = "RAW: nvasync.mbarrier_init -> nvasync.mbarrier_try_wait_parity"}
// Producer warpgroup (warps 8-11): no barrier, fence or setmaxnreg (no budgets given).
// SYNCED-NEXT: "nvasync.warp_role"() ({
// SYNCED-NOT: named_barrier
// SYNCED-NOT: sync_threads
// SYNCED-NOT: setmaxnreg
// SYNCED: "nvasync.mbarrier_try_wait_parity"{{.*}}"empty[producer]: wait"
// SYNCED-NEXT: arith.constant
// SYNCED-NEXT: "nvasync.mbarrier_arrive_expect_tx"{{.*}}bytes = 8192
// SYNCED-NOT: named_barrier
// SYNCED-NOT: sync_threads
// SYNCED: }) {first_warp = 8 : i32, num_warps = 4 : i32}
// Consumers (warps 0-7), per stage: wait full, compute, the issuer's bulk wait for the stage's
// previous store, every writer's proxy fence, a named barrier over the 256 consumers, the store.
// SYNCED-NEXT: "nvasync.warp_role"() ({
// SYNCED: "nvasync.mbarrier_try_wait_parity"{{.*}}"full[producer]: wait"
// SYNCED-NOT: named_barrier
// SYNCED-NOT: sync_threads
// SYNCED: vector.store
// SYNCED-NOT: named_barrier
// SYNCED-NOT: sync_threads
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store reads smem -> vector.store", pending = 0 : i32, read = true}
// SYNCED: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy: vector.store -> nvasync.tma_store", space = "shared::cta"}
// SYNCED-NEXT: "nvasync.named_barrier"() {fuser.derived = "RAW: vector.store -> nvasync.tma_store", id = 1 : i32, threads = 256 : i32}
// SYNCED-NEXT: scf.if
// SYNCED: "nvasync.tma_store"
// SYNCED-NEXT: "nvasync.bulk_commit"
// SYNCED: "nvasync.warp_sync"
// SYNCED: "nvasync.mbarrier_arrive"{{.*}}"empty[producer]: arrive (consumer warp)"
// SYNCED: "nvasync.mbarrier_try_wait_parity"{{.*}}"full[producer]: wait"
// SYNCED-NOT: sync_threads
// SYNCED: "nvasync.named_barrier"() {fuser.derived = "RAW: vector.store -> nvasync.tma_store", id = 1 : i32, threads = 256 : i32}
// SYNCED-NOT: named_barrier
// SYNCED-NOT: sync_threads
// SYNCED: }) {first_warp = 0 : i32, num_warps = 8 : i32}
// After the roles every thread runs on: one bar.sync 0 before the issuer invalidates.
// SYNCED-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.mbarrier_try_wait_parity -> nvasync.mbarrier_inval"}
// SYNCED-COUNT-4: "nvasync.mbarrier_inval"
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "TMA stores read smem until their group completes: wait before exit", pending = 0 : i32, read = true}
// SYNCED-NOT: named_barrier
// SYNCED-NOT: sync_threads
// SYNCED: gpu.return

// Budgets: setmaxnreg.dec in the producers, .inc in the consumers; three stages keep one TMA
// store in flight (pending = 1).
// SYNCED-LABEL: gpu.func @gelu_regs(
// SYNCED-SAME: gpu.known_block_size = array<i32: 384, 1, 1>
// SYNCED: "nvasync.warp_role"() ({
// SYNCED-NEXT: "nvasync.setmaxnreg"() {action = "dec", regs = 40 : i32}
// SYNCED: }) {first_warp = 8 : i32, num_warps = 4 : i32}
// SYNCED-NEXT: "nvasync.warp_role"() ({
// SYNCED-NEXT: "nvasync.setmaxnreg"() {action = "inc", regs = 232 : i32}
// SYNCED: "nvasync.bulk_wait"() {{.*}}pending = 1 : i32, read = true}
// SYNCED: "nvasync.named_barrier"() {{.*}}id = 1 : i32, threads = 256 : i32}
// SYNCED: }) {first_warp = 0 : i32, num_warps = 8 : i32}
// SYNCED-NEXT: "nvasync.sync_threads"()

// PTX-LABEL: .visible .entry relu_mul(
// PTX: .reqntid 384, 1, 1
// PTX: fence.mbarrier_init.release.cluster;
// PTX: bar.sync 0;
// PTX: fence.proxy.async.shared::cta;
// PTX-NEXT: bar.sync 1, 256;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: mbarrier.arrive.shared.b64
// PTX: bar.sync 1, 256;
// PTX-NOT: bar.sync 0
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-LABEL: .visible .entry gelu_regs(
// PTX: .reqntid 384, 1, 1
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
