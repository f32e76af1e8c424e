// fuser-flush-wgmma on derived pipelines: a wgmma reads its smem operands until its group
// completes, so the consumer's release of a stage waits for the group first.
//   * warp_specialized (@ws): the release is the consumer warp's `warp_sync` + elected
//     `mbarrier_arrive` on the stage's empty barrier (made by fuser-pipeline-mbarriers); the
//     warpgroup commits its k-steps and runs `wgmma.wait_group 0` before the warp_sync, outside
//     the elected branch (wait_group is .sync.aligned), so the order per stage is
//     full wait -> wgmma.fence -> 4 wgmma -> commit -> wait 0 -> warp_sync -> elected arrive;
//   * pipelined (@pipelined): the release is the CTA barrier fuser-insert-syncs puts before the
//     refill of the stage (WAR wgmma -> tma_load); the wait goes before that barrier;
//   * @ws_read_in_stage: the accumulator is read inside the stage (its flush comes first), so
//     that wait already retires the reads: no second wait before the release;
//   * in those kernels each stage's group is waited in the stage, so the accumulator read after
//     the loop needs no further flush;
//   * @pipelined_lagging (3 stages, 2 loaded ahead): a step refills the stage the step before
//     read, so a later wgmma group runs between those reads and the barrier: fuser-insert-syncs
//     marks it `fuser.wgmma_pending` and the wait before it is `wait_group 1` -- the step's own
//     group stays in flight into the next step -- and the accumulator read after the loop gets
//     the one flush (wait_group 0);
//   * @pipelined_shared_operand: the wgmma's A is one buffer every step rewrites (not a stage),
//     so each step opens with a barrier ordering the previous step's wgmma reads before the
//     rewrite, and the previous step's group is still in flight as the step's block begins:
//     that barrier waits for it (wait_group 0; a loop body is entered as it ends);
//   * @unread_accumulator: a group nothing reads is still retired before the kernel exits.
// The 4 k-steps address the k-th 16-column slice of 128-B swizzled 64-wide tiles (subviews).
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s

// CHECK-LABEL: gpu.func @ws(
// CHECK: "nvasync.warp_role"
// CHECK: "nvasync.warp_role"
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full[tiles]: wait"}
// CHECK-NOT: nvasync.wgmma
// CHECK: "nvasync.wgmma_fence"() {fuser.derived = "order accumulator/operand accesses before nvasync.wgmma@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma"(%{{.*}}) {{.*}} : (memref<64x16xf16, strided<[64, 1]>
// CHECK-NEXT: "nvasync.wgmma"(%{{.*}}) {{.*}} : (memref<64x16xf16, strided<[64, 1], offset: 16>
// CHECK-NEXT: "nvasync.wgmma"(%{{.*}}) {{.*}} : (memref<64x16xf16, strided<[64, 1], offset: 32>
// CHECK-NEXT: "nvasync.wgmma"(%{{.*}}) {{.*}} : (memref<64x16xf16, strided<[64, 1], offset: 48>
// CHECK-NEXT: "nvasync.wgmma_commit"() {fuser.derived = "commit the wgmma group before nvasync.warp_sync@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the empty-barrier arrive that releases them (nvasync.warp_sync@{{[0-9:]+}})", pending = 0 : i32}
// CHECK-NEXT: "nvasync.warp_sync"() {fuser.pipeline = "consumer warp: reads done before its release"}
// CHECK-NEXT: scf.if
// CHECK-NOT: nvasync.wgmma_wait
// CHECK: "nvasync.mbarrier_arrive"({{.*}}) {fuser.pipeline = "empty[tiles]: arrive (consumer warp)"}
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield
// The second stage of the unrolled round: the same order.
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full[tiles]: wait"}
// CHECK: "nvasync.wgmma_commit"
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the empty-barrier arrive
// CHECK-NEXT: "nvasync.warp_sync"
// CHECK-NEXT: scf.if
// CHECK: "nvasync.mbarrier_arrive"({{.*}}) {fuser.pipeline = "empty[tiles]: arrive (consumer warp)"}
// CHECK-NOT: nvasync.wgmma_wait
// CHECK: vector.extract
// CHECK-NOT: nvasync.wgmma_wait
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @pipelined(
// Stages 0 and 1 of the unrolled round, each: wait for data, k-steps, wait, barrier, refill.
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full: wait"}
// CHECK-NOT: nvasync.wgmma_wait
// CHECK: "nvasync.wgmma_fence"
// CHECK-COUNT-4: "nvasync.wgmma"(
// CHECK-NEXT: "nvasync.wgmma_commit"() {fuser.derived = "commit the wgmma group before nvasync.sync_threads@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier that releases them (nvasync.sync_threads@{{[0-9:]+}})", pending = 0 : i32}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.wgmma@{{[0-9:]+}} -> nvasync.tma_load@{{[0-9:]+}}"}
// CHECK-NEXT: scf.if
// CHECK: "nvasync.mbarrier_arrive_expect_tx"
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full: wait"}
// CHECK: "nvasync.wgmma_commit"
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier
// CHECK-NEXT: "nvasync.sync_threads"
// CHECK: "nvasync.mbarrier_arrive_expect_tx"
// CHECK-NOT: nvasync.wgmma_wait
// CHECK: vector.extract
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @ws_read_in_stage(
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full[tiles]: wait"}
// CHECK: "nvasync.wgmma_commit"
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "flush wgmma before reading the accumulator: vector.extract@{{[0-9:]+}}", pending = 0 : i32}
// CHECK-NEXT: vector.extract
// CHECK-NOT: nvasync.wgmma_wait
// CHECK: "nvasync.warp_sync"
// CHECK-NEXT: scf.if
// CHECK-NOT: nvasync.wgmma_wait
// CHECK: "nvasync.mbarrier_arrive"({{.*}}) {fuser.pipeline = "empty[tiles]: arrive (consumer warp)"}
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @pipelined_lagging(
// The three stages of the unrolled round, each: wait for data, k-steps, wait 1, barrier, refill.
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full: wait"}
// CHECK: "nvasync.wgmma_commit"() {fuser.derived = "commit the wgmma group before nvasync.sync_threads@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier that releases them (nvasync.sync_threads@{{[0-9:]+}}), all but the newest group", pending = 1 : i32}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.wgmma@{{[0-9:]+}} -> nvasync.tma_load@{{[0-9:]+}}", fuser.wgmma_pending = 1 : i32}
// CHECK-NEXT: scf.if
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full: wait"}
// CHECK: "nvasync.wgmma_commit"() {fuser.derived = "commit the wgmma group before nvasync.sync_threads@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier that releases them (nvasync.sync_threads@{{[0-9:]+}}), all but the newest group", pending = 1 : i32}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.wgmma@{{[0-9:]+}} -> nvasync.tma_load@{{[0-9:]+}}", fuser.wgmma_pending = 1 : i32}
// CHECK-NEXT: scf.if
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full: wait"}
// CHECK: "nvasync.wgmma_commit"() {fuser.derived = "commit the wgmma group before nvasync.sync_threads@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier that releases them (nvasync.sync_threads@{{[0-9:]+}}), all but the newest group", pending = 1 : i32}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.wgmma@{{[0-9:]+}} -> nvasync.tma_load@{{[0-9:]+}}", fuser.wgmma_pending = 1 : i32}
// CHECK-NEXT: scf.if
// CHECK-NOT: nvasync.wgmma_wait
// CHECK-NOT: nvasync.sync_threads
// CHECK: "nvasync.wgmma_wait"() {fuser.derived = "flush wgmma before reading the accumulator: vector.extract@{{[0-9:]+}}", pending = 0 : i32}
// CHECK-NEXT: vector.extract
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @pipelined_shared_operand(
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full: wait"}
// CHECK: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the barrier that releases them (nvasync.sync_threads@{{[0-9:]+}})", pending = 0 : i32}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.wgmma@{{[0-9:]+}} -> memref.store@{{[0-9:]+}}"}
// CHECK-NEXT: memref.store
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @unread_accumulator(
// CHECK: "nvasync.wgmma_commit"() {fuser.derived = "commit the wgmma group before gpu.return@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "retire the wgmma groups still in flight before exit", pending = 0 : i32}
// CHECK-NEXT: gpu.return

#ws = #gpu.address_space<workgroup>
!t = memref<64x64xf16, #ws>
!s0 = memref<64x16xf16, strided<[64, 1]>, #ws>
!s1 = memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>
!s2 = memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>
!s3 = memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @ws(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !t
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : !t to !s0
      %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !t to !s1
      %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : !t to !s2
      %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : !t to !s3
      %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : !t to !s0
      %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : !t to !s1
      %b2 = memref.subview %b[0, 32] [64, 16] [1, 1] : !t to !s2
      %b3 = memref.subview %b[0, 48] [64, 16] [1, 1] : !t to !s3
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (!s0, !s0, vector<32xf32>) -> vector<32xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (!s1, !s1, vector<32xf32>) -> vector<32xf32>
      %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (!s2, !s2, vector<32xf32>) -> vector<32xf32>
      %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (!s3, !s3, vector<32xf32>) -> vector<32xf32>
      scf.yield %r3 : vector<32xf32>
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
    %tid = gpu.thread_id x
    %t64 = arith.index_cast %tid : index to i64
    %x = vector.extract %sum[0] : f32 from vector<32xf32>
    %p = llvm.getelementptr %c[%t64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %x, %p : f32, !llvm.ptr<1>
    gpu.return
  }
  gpu.func @pipelined(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !t
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : !t to !s0
      %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !t to !s1
      %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : !t to !s2
      %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : !t to !s3
      %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : !t to !s0
      %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : !t to !s1
      %b2 = memref.subview %b[0, 32] [64, 16] [1, 1] : !t to !s2
      %b3 = memref.subview %b[0, 48] [64, 16] [1, 1] : !t to !s3
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (!s0, !s0, vector<32xf32>) -> vector<32xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (!s1, !s1, vector<32xf32>) -> vector<32xf32>
      %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (!s2, !s2, vector<32xf32>) -> vector<32xf32>
      %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (!s3, !s3, vector<32xf32>) -> vector<32xf32>
      scf.yield %r3 : vector<32xf32>
    } {nvasync.pipeline = {stages = 2 : i64, mode = "pipelined"}}
    %tid = gpu.thread_id x
    %t64 = arith.index_cast %tid : index to i64
    %x = vector.extract %sum[0] : f32 from vector<32xf32>
    %p = llvm.getelementptr %c[%t64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %x, %p : f32, !llvm.ptr<1>
    gpu.return
  }
  gpu.func @ws_read_in_stage(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !t
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : !t to !s0
      %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !t to !s1
      %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : !t to !s2
      %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : !t to !s3
      %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : !t to !s0
      %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : !t to !s1
      %b2 = memref.subview %b[0, 32] [64, 16] [1, 1] : !t to !s2
      %b3 = memref.subview %b[0, 48] [64, 16] [1, 1] : !t to !s3
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (!s0, !s0, vector<32xf32>) -> vector<32xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (!s1, !s1, vector<32xf32>) -> vector<32xf32>
      %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (!s2, !s2, vector<32xf32>) -> vector<32xf32>
      %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (!s3, !s3, vector<32xf32>) -> vector<32xf32>
      %first = vector.extract %r3[0] : f32 from vector<32xf32>
      %i64 = arith.index_cast %i : index to i64
      %q = llvm.getelementptr %c[%i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %first, %q : f32, !llvm.ptr<1>
      scf.yield %r3 : vector<32xf32>
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
    %tid = gpu.thread_id x
    %t64 = arith.index_cast %tid : index to i64
    %x = vector.extract %sum[0] : f32 from vector<32xf32>
    %p = llvm.getelementptr %c[%t64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %x, %p : f32, !llvm.ptr<1>
    gpu.return
  }
  gpu.func @pipelined_lagging(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !t
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : !t to !s0
      %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !t to !s1
      %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : !t to !s2
      %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : !t to !s3
      %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : !t to !s0
      %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : !t to !s1
      %b2 = memref.subview %b[0, 32] [64, 16] [1, 1] : !t to !s2
      %b3 = memref.subview %b[0, 48] [64, 16] [1, 1] : !t to !s3
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (!s0, !s0, vector<32xf32>) -> vector<32xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (!s1, !s1, vector<32xf32>) -> vector<32xf32>
      %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (!s2, !s2, vector<32xf32>) -> vector<32xf32>
      %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (!s3, !s3, vector<32xf32>) -> vector<32xf32>
      scf.yield %r3 : vector<32xf32>
    } {nvasync.pipeline = {stages = 3 : i64, prefetch = 2 : i64, mode = "pipelined"}}
    %tid = gpu.thread_id x
    %t64 = arith.index_cast %tid : index to i64
    %x = vector.extract %sum[0] : f32 from vector<32xf32>
    %p = llvm.getelementptr %c[%t64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %x, %p : f32, !llvm.ptr<1>
    gpu.return
  }
  gpu.func @pipelined_shared_operand(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %w = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !t
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64i = arith.constant 64 : index
    %tid = gpu.thread_id x
    %row = arith.remui %tid, %c64i : index
    %h = arith.constant 1.0 : f16
    %wero = arith.constant dense<0.0> : vector<32xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %wero) -> (vector<32xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      memref.store %h, %w[%row, %c0] : !t
      %a0 = memref.subview %w[0, 0] [64, 16] [1, 1] : !t to !s0
      %a1 = memref.subview %w[0, 16] [64, 16] [1, 1] : !t to !s1
      %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : !t to !s0
      %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : !t to !s1
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (!s0, !s0, vector<32xf32>) -> vector<32xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (!s1, !s1, vector<32xf32>) -> vector<32xf32>
      scf.yield %r1 : vector<32xf32>
    } {nvasync.pipeline = {stages = 3 : i64, prefetch = 2 : i64, mode = "pipelined"}}
    %t64 = arith.index_cast %tid : index to i64
    %x = vector.extract %sum[0] : f32 from vector<32xf32>
    %y = memref.load %w[%row, %c0] : !t
    %yf = arith.extf %y : f16 to f32
    %xy = arith.addf %x, %yf : f32
    %p = llvm.getelementptr %c[%t64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %xy, %p : f32, !llvm.ptr<1>
    gpu.return
  }
  gpu.func @unread_accumulator(%n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
    %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : !t to !s0
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %r0 = "nvasync.wgmma"(%a0, %a0, %zero) {swizzle = 128 : i32, accumulate = true} : (!s0, !s0, vector<32xf32>) -> vector<32xf32>
    gpu.return
  }
}
}
