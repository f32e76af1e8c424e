// nvasync.fence_proxy_async {space} lowers to nvvm.fence.proxy and then to fence.proxy.async with
// the state space of the space attribute: shared::cta -> fence.proxy.async.shared::cta,
// shared::cluster -> fence.proxy.async.shared::cluster, global -> fence.proxy.async.global,
// all -> fence.proxy.async (no state space).
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// NVVM-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cluster>}
// NVVM-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// NVVM-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async>}
// NVVM-NOT: nvasync.

// PTX: fence.proxy.async.shared::cta;
// PTX-NEXT: fence.proxy.async.shared::cluster;
// PTX-NEXT: fence.proxy.async.global;
// PTX-NEXT: fence.proxy.async;

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    "nvasync.fence_proxy_async"() {space = "shared::cta"} : () -> ()
    "nvasync.fence_proxy_async"() {space = "shared::cluster"} : () -> ()
    "nvasync.fence_proxy_async"() {space = "global"} : () -> ()
    "nvasync.fence_proxy_async"() {space = "all"} : () -> ()
    gpu.return
  }
}
}
