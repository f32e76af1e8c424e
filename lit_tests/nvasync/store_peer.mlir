// nvasync.cluster_rank, store_peer and cluster_sync (distributed shared memory in a cluster of
// CTAs, the kernel's nvvm.cluster_dim) lower to %cluster_ctarank, mapa.shared::cluster +
// st.shared::cluster (the same buffer's element in the peer CTA) and barrier.cluster.arrive +
// wait, both .aligned (every thread of every CTA reaches them).  Run on the H100 this session:
// each CTA of a cluster of 4 read back the 4 ranks its peers stored (lit_tests don't launch).
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: nvvm.read.ptx.sreg.cluster.ctarank
// NVVM: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// NVVM-NEXT: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<7>
// NVVM: nvvm.cluster.arrive {aligned}
// NVVM-NEXT: nvvm.cluster.wait {aligned}

// PTX: .reqnctapercluster 4, 1, 1
// PTX: mov.u32 {{.*}}%cluster_ctarank;
// PTX: mapa.shared::cluster.u64
// PTX: st.shared::cluster.b32
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX: ld.shared.v4.b32

!slots = memref<4xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%out: memref<4xf32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 4, 1, 1>} {
    %slots = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !slots
    %rank = "nvasync.cluster_rank"() : () -> i32
    %f = arith.sitofp %rank : i32 to f32
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %peers = arith.cmpi ult, %tid, %c4 : index
    scf.if %peers {
      %peer = arith.index_cast %tid : index to i32
      %at = arith.index_cast %rank : i32 to index
      "nvasync.store_peer"(%f, %slots, %peer, %at) : (f32, !slots, i32, index) -> ()
    }
    "nvasync.cluster_sync"() : () -> ()
    %c0 = arith.constant 0 : index
    %v = vector.load %slots[%c0] : !slots, vector<4xf32>
    vector.store %v, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.return
  }
}
}
