module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %n: i32) kernel attributes {gpu.known_block_size = array<i32: 384, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2xi64, #gpu.address_space<workgroup>>
    %buf = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64x64xbf16, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %e = "nvasync.elect_one"() : () -> i1
    scf.if %e {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 1 : i32} : (memref<2xi64, #gpu.address_space<workgroup>>, index) -> ()
      "nvasync.fence_mbarrier_init"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %e {
      "nvasync.mbarrier_arrive_expect_tx"(%bars, %c0) {bytes = 8192 : i32} : (memref<2xi64, #gpu.address_space<workgroup>>, index) -> ()
      "nvasync.tma_load"(%desc, %buf, %bars, %c0, %n, %i0) : (!llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>, index, i32, i32) -> ()
    }
    "nvasync.mbarrier_try_wait_parity"(%bars, %c0, %i0) : (memref<2xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
    %v = memref.load %buf[%c0, %c0] : memref<64x64xbf16, #gpu.address_space<workgroup>>
    "nvasync.fence_proxy_async"() {space = "shared::cta"} : () -> ()
    "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()
    scf.if %e {
      "nvasync.tma_store"(%desc, %buf, %n, %i0) : (!llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, i32, i32) -> ()
      "nvasync.tma_reduce"(%desc, %buf, %n, %i0) {kind = "add"} : (!llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, i32, i32) -> ()
      "nvasync.bulk_commit"() : () -> ()
      "nvasync.bulk_wait"() {pending = 0 : i32, read = true} : () -> ()
    }
    "nvasync.warp_role"() ({
      "nvasync.setmaxnreg"() {regs = 40 : i32, action = "dec"} : () -> ()
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 4 : i32} : () -> ()
    "nvasync.warp_role"() ({
      "nvasync.setmaxnreg"() {regs = 232 : i32, action = "inc"} : () -> ()
      %a = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
      %b = "nvasync.smem_buffer"() {offset = 9216 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
      %z = arith.constant dense<0.0> : vector<32xf32>
      "nvasync.wgmma_fence"() : () -> ()
      %r = "nvasync.wgmma"(%a, %b, %z) {swizzle = 32 : i32, accumulate = false} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<32xf32>
      "nvasync.wgmma_commit"() : () -> ()
      "nvasync.wgmma_wait"() {pending = 0 : i32} : () -> ()
      %x = vector.extract %r[0] : f32 from vector<32xf32>
      %xb = arith.truncf %x : f32 to bf16
      memref.store %xb, %buf[%c0, %c0] : memref<64x64xbf16, #gpu.address_space<workgroup>>
      gpu.yield
    }) {first_warp = 4 : i32, num_warps = 8 : i32} : () -> ()
    "nvasync.mbarrier_arrive"(%bars, %c0) : (memref<2xi64, #gpu.address_space<workgroup>>, index) -> ()
    "nvasync.mbarrier_inval"(%bars, %c0) : (memref<2xi64, #gpu.address_space<workgroup>>, index) -> ()
    gpu.return
  }
}
}
