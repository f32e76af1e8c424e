// nvasync.sync_threads (__syncthreads) lowers to nvvm.barrier0 and then to bar.sync 0.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: memref.store
// NVVM-NEXT: nvvm.barrier0
// NVVM-NEXT: memref.load
// NVVM-NOT: nvasync.

// PTX: st.shared.b32
// PTX-NEXT: bar.sync 0;
// PTX: ld.shared.b32

!buf = memref<128xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%out: memref<128xf32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !buf
    %tid = gpu.thread_id x
    %c127 = arith.constant 127 : index
    %mirror = arith.subi %c127, %tid : index
    %x = arith.constant 1.0 : f32
    memref.store %x, %buf[%tid] : !buf
    "nvasync.sync_threads"() : () -> ()
    %y = memref.load %buf[%mirror] : !buf
    memref.store %y, %out[%tid] : memref<128xf32>
    gpu.return
  }
}
}
