// nvasync.smem_buffer {offset} is a view of the one dynamic shared-memory allocation: it lowers to
// gpu.dynamic_shared_memory (created once, at the entry) plus memref.view at the byte offset; the
// kernel records fuser.dynamic_smem_bytes = max(offset + size) over its buffers (here
// max(4096 + 4*32, 1024 + 2*64*64) = 9216, not the last buffer's end).  In PTX the buffers are
// __dynamic_shmem__0+offset in the .extern .shared .align 1024 array.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: gpu.func @k(%{{.*}}: f32, %{{.*}}: bf16) kernel attributes {fuser.dynamic_smem_bytes = 9216 : i64,
// NVVM-NEXT: %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// NVVM-NOT: gpu.dynamic_shared_memory
// NVVM: %[[C4096:.*]] = arith.constant 4096 : index
// NVVM-NEXT: memref.view %[[BASE]][%[[C4096]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
// NVVM: %[[C1024:.*]] = arith.constant 1024 : index
// NVVM-NEXT: memref.view %[[BASE]][%[[C1024]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
// NVVM-NOT: gpu.dynamic_shared_memory
// NVVM-NOT: nvasync.

// PTX: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX-DAG: st.shared.b32 [__dynamic_shmem__0+4096], %r{{[0-9]+}};
// PTX-DAG: st.shared.b16 [__dynamic_shmem__0+1024], %rs{{[0-9]+}};

!small = memref<32xf32, #gpu.address_space<workgroup>>
!tile = memref<64x64xbf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%x: f32, %y: bf16) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !small
    %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !tile
    %c0 = arith.constant 0 : index
    memref.store %x, %a[%c0] : !small
    memref.store %y, %b[%c0, %c0] : !tile
    gpu.return
  }
}
}
