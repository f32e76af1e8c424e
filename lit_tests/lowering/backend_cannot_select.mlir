// An intrinsic the NVPTX backend cannot select for sm_90a aborts LLVM ("Cannot select"); the
// backend runs in a child process, so fuser-opt reports a located error and exits 1 instead.
// RUN: not fuser-opt %s --emit=ptx 2>&1 | FileCheck %s
// CHECK: backend_cannot_select.mlir:[[@LINE+2]]:1: error: the NVPTX backend failed on this kernel module (LLVM ERROR: Cannot select
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %n: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %buf = memref.view %base[%c1024][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    %bars = memref.view %base[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2xi64, #gpu.address_space<workgroup>>
    %bi = memref.extract_aligned_pointer_as_index %bars : memref<2xi64, #gpu.address_space<workgroup>> -> index
    %bi64 = arith.index_cast %bi : index to i64
    %bp = llvm.inttoptr %bi64 : i64 to !llvm.ptr<3>
    %di = memref.extract_aligned_pointer_as_index %buf : memref<64x64xbf16, #gpu.address_space<workgroup>> -> index
    %di64 = arith.index_cast %di : index to i64
    %dp = llvm.inttoptr %di64 : i64 to !llvm.ptr<3>
    
    %c1 = arith.constant 1 : i32
    %cnt = arith.constant 8192 : i32
    %i0 = arith.constant 0 : i32
    %e = nvvm.elect.sync -> i1
    scf.if %e {
      nvvm.mbarrier.init %bp, %c1 : !llvm.ptr<3>, i32
      nvvm.fence.mbarrier.init
    }
    nvvm.barrier0
    scf.if %e {
      nvvm.mbarrier.arrive.expect_tx %bp, %cnt : !llvm.ptr<3>, i32
      nvvm.cp.async.bulk.tensor.shared.cluster.global %dp, %desc, %bp, box[%i0, %n] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
    }
    %tk = arith.constant 1000000 : i32
    nvvm.mbarrier.try_wait.parity %bp, %i0, %tk : !llvm.ptr<3>, i32, i32
    %v = memref.load %buf[%c0, %c0] : memref<64x64xbf16, #gpu.address_space<workgroup>>
    memref.store %v, %buf[%c1024, %c0] : memref<64x64xbf16, #gpu.address_space<workgroup>>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.barrier0
    scf.if %e {
      nvvm.cp.async.bulk.tensor.global.shared.cta %desc, %dp, box[%i0, %n] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}
}
