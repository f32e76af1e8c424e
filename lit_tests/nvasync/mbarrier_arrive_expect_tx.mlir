// nvasync.mbarrier_arrive_expect_tx {bytes} lowers to nvvm.mbarrier.arrive.expect_tx with the byte
// count as an i32 constant and then to mbarrier.arrive.expect_tx.shared.b64 state, [addr], bytes.
// Rules checked: the transaction byte count is passed through (8192); stage 1 is byte 8.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: %[[BYTES:.*]] = arith.constant 8192 : i32
// NVVM-NEXT: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[BYTES]] : !llvm.ptr<3>, i32
// NVVM-NOT: nvasync.

// PTX: mov.b32 [[BYTES:%r[0-9]+]], 8192;
// PTX: mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [__dynamic_shmem__0+8], [[BYTES]];

!bars = memref<2xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %c1 = arith.constant 1 : index
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.mbarrier_arrive_expect_tx"(%bars, %c1) {bytes = 8192 : i32} : (!bars, index) -> ()
    }
    gpu.return
  }
}
}
