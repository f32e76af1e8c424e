// nvasync.warp_sync (__syncwarp) lowers to nvvm.bar.warp.sync with a full mask.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: %[[MASK:.*]] = arith.constant -1 : i32
// NVVM: nvvm.bar.warp.sync %[[MASK]]

// PTX: st.shared.b32
// PTX-NEXT: bar.warp.sync -1;
// PTX: ld.shared.b32

!buf = memref<32xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%out: memref<32xf32>) kernel attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !buf
    %tid = gpu.thread_id x
    %c31 = arith.constant 31 : index
    %mirror = arith.subi %c31, %tid : index
    %x = arith.constant 1.0 : f32
    memref.store %x, %buf[%tid] : !buf
    "nvasync.warp_sync"() : () -> ()
    %y = memref.load %buf[%mirror] : !buf
    memref.store %y, %out[%tid] : memref<32xf32>
    gpu.return
  }
}
}
