// fuser-schedule reports, at the fusion func, a fusion no scheduler takes and a malformed
// schedule attribute.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics -p fuser-schedule

// A reduction of a middle dim: no scheduler takes it yet, and each one says why.
// expected-error @below {{no scheduler can compile this fusion (pointwise_strided: ops reduce are not pointwise; matmul: no matmul in the fusion; outer_reduction: every reduction must reduce the same leading dims of one shape, got [2, 4, 8] over [1]; row_reduction: every reduction must reduce the last axis of one shape, got [2, 4, 8] over [1]; pointwise: ops reduce are not pointwise)}}
func.func @middle_sums(%x: tensor<2x4x8xf32>) -> tensor<2x8xf32> attributes {fusion.fusion} {
  %r = "fusion.reduce"(%x) {kind = "sum", axes = array<i64: 1>, keepdim = false} : (tensor<2x4x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// expected-error @below {{no scheduler named 'tiled'}}
func.func @unknown_scheduler(%x: tensor<64x64xf32>) -> tensor<64x64xf32>
    attributes {fusion.fusion, fusion.schedule = {scheduler = "tiled"}} {
  %e = "fusion.unary"(%x) {kind = "exp"} : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %e : tensor<64x64xf32>
}

// -----

// A decision the schedule leaves out is the heuristic's; one of the wrong type is an error.
// expected-error @below {{pointwise schedule needs integer fields stages}}
func.func @bad_field(%x: tensor<64x64xf32>) -> tensor<64x64xf32>
    attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise", rank = 2, box_rows = 8, box_cols = 64, boxes = 1, stages = "two"}} {
  %e = "fusion.unary"(%x) {kind = "exp"} : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %e : tensor<64x64xf32>
}

// -----

// expected-error @below {{outside TMA's limits}}
func.func @box_too_wide(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32>
    attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise", rank = 2, box_rows = 8, box_cols = 512, boxes = 1, stages = 2}} {
  %e = "fusion.unary"(%x) {kind = "exp"} : (tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %e : tensor<64x1024xf32>
}

// -----

// expected-error @below {{fuser-schedule: a fusion.scalar argument is rank 0, got tensor<4xf32>}}
func.func @scalar_of_rank_one(%x: tensor<8x4xf32>, %s: tensor<4xf32> {fusion.scalar}) -> tensor<8x4xf32> attributes {fusion.fusion} {
  %b = "fusion.broadcast"(%s) {dims = array<i64: 1>} : (tensor<4xf32>) -> tensor<8x4xf32>
  %y = "fusion.binary"(%x, %b) {kind = "mul"} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
