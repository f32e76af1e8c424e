// Every value check of the fusion dialect (dialects/fusion.py `_CHECKS`, run by
// fuser-verify-dialects right after parsing) is reported at the offending op with its message.
// Fusion ops need no kernel: they sit in a plain func.func.  (The "'x' must be a ranked tensor"
// check cannot fire: IRDL already rejects unranked tensors, see invalid_irdl.mlir.)
// RUN: fuser-opt %s --split-input-file --verify-diagnostics

// --- unary / binary ------------------------------------------------------------------------------
func.func @unary_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.unary' op kind must be one of neg, abs, relu, sign, floor, ceil, round, exp, log, sqrt, rsqrt, tanh, sigmoid, gelu, silu, erf, reciprocal, sin, cos, log1p, expm1, isnan, isinf, logical_not, clamp, nan_to_num, got 'tan'}}
  %r = "fusion.unary"(%x) {kind = "tan"} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @unary_dtype(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{'fusion.unary' op 'x' has element type i32; supported: f32, f16, bf16}}
  %r = "fusion.unary"(%x) {kind = "exp"} : (tensor<4xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----
// Both the kind and the dtype are checked; each failure is its own error (an unknown kind is
// checked against every element type the dialect has).
func.func @unary_kind_and_dtype(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @below {{kind must be one of}}
  // expected-error @below {{'x' has element type f64; supported: f32, f16, bf16, i32, i64, i1}}
  %r = "fusion.unary"(%x) {kind = "tan"} : (tensor<4xf64>) -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----
func.func @binary_kind(%x: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @below {{'fusion.binary' op kind must be one of add, sub, mul, maximum, minimum, div, pow, eq, ne, lt, le, gt, ge, logical_and, logical_or, got 'atan2'}}
  %r = "fusion.binary"(%x, %x) {kind = "atan2"} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----
func.func @binary_dtype(%x: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @below {{'fusion.binary' op 'lhs' has element type i8; supported: f32, f16, bf16, i32, i64}}
  // expected-error @below {{'fusion.binary' op 'rhs' has element type i8; supported: f32, f16, bf16, i32, i64}}
  %r = "fusion.binary"(%x, %x) {kind = "add"} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----
// Value operands share the op's type (only an f32 operand may feed an f16 or bf16 op).
func.func @binary_types_differ(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.binary' op 'rhs' has element type f16 in an op of type f32}}
  %r = "fusion.binary"(%x, %y) {kind = "add"} : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// --- ternary -------------------------------------------------------------------------------------
// -----
func.func @ternary_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.ternary' op kind must be one of where, fma, got 'select'}}
  %r = "fusion.ternary"(%x, %x, %x) {kind = "select"} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @where_condition_not_i1(%c: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.ternary' op 'first' has element type f32; supported: i1}}
  %r = "fusion.ternary"(%c, %x, %x) {kind = "where"} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @fma_first_i1(%c: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'first' has element type i1; supported: f32, f16, bf16}}
  %r = "fusion.ternary"(%c, %x, %x) {kind = "fma"} : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @ternary_x_dtype(%c: tensor<4xi1>, %x: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @below {{'x' has element type i8; supported: f32, f16, bf16, i32, i64, i1}}
  // expected-error @below {{'y' has element type i8; supported: f32, f16, bf16, i32, i64, i1}}
  %r = "fusion.ternary"(%c, %x, %x) {kind = "where"} : (tensor<4xi1>, tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----
func.func @fma_types_differ(%a: tensor<4xf16>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.ternary' op 'first' has element type f16 in an op of type f32 (value operands have the op's type; an f32 operand may also feed an f16 or bf16 op)}}
  %r = "fusion.ternary"(%a, %x, %x) {kind = "fma"} : (tensor<4xf16>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @where_shape(%c: tensor<8xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.ternary' op 'first' has shape tensor<8xi1> but x has tensor<4xf32>}}
  %r = "fusion.ternary"(%c, %x, %x) {kind = "where"} : (tensor<8xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @where_rank(%c: tensor<4x1xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'first' has shape tensor<4x1xi1> but x has tensor<4xf32>}}
  %r = "fusion.ternary"(%c, %x, %x) {kind = "where"} : (tensor<4x1xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
// A dynamic dimension is compatible with any size.
func.func @where_dynamic_ok(%c: tensor<?xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "fusion.ternary"(%c, %x, %x) {kind = "where"} : (tensor<?xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// --- cast ----------------------------------------------------------------------------------------
// -----
func.func @cast_shape(%x: tensor<4xf32>) -> tensor<8xbf16> {
  // expected-error @below {{'fusion.cast' op cast keeps the shape: tensor<4xf32> -> tensor<8xbf16>}}
  %r = "fusion.cast"(%x) : (tensor<4xf32>) -> tensor<8xbf16>
  return %r : tensor<8xbf16>
}

// -----
func.func @cast_result_dtype(%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @below {{'fusion.cast' op 'result' has element type i8; supported: f32, f16, bf16, i32, i64, i1}}
  %r = "fusion.cast"(%x) : (tensor<4xf32>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----
func.func @cast_input_dtype(%x: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @below {{'x' has element type f64; supported: f32, f16, bf16, i32, i64, i1}}
  %r = "fusion.cast"(%x) : (tensor<4xf64>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// --- broadcast -----------------------------------------------------------------------------------
// -----
func.func @broadcast_dtype(%x: tensor<4xi8>) -> tensor<2x4xi8> {
  // expected-error @below {{'fusion.broadcast' op 'x' has element type i8; supported: f32, f16, bf16, i32, i64, i1}}
  %r = "fusion.broadcast"(%x) {dims = array<i64: 1>} : (tensor<4xi8>) -> tensor<2x4xi8>
  return %r : tensor<2x4xi8>
}

// -----
func.func @broadcast_element_type(%x: tensor<4xf32>) -> tensor<2x4xf16> {
  // expected-error @below {{'fusion.broadcast' op broadcast keeps the element type: tensor<4xf32> -> tensor<2x4xf16>}}
  %r = "fusion.broadcast"(%x) {dims = array<i64: 1>} : (tensor<4xf32>) -> tensor<2x4xf16>
  return %r : tensor<2x4xf16>
}

// -----
func.func @broadcast_dims_count(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'fusion.broadcast' op dims has 2 entries for an input of rank 1}}
  %r = "fusion.broadcast"(%x) {dims = array<i64: 0, 1>} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----
func.func @broadcast_dims_not_increasing(%x: tensor<4x2xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'fusion.broadcast' op dims [1, 0] must increase strictly within the result rank 2}}
  %r = "fusion.broadcast"(%x) {dims = array<i64: 1, 0>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----
func.func @broadcast_dims_out_of_range(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{dims [2] must increase strictly within the result rank 2}}
  %r = "fusion.broadcast"(%x) {dims = array<i64: 2>} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----
func.func @broadcast_size(%x: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'fusion.broadcast' op input dim 0 (size 3) cannot broadcast to result dim 1 (size 4)}}
  %r = "fusion.broadcast"(%x) {dims = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----
// Size-1 input dims broadcast to any size; new result dims need no input dim.
func.func @broadcast_ok(%x: tensor<1x4xf32>) -> tensor<8x3x4xf32> {
  %r = "fusion.broadcast"(%x) {dims = array<i64: 1, 2>} : (tensor<1x4xf32>) -> tensor<8x3x4xf32>
  return %r : tensor<8x3x4xf32>
}

// --- reduce --------------------------------------------------------------------------------------
// -----
func.func @reduce_kind(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.reduce' op kind must be one of sum, max, min, mean, got 'var'}}
  %r = "fusion.reduce"(%x) {kind = "var", axes = array<i64: 1>, keepdim = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @reduce_dtype(%x: tensor<4x8xi32>) -> tensor<4xi32> {
  // expected-error @below {{'fusion.reduce' op 'x' has element type i32; supported: f32, f16, bf16}}
  %r = "fusion.reduce"(%x) {kind = "mean", axes = array<i64: 1>, keepdim = false} : (tensor<4x8xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----
func.func @var_dtype(%x: tensor<4x8xi64>) -> tensor<4xi64> {
  // expected-error @below {{'fusion.var' op 'x' has element type i64; supported: f32, f16, bf16}}
  %r = "fusion.var"(%x) {axes = array<i64: 1>, keepdim = false, correction = 1 : i64} : (tensor<4x8xi64>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----
func.func @var_correction(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.var' op correction must be >= 0, got -1}}
  %r = "fusion.var"(%x) {axes = array<i64: 1>, keepdim = false, correction = -1 : i64} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @var_shape(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @below {{'fusion.var' op reducing tensor<4x8xf32> over [1] (keepdim=False) cannot give tensor<4x1xf32>}}
  %r = "fusion.var"(%x) {axes = array<i64: 1>, keepdim = false, correction = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----
func.func @reduce_no_axes(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'fusion.reduce' op axes [] must be distinct and within the input rank 2}}
  %r = "fusion.reduce"(%x) {kind = "sum", axes = array<i64>, keepdim = false} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----
func.func @reduce_duplicate_axes(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @below {{axes [1, 1] must be distinct and within the input rank 2}}
  %r = "fusion.reduce"(%x) {kind = "max", axes = array<i64: 1, 1>, keepdim = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @reduce_axis_out_of_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @below {{axes [2] must be distinct and within the input rank 2}}
  %r = "fusion.reduce"(%x) {kind = "min", axes = array<i64: 2>, keepdim = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @reduce_result_shape(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'fusion.reduce' op reducing tensor<4x8xf32> over [1] (keepdim=False) cannot give tensor<8xf32>}}
  %r = "fusion.reduce"(%x) {kind = "sum", axes = array<i64: 1>, keepdim = false} : (tensor<4x8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----
func.func @reduce_keepdim_shape(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @below {{reducing tensor<4x8xf32> over [1] (keepdim=True) cannot give tensor<4xf32>}}
  %r = "fusion.reduce"(%x) {kind = "sum", axes = array<i64: 1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @reduce_element_type(%x: tensor<4x8xf32>) -> tensor<4xf16> {
  // expected-error @below {{'fusion.reduce' op a reduction keeps the element type: tensor<4x8xf32> -> tensor<4xf16>}}
  %r = "fusion.reduce"(%x) {kind = "sum", axes = array<i64: 1>, keepdim = false} : (tensor<4x8xf32>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----
func.func @reduce_ok(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<f32>) {
  %r = "fusion.reduce"(%x) {kind = "sum", axes = array<i64: 1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = "fusion.reduce"(%x) {kind = "max", axes = array<i64: 0, 1>, keepdim = false} : (tensor<4x8xf32>) -> tensor<f32>
  return %r, %s : tensor<4x1xf32>, tensor<f32>
}

// --- matmul --------------------------------------------------------------------------------------
// -----
func.func @matmul_dtype(%a: tensor<4x8xi8>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{'fusion.matmul' op 'a' has element type i8; supported: f32, f16, bf16}}
  %r = "fusion.matmul"(%a, %b) {transpose_b = false} : (tensor<4x8xi8>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----
func.func @matmul_b_dtype(%a: tensor<4x8xf32>, %b: tensor<8x2xi8>) -> tensor<4x2xf32> {
  // expected-error @below {{'b' has element type i8; supported: f32, f16, bf16}}
  %r = "fusion.matmul"(%a, %b) {transpose_b = false} : (tensor<4x8xf32>, tensor<8x2xi8>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----
func.func @matmul_element_types(%a: tensor<4x8xf16>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{'fusion.matmul' op matmul operands and result share one element type, got tensor<4x8xf16>, tensor<8x2xf32> -> tensor<4x2xf32>}}
  %r = "fusion.matmul"(%a, %b) {transpose_b = false} : (tensor<4x8xf16>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----
func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x2xf32>) -> tensor<2xf32> {
  // expected-error @below {{'fusion.matmul' op matmul takes a [.., M, K] and b [K, N], got tensor<8xf32> and tensor<8x2xf32>}}
  %r = "fusion.matmul"(%a, %b) {transpose_b = false} : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----
func.func @matmul_b_rank(%a: tensor<4x8xf32>, %b: tensor<2x8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{matmul takes a [.., M, K] and b [K, N], got tensor<4x8xf32> and tensor<2x8x2xf32>}}
  %r = "fusion.matmul"(%a, %b) {transpose_b = false} : (tensor<4x8xf32>, tensor<2x8x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----
func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<16x2xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{'fusion.matmul' op contraction sizes differ: K = 8 in a, 16 in b}}
  %r = "fusion.matmul"(%a, %b) {transpose_b = false} : (tensor<4x8xf32>, tensor<16x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----
func.func @matmul_transpose_b_contraction(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x8xbf16> {
  // expected-error @below {{'fusion.matmul' op contraction sizes differ: K = 8 in a, 2 in b [N, K]}}
  %r = "fusion.matmul"(%a, %b) {transpose_b = true} : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}

// -----
func.func @linear_ok(%x: tensor<4x8xbf16>, %w: tensor<2x8xbf16>) -> tensor<4x2xbf16> {
  %r = "fusion.matmul"(%x, %w) {transpose_b = true} : (tensor<4x8xbf16>, tensor<2x8xbf16>) -> tensor<4x2xbf16>
  return %r : tensor<4x2xbf16>
}

// -----
func.func @matmul_result_shape(%a: tensor<3x4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  // expected-error @below {{'fusion.matmul' op matmul of tensor<3x4x8xbf16> and tensor<8x2xbf16> cannot give tensor<4x2xbf16>}}
  %r = "fusion.matmul"(%a, %b) {transpose_b = false} : (tensor<3x4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
  return %r : tensor<4x2xbf16>
}

// -----
func.func @matmul_ok(%a: tensor<3x?x8xbf16>, %b: tensor<?x2xbf16>) -> tensor<3x4x2xbf16> {
  %r = "fusion.matmul"(%a, %b) {transpose_b = false} : (tensor<3x?x8xbf16>, tensor<?x2xbf16>) -> tensor<3x4x2xbf16>
  return %r : tensor<3x4x2xbf16>
}

// -----
// IRDL checks only that an i64s attribute is a dense array; its element type is checked here,
// before the value checks read it (they would otherwise fail inside the bindings).
func.func @broadcast_dims_i32(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'fusion.broadcast' op attribute 'dims' must be an array of i64 (array<i64: ...>)}}
  %r = "fusion.broadcast"(%x) {dims = array<i32: 1>} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----
func.func @reduce_axes_i128(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'fusion.reduce' op attribute 'axes' must be an array of i64 (array<i64: ...>)}}
  %r = "fusion.reduce"(%x) {kind = "sum", axes = array<i128: 0>, keepdim = false} : (tensor<4x8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
