// Without a schedule attribute fuser-schedule picks the strided scheduler for a pointwise fusion
// (global pointers, 256 threads).  Named without decisions, the TMA scheduler asks its heuristic,
// on the static shapes: rows of a 16-byte multiple give the [rows, cols] view (two i32 scalars),
// otherwise the flat view (one); a dynamic innermost dim is unknown at compile time and gets the
// flat view.  All four kernels land in one gpu.module, one PTX module.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

// CHECK-LABEL: gpu.func @rows(
// CHECK-SAME: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK: "nvasync.pipeline_load"({{.*}}) {role = "producer"} : (!llvm.ptr, memref<{{[0-9]+}}x256xf32
func.func @rows(%x: tensor<300x1000xf32>) -> tensor<300x1000xf32> attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise"}} {
  %e = "fusion.unary"(%x) {kind = "exp"} : (tensor<300x1000xf32>) -> tensor<300x1000xf32>
  return %e : tensor<300x1000xf32>
}

// CHECK-LABEL: gpu.func @flat(
// CHECK-SAME: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32) kernel
// CHECK: "nvasync.pipeline_load"({{.*}}) {role = "producer"} : (!llvm.ptr, memref<256xf16
func.func @flat(%x: tensor<7x33xf16>) -> tensor<7x33xf16> attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise"}} {
  %e = "fusion.unary"(%x) {kind = "neg"} : (tensor<7x33xf16>) -> tensor<7x33xf16>
  return %e : tensor<7x33xf16>
}

// CHECK-LABEL: gpu.func @dynamic_inner(
// CHECK-SAME: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32) kernel
func.func @dynamic_inner(%x: tensor<8x?xbf16>) -> tensor<8x?xbf16> attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise"}} {
  %e = "fusion.unary"(%x) {kind = "tanh"} : (tensor<8x?xbf16>) -> tensor<8x?xbf16>
  return %e : tensor<8x?xbf16>
}

// CHECK-LABEL: gpu.func @unnamed(
// CHECK-SAME: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>}
// CHECK-NOT: nvasync.pipeline_load
// CHECK: gpu.return
func.func @unnamed(%x: tensor<300x1000xf32>) -> tensor<300x1000xf32> attributes {fusion.fusion} {
  %e = "fusion.unary"(%x) {kind = "exp"} : (tensor<300x1000xf32>) -> tensor<300x1000xf32>
  return %e : tensor<300x1000xf32>
}
