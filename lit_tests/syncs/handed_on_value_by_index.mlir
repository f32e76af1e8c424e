// A branch on a shared-memory word each thread picks by its own index is divergent (unlike one word
// every thread reads, handed_on_value_branch.mlir): no barrier may go inside it, so an exchange
// between threads inside it cannot be ordered, and fuser-insert-syncs says so.
// RUN: fuser-opt %s -p fuser-insert-syncs --verify-diagnostics

!cells = memref<256xi32, #gpu.address_space<workgroup>>
!smem = memref<256xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @picked_by_index(%out: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %cells = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !cells
    %buf = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !smem
    %tid = gpu.thread_id x
    %c255 = arith.constant 255 : index
    %zero = arith.constant 0 : i32
    %seen = memref.load %cells[%tid] : !cells
    %go = arith.cmpi sgt, %seen, %zero : i32
    scf.if %go {
      %v = arith.constant 1.0 : f32
      memref.store %v, %buf[%tid] : !smem
      %other = arith.subi %c255, %tid : index
      // expected-error @below {{no barrier can order the RAW hazard memref.store@20:7 -> memref.load@23:12: every point between them is reached only by a subset of all threads}}
      %w = memref.load %buf[%other] : !smem
      memref.store %w, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}
}
