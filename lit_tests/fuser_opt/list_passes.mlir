// --list-passes lists the project's passes (usable with -p and in --pass-pipeline), each with the
// one-line summary from its module docstring, and exits 0 without reading any input.
// RUN: fuser-opt --list-passes | FileCheck %s
// RUN: fuser-opt --list-passes %s | FileCheck %s

// CHECK: Project passes (usable with -p and inside --pass-pipeline):
// CHECK-NEXT: fuser-verify-dialects {{ *}}the checks of the fusion and nvasync ops that IRDL cannot state.
// CHECK-NEXT: fuser-schedule {{ *}}turn each fusion func into kernel IR, by the scheduler that takes it.
// CHECK-NEXT: fuser-tma-reduce-store {{ *}}rewrite split-K marks into TMA store/reduce-stores and semaphore protocols.
// CHECK-NEXT: fuser-pipeline-mbarriers {{ *}}derive the mbarrier pipeline of every loop marked `nvasync.pipeline`.
// CHECK-NEXT: fuser-grid-dependency {{ *}}let each kernel start while the kernel before it in its stream finishes.
// CHECK-NEXT: fuser-insert-syncs {{ *}}derive the barriers and bulk-group waits
// CHECK-NEXT: fuser-insert-proxy-fences {{ *}}fence.proxy.async.shared::cta where generic smem writes feed TMA/wgmma.
// CHECK-NEXT: fuser-flush-wgmma {{ *}}the wgmma group protocol
// CHECK-NEXT: fuser-verify-syncs {{ *}}an independent check that every shared-memory hazard is synchronized.
// CHECK-NEXT: fuser-verify-pipelines {{ *}}an independent check of every kernel's mbarrier protocol, by execution.
// CHECK-NEXT: fuser-unroll-loops {{ *}}fully unroll every `scf.for` marked `fuser.unroll`.
// CHECK-NEXT: fuser-lower-nvasync {{ *}}rewrite every nvasync op into NVVM
// CHECK-NEXT: fuser-kernel-abi {{ *}}give lowered kernels the ABI the runtime launches
// CHECK-NEXT: Any upstream MLIR pass or pipeline (e.g. canonicalize, cse, gpu.module(convert-gpu-to-nvvm)) may be mixed in.
// CHECK-NOT: module
