// Rule (warp roles hand a buffer on through mbarriers; warp_role_handoff.mlir): a role's accesses
// and another role's are ordered by a handoff each way the protocol needs, or by nothing -- no
// barrier can stand between concurrent roles.  Each kernel here is warp_role_handoff.mlir's
// @handoff with one mbarrier missing (its init syncs already written):
//  * @no_full: the writers do not arrive on `full` and the readers do not wait on it, so a read
//    may see the buffer before the writers' stores (RAW);
//  * @no_empty: the readers do not arrive on `empty` and the writers do not wait on it, so the
//    next iteration's stores may overwrite the buffer while it is read (WAR).
// fuser-insert-syncs reports the hazard it cannot order instead of emitting a barrier between
// the roles; fuser-verify-syncs reports it too, naming the accesses in the protocol's order.
// RUN: fuser-opt %s -p fuser-insert-syncs --split-input-file --verify-diagnostics
// RUN: not fuser-opt %s --split-input-file -p fuser-verify-syncs -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: unsynchronized hazard: warps [0, 8) and warps [8, 12) ordered neither by a barrier over both nor by an mbarrier handoff (an arrive after the first access, a wait on it before the second): 'memref.store' at {{[0-9:]+}} -> 'memref.load' at {{[0-9:]+}}
// CHECK: error: unsynchronized hazard: warps [8, 12) and warps [0, 8) ordered neither by a barrier over both nor by an mbarrier handoff (an arrive after the first access, a wait on it before the second): 'memref.load' at {{[0-9:]+}} -> 'memref.store' at {{[0-9:]+}}

!buf = memref<256xf32, #gpu.address_space<workgroup>>
!bars = memref<2xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @no_full(%in: memref<384xf32>, %out: memref<384xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 384, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !buf
    %bars = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !bars
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 256 : i32} : (!bars, index) -> ()
      "nvasync.mbarrier_init"(%bars, %c1) {count = 128 : i32} : (!bars, index) -> ()
      "nvasync.fence_mbarrier_init"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    "nvasync.warp_role"() ({
      scf.for %i = %c0 to %n step %c1 {
        %i32 = arith.index_cast %i : index to i32
        %p = arith.andi %i32, %one : i32
        %j = arith.subi %tid, %c128 : index
        // expected-error @below {{no barrier can order the RAW hazard memref.store@}}
        %x = memref.load %buf[%j] : !buf
        memref.store %x, %out[%tid] : memref<384xf32>
        "nvasync.mbarrier_arrive"(%bars, %c1) : (!bars, index) -> ()
      }
      gpu.yield
    }) {first_warp = 8 : i32, num_warps = 4 : i32} : () -> ()
    "nvasync.warp_role"() ({
      scf.for %i = %c0 to %n step %c1 {
        %i32 = arith.index_cast %i : index to i32
        %p = arith.andi %i32, %one : i32
        %q = arith.xori %p, %one : i32
        "nvasync.mbarrier_try_wait_parity"(%bars, %c1, %q) : (!bars, index, i32) -> ()
        %v = memref.load %in[%tid] : memref<384xf32>
        memref.store %v, %buf[%tid] : !buf
      }
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 8 : i32} : () -> ()
    gpu.return
  }
}
}

// -----

!buf = memref<256xf32, #gpu.address_space<workgroup>>
!bars = memref<2xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @no_empty(%in: memref<384xf32>, %out: memref<384xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 384, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !buf
    %bars = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !bars
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 256 : i32} : (!bars, index) -> ()
      "nvasync.mbarrier_init"(%bars, %c1) {count = 128 : i32} : (!bars, index) -> ()
      "nvasync.fence_mbarrier_init"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    "nvasync.warp_role"() ({
      scf.for %i = %c0 to %n step %c1 {
        %i32 = arith.index_cast %i : index to i32
        %p = arith.andi %i32, %one : i32
        "nvasync.mbarrier_try_wait_parity"(%bars, %c0, %p) : (!bars, index, i32) -> ()
        %j = arith.subi %tid, %c128 : index
        %x = memref.load %buf[%j] : !buf
        memref.store %x, %out[%tid] : memref<384xf32>
      }
      gpu.yield
    }) {first_warp = 8 : i32, num_warps = 4 : i32} : () -> ()
    "nvasync.warp_role"() ({
      scf.for %i = %c0 to %n step %c1 {
        %i32 = arith.index_cast %i : index to i32
        %p = arith.andi %i32, %one : i32
        %q = arith.xori %p, %one : i32
        %v = memref.load %in[%tid] : memref<384xf32>
        // expected-error @below {{no barrier can order the WAR hazard memref.load@}}
        memref.store %v, %buf[%tid] : !buf
        "nvasync.mbarrier_arrive"(%bars, %c0) : (!bars, index) -> ()
      }
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 8 : i32} : () -> ()
    gpu.return
  }
}
}
