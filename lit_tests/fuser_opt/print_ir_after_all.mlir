// BUG: --mlir-print-ir-after-all aborts the process (exit 134, "LLVM ERROR: IR printing can't be
// setup on a pass-manager without disabling multi-threading first.") for any input and any
// passes: fuser_mlir/backend/pipeline.py PassPipeline.build calls pm.enable_ir_printing without first
// turning off the context's multi-threading.  Expected: exit 0, an `// -----// IR Dump After`
// block on stderr after every pass -- the implicit fuser-verify-dialects, the project pass and
// the upstream ones -- and the final IR on stdout.
// RUN: fuser-opt %s -p fuser-lower-nvasync -p canonicalize --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s
// RUN: fuser-opt %s --pass-pipeline='builtin.module(cse,fuser-lower-nvasync)' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=PIPE

// CHECK: // -----// IR Dump After fuser-verify-dialects (fuser-verify-dialects)
// CHECK: "nvasync.named_barrier"
// CHECK: // -----// IR Dump After fuser-lower-nvasync (fuser-lower-nvasync)
// CHECK-NOT: nvasync.
// CHECK: nvvm.barrier id
// CHECK: // -----// IR Dump After Canonicalizer (canonicalize)
// CHECK: nvvm.barrier id
// CHECK-NOT: IR Dump After

// PIPE: // -----// IR Dump After fuser-verify-dialects (fuser-verify-dialects)
// PIPE: // -----// IR Dump After CSE (cse)
// PIPE: "nvasync.named_barrier"
// PIPE: // -----// IR Dump After fuser-lower-nvasync (fuser-lower-nvasync)
// PIPE: nvvm.barrier id
// PIPE-NOT: IR Dump After

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()
    gpu.return
  }
}
}
