// Rule (fuser-insert-syncs, barriers under divergent conditions): a barrier synchronizes exactly
// the threads that reach it, so it goes only where those are every thread of the CTA
// (`sync_threads`, bar.sync 0) or whole warps (`named_barrier` id, 32 x warps).  A condition on the
// thread index that selects a contiguous range of whole warps (evaluated for every thread of
// gpu.known_block_size) lets a named barrier go inside the branch; each distinct set of warps gets
// its own id, and one set keeps one id wherever it synchronizes (warp roles included).  A
// condition that does not select whole warps keeps the barrier outside the branch.
//  * @halves (256 threads): `tid < 128` then-branch (warps 0-3) and its else-branch (warps 4-7)
//    each exchange elements through their own buffer -> named barrier 1 over 128 threads inside
//    the then-branch, named barrier 2 over 128 threads inside the else-branch; no bar.sync 0.
//  * @branch_and_role: the same warps 0-3 synchronize inside `tid / 32 < 4` and inside a warp
//    role over warps [0, 4): both barriers use id 1; a loop-carried WAR inside the branch gets a
//    named barrier at the top of the loop body.
//  * @partial_warps: `tid < 100` splits warp 3: the branch's write, read by every thread after it,
//    gets a sync_threads after the branch, and the read -> the second branch's write (WAR) one
//    before that branch -- never inside.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @halves
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.subi
// CHECK-NEXT: "nvasync.named_barrier"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}", id = 1 : i32, threads = 128 : i32}
// CHECK-NEXT: memref.load %{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: } else {
// CHECK: memref.store %{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.subi
// CHECK-NEXT: "nvasync.named_barrier"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}", id = 2 : i32, threads = 128 : i32}
// CHECK-NEXT: memref.load %{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: nvasync.sync_threads
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @branch_and_role
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if
// CHECK-NEXT: scf.for
// CHECK-NEXT: "nvasync.named_barrier"() {fuser.derived = "WAR: memref.load@{{[0-9:]+}} -> memref.store@{{[0-9:]+}}", id = 1 : i32, threads = 128 : i32}
// CHECK-NEXT: memref.store
// CHECK-NEXT: "nvasync.named_barrier"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}", id = 1 : i32, threads = 128 : i32}
// CHECK-NEXT: memref.load
// CHECK: "nvasync.warp_role"
// CHECK-NEXT: memref.store
// CHECK-NEXT: "nvasync.named_barrier"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}", id = 1 : i32, threads = 128 : i32}
// CHECK-NEXT: memref.load
// CHECK-NOT: nvasync.sync_threads
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @partial_warps
// CHECK: scf.if
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: arith.subi
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}"}
// CHECK-NEXT: memref.load
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: memref.load@{{[0-9:]+}} -> memref.store@{{[0-9:]+}}"}
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return

!half = memref<128xf32, #gpu.address_space<workgroup>>
!smem = memref<256xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @halves(%out: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %lo_buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !half
    %hi_buf = "nvasync.smem_buffer"() {offset = 512 : i64} : () -> !half
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %c255 = arith.constant 255 : index
    %tid = gpu.thread_id x
    %v = memref.load %out[%tid] : memref<256xf32>
    %lo = arith.cmpi ult, %tid, %c128 : index
    scf.if %lo {
      // RAW: divergent_branch_barriers.mlir:[[#@LINE+3]]:12: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+1]]:7 -> 'memref.load' at [[#@LINE+3]]:12
      memref.store %v, %lo_buf[%tid] : !half
      %rev = arith.subi %c127, %tid : index
      %x = memref.load %lo_buf[%rev] : !half
      memref.store %x, %out[%tid] : memref<256xf32>
    } else {
      %i = arith.subi %tid, %c128 : index
      // RAW: divergent_branch_barriers.mlir:[[#@LINE+3]]:12: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+1]]:7 -> 'memref.load' at [[#@LINE+3]]:12
      memref.store %v, %hi_buf[%i] : !half
      %rev = arith.subi %c255, %tid : index
      %x = memref.load %hi_buf[%rev] : !half
      memref.store %x, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
  gpu.func @branch_and_role(%out: memref<256xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !half
    %b = "nvasync.smem_buffer"() {offset = 512 : i64} : () -> !half
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c127 = arith.constant 127 : index
    %tid = gpu.thread_id x
    %rev = arith.subi %c127, %tid : index
    %v = memref.load %out[%tid] : memref<256xf32>
    %warp = arith.divui %tid, %c32 : index
    %first_four = arith.cmpi ult, %warp, %c4 : index
    scf.if %first_four {
      scf.for %r = %c0 to %n step %c1 {
        // RAW: divergent_branch_barriers.mlir:[[#@LINE+3]]:14: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+2]]:9 -> 'memref.load' at [[#@LINE+3]]:14
        // RAW: divergent_branch_barriers.mlir:[[#@LINE+1]]:9: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.load' at [[#@LINE+2]]:14 -> 'memref.store' at [[#@LINE+1]]:9
        memref.store %v, %a[%tid] : !half
        %x = memref.load %a[%rev] : !half
        memref.store %x, %out[%tid] : memref<256xf32>
      }
    }
    "nvasync.warp_role"() ({
      // RAW: divergent_branch_barriers.mlir:[[#@LINE+2]]:12: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+1]]:7 -> 'memref.load' at [[#@LINE+2]]:12
      memref.store %v, %b[%tid] : !half
      %y = memref.load %b[%rev] : !half
      memref.store %y, %out[%tid] : memref<256xf32>
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 4 : i32} : () -> ()
    gpu.return
  }
  gpu.func @partial_warps(%out: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %c100 = arith.constant 100 : index
    %c255 = arith.constant 255 : index
    %tid = gpu.thread_id x
    %few = arith.cmpi ult, %tid, %c100 : index
    scf.if %few {
      %v = memref.load %out[%tid] : memref<256xf32>
      // RAW: divergent_branch_barriers.mlir:[[#@LINE+4]]:10: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+1]]:7 -> 'memref.load' at [[#@LINE+4]]:10
      memref.store %v, %buf[%tid] : !smem
    }
    %rev = arith.subi %c255, %tid : index
    %x = memref.load %buf[%rev] : !smem
    scf.if %few {
      // RAW: divergent_branch_barriers.mlir:[[#@LINE+1]]:7: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.load' at [[#@LINE-2]]:10 -> 'memref.store' at [[#@LINE+1]]:7
      memref.store %x, %buf[%tid] : !smem
    }
    // RAW-NOT: error:
    gpu.return
  }
}
}
