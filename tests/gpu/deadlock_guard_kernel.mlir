// A test-only kernel for tests/gpu/test_deadlock_guard.py: the elected thread announces 4112
// bytes with arrive.expect_tx but its TMA load of a 32 x 64 bf16 box delivers 4096, so the
// mbarrier phase never completes and every thread's wait would hang (CUTLASS#1748).  Built with
// the deadlock guard, each wait gives up after 1000 ms, prints its diagnostic and traps.
// The GPU machine has no MLIR: the PTX is committed next to this file.  Regenerate it with
//   fuser-opt tests/gpu/deadlock_guard_kernel.mlir --deadlock-guard-ms=1000 --emit=ptx -o tests/gpu/deadlock_guard_kernel.ptx
// (tests/test_deadlock_guard_build.py checks that it is up to date and that ptxas assembles it).
// Launch: grid 1, block 128, 5120 bytes of dynamic smem, one parameter: the tensor map of a
// 32 x 64 bf16 row-major tensor with a 32 x 64 box.

!bars = memref<1xi64, #gpu.address_space<workgroup>>
!box = memref<32x64xbf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @wrong_expect_tx(%desc: !llvm.ptr) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %buf = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !box
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 1 : i32} : (!bars, index) -> ()
      "nvasync.fence_mbarrier_init"() : () -> ()
    }
    "nvasync.sync_threads"() : () -> ()
    scf.if %e {
      "nvasync.mbarrier_arrive_expect_tx"(%bars, %c0) {bytes = 4112 : i32} : (!bars, index) -> ()
      "nvasync.tma_load"(%desc, %buf, %bars, %c0, %zero, %zero) : (!llvm.ptr, !box, !bars, index, i32, i32) -> ()
    }
    "nvasync.mbarrier_try_wait_parity"(%bars, %c0, %zero) : (!bars, index, i32) -> ()
    gpu.return
  }
}
}
