// Rule (branches of one scf.if): the trace fuser-verify-syncs builds walks an scf.if's then and
// else branches one after the other, but one execution of the if runs only one of them, so an
// access in the then branch and one in the else branch of the same execution are no hazard.
// Here a TMA store in the then branch and the else branch's rewrite of its smem: the store's
// smem reads are waited for (`wait_group.read`) once, before the barrier at the top of the next
// iteration that both branches' writes follow; nothing orders the then branch's store before
// the else branch's write of the same iteration, and nothing needs to (fuser-verify-syncs used to
// report that pair: "smem rewritten before the TMA store finished reading it").
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences | fuser-opt -p fuser-verify-syncs -o /dev/null

// CHECK-LABEL: gpu.func @k(
// CHECK: scf.for
// CHECK: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store{{.*}} reads smem -> memref.store{{.*}}", pending = 0 : i32, read = true}
// CHECK: "nvasync.sync_threads"() {fuser.derived = "RAW: memref.store{{.*}} -> memref.load
// CHECK: scf.if
// CHECK: "nvasync.tma_store"
// CHECK: } else {
// CHECK-NOT: bulk_wait
// CHECK: memref.store
// CHECK: }

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %n: index, %m: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %e = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %e : i1
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<128xf32, #gpu.address_space<workgroup>>
    %cell = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1xi32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      scf.if %issuer {
        memref.store %ii, %cell[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
      }
      %v = memref.load %cell[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
      %c = arith.cmpi eq, %v, %c0_i32 : i32
      scf.if %c {
        memref.store %f, %buf[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
        scf.if %issuer {
          "nvasync.tma_store"(%desc, %buf, %c0_i32) : (!llvm.ptr, memref<128xf32, #gpu.address_space<workgroup>>, i32) -> ()
        }
      } else {
        memref.store %f, %buf[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
      }
    }
    gpu.return
  }
}
}
