// fuser-schedule turns a fusion func into a pointwise kernel: a persistent tile loop marked for
// pipelining whose body loads one tile of every input, evaluates the fusion body per lane and
// TMA-stores the outputs.  The scheduler writes no mbarrier, barrier, fence or wait (the pipelining
// and sync passes derive them), dynamic dims reach the kernel as scalars, and the schedule
// attribute is honoured.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s --check-prefix=KERNEL
// RUN: fuser-opt %s -p fuser-schedule -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-verify-syncs | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

func.func @relu_mul(%x: tensor<?x1024xbf16>, %y: tensor<?x1024xbf16>) -> tensor<?x1024xbf16>
    attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise", rank = 2, box_rows = 8, box_cols = 256, boxes = 1, stages = 2}} {
  %r = "fusion.unary"(%x) {kind = "relu"} : (tensor<?x1024xbf16>) -> tensor<?x1024xbf16>
  %m = "fusion.binary"(%r, %y) {kind = "mul"} : (tensor<?x1024xbf16>, tensor<?x1024xbf16>) -> tensor<?x1024xbf16>
  return %m : tensor<?x1024xbf16>
}

// KERNEL: module attributes {gpu.container_module}
// KERNEL: gpu.module @kernels
// KERNEL: gpu.func @relu_mul(%[[X:.*]]: !llvm.ptr, %[[Y:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr, %[[ROWS:.*]]: i32, %[[COLS:.*]]: i32) kernel
// KERNEL-SAME: gpu.known_block_size = array<i32: 256, 1, 1>
// KERNEL-NOT: func.func
// KERNEL: scf.for
// KERNEL: "nvasync.pipeline_load"(%[[X]]
// KERNEL: "nvasync.pipeline_load"(%[[Y]]
// KERNEL: arith.maximumf
// KERNEL: arith.mulf
// KERNEL: "nvasync.tma_store"(%[[OUT]]
// KERNEL: } {nvasync.pipeline = {mode = "pipelined", prefetch = 2 : i64, stages = 2 : i64}}
// KERNEL-NOT: mbarrier
// KERNEL-NOT: sync_threads
// KERNEL-NOT: fence
// KERNEL-NOT: bulk_wait

// SYNCED-COUNT-2: "nvasync.mbarrier_init"
// SYNCED: "nvasync.fence_mbarrier_init"(){{.*}}fuser.derived
// SYNCED: "nvasync.mbarrier_arrive_expect_tx"({{.*}}) {bytes = 8192 : i32
// SYNCED: "nvasync.mbarrier_try_wait_parity"
// SYNCED: "nvasync.fence_proxy_async"(){{.*}}fuser.derived
// SYNCED: "nvasync.tma_store"
// SYNCED: "nvasync.bulk_commit"(){{.*}}fuser.derived
// SYNCED: "nvasync.bulk_wait"(){{.*}}fuser.derived

// PTX: .visible .entry relu_mul(
// PTX: .reqntid 256, 1, 1
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: fence.proxy.async.shared::cta;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.wait_group.read 0;
