// Rule (fuser-insert-syncs, barriers around warp roles): the warp roles of one block run
// concurrently, so a barrier that orders an access before the roles with one inside a later role
// goes before the first role, never between two: there it would hold the second role's warps
// until the first role ends (and deadlock where the first role waits on the second, as a
// producer waits for its consumers' releases).
//  * @write_then_roles: every thread writes `a`, a producer-like role (warps 8-11) runs, then the
//    consumer role (warps 0-7) reads `a`: one sync_threads before the first role.
//  * @role_then_read: the first role writes `a` and every thread reads it after both roles: the
//    barrier follows the roles (the write happens inside one).
// RUN: fuser-opt %s -p fuser-insert-syncs | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs | fuser-opt -p fuser-verify-syncs -o /dev/null

// CHECK-LABEL: gpu.func @write_then_roles
// CHECK: memref.store %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "RAW: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.warp_role"
// CHECK-NOT: nvasync.sync_threads
// CHECK: first_warp = 8 : i32
// CHECK-NOT: nvasync.sync_threads
// CHECK: "nvasync.warp_role"
// CHECK-NOT: nvasync.sync_threads
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @role_then_read
// CHECK: "nvasync.warp_role"
// CHECK: first_warp = 8 : i32
// CHECK-NEXT: "nvasync.warp_role"
// CHECK: first_warp = 0 : i32
// CHECK-NEXT: arith.minui
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "RAW: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}"}
// CHECK-NEXT: memref.load %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>

!buf = memref<256xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @write_then_roles(%in: memref<384xf32>, %out: memref<384xf32>) kernel attributes {gpu.known_block_size = array<i32: 384, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !buf
    %c255 = arith.constant 255 : index
    %tid = gpu.thread_id x
    %v = memref.load %in[%tid] : memref<384xf32>
    %i = arith.minui %tid, %c255 : index
    memref.store %v, %a[%i] : !buf
    "nvasync.warp_role"() ({
      %w = memref.load %in[%tid] : memref<384xf32>
      memref.store %w, %out[%tid] : memref<384xf32>
      gpu.yield
    }) {first_warp = 8 : i32, num_warps = 4 : i32} : () -> ()
    "nvasync.warp_role"() ({
      %j = arith.subi %c255, %tid : index
      %x = memref.load %a[%j] : !buf
      memref.store %x, %out[%tid] : memref<384xf32>
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 8 : i32} : () -> ()
    gpu.return
  }

  gpu.func @role_then_read(%in: memref<384xf32>, %out: memref<384xf32>) kernel attributes {gpu.known_block_size = array<i32: 384, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !buf
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    "nvasync.warp_role"() ({
      %w = memref.load %in[%tid] : memref<384xf32>
      %k = arith.subi %tid, %c256 : index
      memref.store %w, %a[%k] : !buf
      gpu.yield
    }) {first_warp = 8 : i32, num_warps = 4 : i32} : () -> ()
    "nvasync.warp_role"() ({
      %w = memref.load %in[%tid] : memref<384xf32>
      memref.store %w, %out[%tid] : memref<384xf32>
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 8 : i32} : () -> ()
    %i = arith.minui %tid, %c255 : index
    %x = memref.load %a[%i] : !buf
    memref.store %x, %out[%tid] : memref<384xf32>
    gpu.return
  }
}
}
