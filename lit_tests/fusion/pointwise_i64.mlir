// i64 tensors compute in 64-bit integer arithmetic and move through TMA as 8-byte elements.
// The kernel is scheduled and synchronized by the usual passes, then lowered from kernel IR:
// fuser-verify-pipelines (part of --emit=ptx on fusion IR) currently counts every i64 smem buffer
// as an mbarrier array, which makes an i64 data tile thousands of pipeline stages to explore.
// RUN: fuser-opt %s -p fuser-verify-dialects -p fuser-schedule -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -o %t.kernel.mlir
// RUN: fuser-opt %t.kernel.mlir --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

// CHECK-LABEL: .entry int64(
// CHECK-DAG: mul.lo.s64
// CHECK-DAG: max.s64
// CHECK-DAG: setp.lt.s64
// CHECK-DAG: cvt.rn.f32.s64
// CHECK-DAG: cvt.rzi.s64.f32
// CHECK-DAG: ld.shared.v2.b64
func.func @int64(%x: tensor<1024xi64>, %y: tensor<1024xi64>, %f: tensor<1024xf32>) -> (tensor<1024xi64>, tensor<1024xf32>)
    attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise", rank = 1, box_rows = 1, box_cols = 256, boxes = 1, stages = 2}} {
  %k = arith.constant dense<-5000000000> : tensor<i64>
  %kb = "fusion.broadcast"(%k) {dims = array<i64>} : (tensor<i64>) -> tensor<1024xi64>
  %sum = "fusion.binary"(%x, %kb) {kind = "add"} : (tensor<1024xi64>, tensor<1024xi64>) -> tensor<1024xi64>
  %abs = "fusion.unary"(%sum) {kind = "abs"} : (tensor<1024xi64>) -> tensor<1024xi64>
  %mul = "fusion.binary"(%abs, %y) {kind = "mul"} : (tensor<1024xi64>, tensor<1024xi64>) -> tensor<1024xi64>
  %sign = "fusion.unary"(%y) {kind = "sign"} : (tensor<1024xi64>) -> tensor<1024xi64>
  %max = "fusion.binary"(%mul, %sign) {kind = "maximum"} : (tensor<1024xi64>, tensor<1024xi64>) -> tensor<1024xi64>
  %cl = "fusion.unary"(%max) {kind = "clamp", min = -9000000000 : i64} : (tensor<1024xi64>) -> tensor<1024xi64>
  %lt = "fusion.binary"(%cl, %x) {kind = "lt"} : (tensor<1024xi64>, tensor<1024xi64>) -> tensor<1024xi1>
  %fx = "fusion.cast"(%f) : (tensor<1024xf32>) -> tensor<1024xi64>
  %r = "fusion.ternary"(%lt, %cl, %fx) {kind = "where"} : (tensor<1024xi1>, tensor<1024xi64>, tensor<1024xi64>) -> tensor<1024xi64>
  %g = "fusion.cast"(%r) : (tensor<1024xi64>) -> tensor<1024xf32>
  return %r, %g : tensor<1024xi64>, tensor<1024xf32>
}
