// Deadlock guard (TargetOptions.deadlock_guard_ms; fuser-opt --deadlock-guard-ms=N;
// FUSER_MLIR_DEADLOCK_GUARD_MS): every mbarrier wait becomes a loop bounded by %globaltimer --
// try_wait, and after each failed try compare the time elapsed since the first with N ms -- and a
// thread that times out prints (vprintf) the kernel, the wait's location, the mbarrier (buffer
// offset, index), the parity, its warp role, block and thread, then traps.  The default build
// keeps the plain retry loop: no timer, no vprintf, no trap.  An explicit --deadlock-guard-ms=0
// overrides the environment; a malformed environment value is an error.
// RUN: fuser-opt %s --deadlock-guard-ms=1000 --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=GUARD < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin
// RUN: fuser-opt %s --deadlock-guard-ms=1000 --emit=llvm | FileCheck %s --check-prefix=MSG
// RUN: fuser-opt %s --emit=ptx -o %t.plain.ptx
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.ptx
// RUN: %ptxas %t.plain.ptx -o %t.plain.cubin
// RUN: env FUSER_MLIR_DEADLOCK_GUARD_MS=250 fuser-opt %s --emit=llvm | FileCheck %s --check-prefix=ENV
// RUN: env FUSER_MLIR_DEADLOCK_GUARD_MS=250 fuser-opt %s --deadlock-guard-ms=0 --emit=ptx | FileCheck %s --check-prefix=PLAIN
// RUN: env FUSER_MLIR_DEADLOCK_GUARD_MS=soon not fuser-opt %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=BADENV

// GUARD: .visible .entry guarded(
// GUARD: mov.u64 [[START:%rd[0-9]+]], %globaltimer;
// GUARD: [[RETRY:\$L__BB0_[0-9]+]]:
// GUARD: mbarrier.try_wait.parity.shared.b64 [[DONE:%p[0-9]+]], [__dynamic_shmem__0+72], %r{{[0-9]+}}, %r{{[0-9]+}};
// GUARD-NEXT: @[[DONE]] bra [[PASSED:\$L__BB0_[0-9]+]];
// GUARD-NEXT: mov.u64 [[NOW:%rd[0-9]+]], %globaltimer;
// GUARD-NEXT: sub.s64 [[ELAPSED:%rd[0-9]+]], [[NOW]], [[START]];
// GUARD-NEXT: setp.lt.u64 [[EARLY:%p[0-9]+]], [[ELAPSED]], 1000000001;
// GUARD-NEXT: @[[EARLY]] bra [[RETRY]];
// GUARD: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// GUARD: call.uni (retval0), vprintf, (param0, param1);
// GUARD: trap; exit;
// GUARD: [[PASSED]]:
// GUARD: call.uni (retval0), vprintf, (param0, param1);
// GUARD: trap; exit;

// MSG-DAG: llvm.mlir.global internal constant @printfFormat_{{[0-9]+}}("fuser_mlir deadlock guard: kernel guarded: mbarrier wait at [[#WAIT_LINE:]]:5 timed out after 1000 ms: mbarriers at smem byte offset 64, index %d, expected parity %d, warp role all, block (%d, %d, %d), thread (%d, %d, %d)\0A\00")
// MSG-DAG: llvm.mlir.global internal constant @printfFormat_{{[0-9]+}}("fuser_mlir deadlock guard: kernel guarded: mbarrier wait at [[#WAIT_LINE+2]]:7 timed out after 1000 ms: mbarriers at smem byte offset 64, index %d, expected parity %d, warp role warps [4, 8), block (%d, %d, %d), thread (%d, %d, %d)\0A\00")
// MSG: llvm.call @vprintf
// MSG: llvm.intr.trap

// PLAIN-NOT: globaltimer
// PLAIN-NOT: vprintf
// PLAIN-NOT: trap;
// PLAIN: mbarrier.try_wait.parity.shared.b64
// PLAIN-NOT: globaltimer
// PLAIN-NOT: vprintf
// PLAIN-NOT: trap;

// ENV: timed out after 250 ms
// ENV: llvm.mlir.constant(250000000 : i64)

// BADENV: error: FUSER_MLIR_DEADLOCK_GUARD_MS='soon': expected a number of milliseconds (0: off)

!bars = memref<2xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @guarded(%parity: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 64 : i64} : () -> !bars
    %c1 = arith.constant 1 : index
    "nvasync.mbarrier_try_wait_parity"(%bars, %c1, %parity) : (!bars, index, i32) -> ()
    "nvasync.warp_role"() ({
      "nvasync.mbarrier_try_wait_parity"(%bars, %c1, %parity) : (!bars, index, i32) -> ()
      gpu.yield
    }) {first_warp = 4 : i32, num_warps = 4 : i32} : () -> ()
    gpu.return
  }
}
}
