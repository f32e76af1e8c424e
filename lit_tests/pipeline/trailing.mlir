// fuser-pipeline-mbarriers on a `trailing` tile loop: its load (role "operands", one per tile into
// a buffer the tile's epilogue reads) is issued by the warp-specialized K loop's first producer,
// right after it issued the tile's K loads -- the stages ahead of the consumers -- so it lands as
// the consumers finish the K loop.  One full/empty pair of single mbarriers, phase = tile: the
// producer waits on `empty` (parity flipped: the first tile passes on the fresh barrier), then
// announces the bytes on `full` and loads; every consumer thread waits on `full` before the
// epilogue's read and arrives on `empty` at the end of the tile.  The consumers issue no load of
// their own, and the sync passes add no barrier in the tile loop: the handoffs order it all.
// Both verifiers pass (fuser-verify-pipelines explores tiles x K steps); dropping either wait or
// the arrival makes both report (checked by hand).  For contrast, @tile_ahead is the same kernel
// with the tile loop in mode `pipelined`: the issuer (a consumer thread) loads tile 0 before the
// roles and tile t + 1 at the end of tile t, behind a barrier after every consumer's read.
// @in_place rewrites the operand in place and TMA-stores it, as the matmul's epilogue does: the
// issuer's wait.read comes before its `empty` arrival, and the round trip through the producer
// (`empty` -> its wait, its arrival on `full` -> every consumer's wait) orders the next tile's
// writes after the store's reads, so no barrier opens the epilogue -- only the one between the
// writes and the store (tests/test_syncs.py deletes each link of the round trip).
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers | FileCheck %s
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

!box = memref<8x128xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @trailing(%d: !llvm.ptr, %e: !llvm.ptr, %n: index, %tiles: index, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box
    %operand = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !box
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    scf.for %t = %c0 to %tiles step %c1 {
      %x = arith.index_cast %t : index to i32
      "nvasync.pipeline_load"(%e, %operand, %x, %x) {role = "operands"} : (!llvm.ptr, !box, i32, i32) -> ()
      %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
        %k8 = arith.muli %k, %c8 : index
        %y = arith.index_cast %k8 : index to i32
        "nvasync.pipeline_load"(%d, %buf, %y, %x) {role = "a"} : (!llvm.ptr, !box, i32, i32) -> ()
        %v = memref.load %buf[%c0, %tid] : !box
        %s = arith.addf %acc, %v : f32
        scf.yield %s : f32
      } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
      %w = memref.load %operand[%c0, %tid] : !box
      %r = arith.addf %sum, %w : f32
      %i64 = arith.index_cast %tid : index to i64
      %dst = llvm.getelementptr %out[%i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r, %dst : f32, !llvm.ptr<1>
    } {nvasync.pipeline = {stages = 1 : i64, mode = "trailing"}}
    gpu.return
  }

  gpu.func @tile_ahead(%d: !llvm.ptr, %e: !llvm.ptr, %n: index, %tiles: index, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box
    %operand = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !box
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    scf.for %t = %c0 to %tiles step %c1 {
      %x = arith.index_cast %t : index to i32
      "nvasync.pipeline_load"(%e, %operand, %x, %x) {role = "operands"} : (!llvm.ptr, !box, i32, i32) -> ()
      %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
        %k8 = arith.muli %k, %c8 : index
        %y = arith.index_cast %k8 : index to i32
        "nvasync.pipeline_load"(%d, %buf, %y, %x) {role = "a"} : (!llvm.ptr, !box, i32, i32) -> ()
        %v = memref.load %buf[%c0, %tid] : !box
        %s = arith.addf %acc, %v : f32
        scf.yield %s : f32
      } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
      %w = memref.load %operand[%c0, %tid] : !box
      %r = arith.addf %sum, %w : f32
      %i64 = arith.index_cast %tid : index to i64
      %dst = llvm.getelementptr %out[%i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r, %dst : f32, !llvm.ptr<1>
    } {nvasync.pipeline = {stages = 1 : i64, mode = "pipelined"}}
    gpu.return
  }

  gpu.func @in_place(%d: !llvm.ptr, %e: !llvm.ptr, %n: index, %tiles: index, %od: !llvm.ptr) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box
    %operand = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !box
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %el : i1
    scf.for %t = %c0 to %tiles step %c1 {
      %x = arith.index_cast %t : index to i32
      "nvasync.pipeline_load"(%e, %operand, %x, %x) {role = "operands"} : (!llvm.ptr, !box, i32, i32) -> ()
      %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
        %k8 = arith.muli %k, %c8 : index
        %y = arith.index_cast %k8 : index to i32
        "nvasync.pipeline_load"(%d, %buf, %y, %x) {role = "a"} : (!llvm.ptr, !box, i32, i32) -> ()
        %v = memref.load %buf[%c0, %tid] : !box
        %s = arith.addf %acc, %v : f32
        scf.yield %s : f32
      } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
      %w = memref.load %operand[%c0, %tid] : !box
      %r = arith.addf %sum, %w : f32
      memref.store %r, %operand[%c0, %tid] : !box
      scf.if %issuer {
        "nvasync.tma_store"(%od, %operand, %x, %x) : (!llvm.ptr, !box, i32, i32) -> ()
      }
    } {nvasync.pipeline = {stages = 1 : i64, mode = "trailing"}}
    gpu.return
  }
}
}

// CHECK-LABEL: gpu.func @trailing
// CHECK: %[[OPERAND:.*]] = "nvasync.smem_buffer"() {offset = 4096 : i64}
// CHECK: "nvasync.mbarrier_init"(%[[FULL:[0-9]+]], %{{.*}}) {count = 1 : i32, fuser.pipeline = "full[operands]: init (1 arrival: role a's elected lane)"}
// CHECK: "nvasync.mbarrier_init"(%[[EMPTY:[0-9]+]], %{{.*}}) {count = 128 : i32, fuser.pipeline = "empty[operands]: init (128 arrivals: every consumer thread)"}
// The producer warp of role a: per tile, its K rounds, then the tile's operand.
// CHECK: "nvasync.warp_role"
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %arg3
// CHECK: scf.for
// CHECK: fuser.pipeline = "empty[a]: wait"
// CHECK: "nvasync.tma_load"(%arg0
// CHECK: %[[TBIT:.*]] = arith.andi %[[T]], %{{.*}} : index
// CHECK: %[[FLIP:.*]] = arith.xori %[[TBIT]], %{{.*}} : index
// CHECK: %[[PP:.*]] = arith.index_cast %[[FLIP]] : index to i32
// CHECK-NEXT: "nvasync.mbarrier_try_wait_parity"(%[[EMPTY]], %{{.*}}, %[[PP]]) {fuser.pipeline = "empty[operands]: wait"}
// CHECK: "nvasync.mbarrier_arrive_expect_tx"(%[[FULL]], %{{.*}}) {bytes = 4096 : i32, fuser.pipeline = "full[operands]: arrive.expect_tx"}
// CHECK: "nvasync.tma_load"(%arg1, %[[OPERAND]], %[[FULL]]
// CHECK-NEXT: scf.yield
// The consumers: no load of the operand; the wait right before its read, the arrival last.
// CHECK: }) {first_warp = 4 : i32, num_warps = 4 : i32}
// CHECK-NOT: "nvasync.tma_load"(%arg1
// CHECK: scf.for %[[CT:.*]] = %{{.*}} to %arg3
// CHECK: %[[CBIT:.*]] = arith.andi %[[CT]], %{{.*}} : index
// CHECK: %[[CP:.*]] = arith.index_cast %[[CBIT]] : index to i32
// CHECK-NEXT: "nvasync.mbarrier_try_wait_parity"(%[[FULL]], %{{.*}}, %[[CP]]) {fuser.pipeline = "full[operands]: wait"}
// CHECK-NEXT: memref.load %[[OPERAND]]
// CHECK: llvm.store
// CHECK: "nvasync.mbarrier_arrive"(%[[EMPTY]], %{{.*}}) {fuser.pipeline = "empty[operands]: arrive (consumer thread)"}
// CHECK-NEXT: scf.yield
// CHECK: "nvasync.mbarrier_inval"(%[[FULL]]
// CHECK: "nvasync.mbarrier_inval"(%[[EMPTY]]

// SYNCED-LABEL: gpu.func @trailing
// SYNCED: "nvasync.warp_role"
// SYNCED: fuser.pipeline = "empty[operands]: wait"
// SYNCED: "nvasync.warp_role"
// SYNCED-NOT: {{sync_threads|named_barrier}}
// SYNCED: fuser.pipeline = "full[operands]: wait"
// SYNCED-NOT: {{sync_threads|named_barrier}}
// SYNCED: fuser.pipeline = "empty[operands]: arrive (consumer thread)"
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.mbarrier_try_wait_parity

// CHECK-LABEL: gpu.func @tile_ahead
// CHECK: "nvasync.mbarrier_init"(%[[AHEAD:[0-9]+]], %{{.*}}) {count = 1 : i32, fuser.pipeline = "full: init (1 arrival: the issuer)"}
// CHECK: "nvasync.tma_load"(%arg1, %{{.*}}, %[[AHEAD]]
// CHECK: "nvasync.warp_role"
// CHECK: "nvasync.warp_role"
// CHECK: fuser.pipeline = "full[a]: wait"
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[AHEAD]], {{.*}}fuser.pipeline = "full: wait"
// CHECK-NEXT: memref.load
// CHECK: "nvasync.tma_load"(%arg1, %{{.*}}, %[[AHEAD]]

// SYNCED-LABEL: gpu.func @tile_ahead
// SYNCED: fuser.pipeline = "full: wait"
// SYNCED: "nvasync.named_barrier"() {fuser.derived = "WAR: memref.load
// SYNCED: "nvasync.tma_load"(%arg1

// SYNCED-LABEL: gpu.func @in_place
// SYNCED: "nvasync.warp_role"
// SYNCED: fuser.pipeline = "empty[operands]: wait"
// SYNCED: "nvasync.warp_role"
// SYNCED: fuser.pipeline = "full[operands]: wait"
// SYNCED-NOT: {{sync_threads|named_barrier}}
// SYNCED: memref.store
// SYNCED-NEXT: "nvasync.fence_proxy_async"
// SYNCED-NEXT: "nvasync.named_barrier"() {fuser.derived = "RAW: memref.store
// SYNCED: "nvasync.tma_store"
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store{{.*}}", pending = 0 : i32, read = true}
// SYNCED: fuser.pipeline = "empty[operands]: arrive (consumer thread)"
// SYNCED-NOT: {{sync_threads|named_barrier}}
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.mbarrier_try_wait_parity
