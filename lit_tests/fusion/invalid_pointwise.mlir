// Value checks of the pointwise op set (dialects/fusion.py `KINDS`): each kind takes its element
// types, predicates give i1, value operands share the op's type and shape (an f32 operand may
// feed an f16/bf16 op), and scalar parameters are named, counted and typed (f64; i64 that fits for
// integer ops).  Well-formed uses are accepted alongside.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics

func.func @float_only_on_int(%x: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @below {{'fusion.unary' op 'x' has element type i32; supported: f32, f16, bf16}}
  %r = "fusion.unary"(%x) {kind = "isnan"} : (tensor<4xi32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----
func.func @predicate_result(%x: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @below {{'fusion.unary' op 'result' has element type f16; supported: i1}}
  %r = "fusion.unary"(%x) {kind = "isinf"} : (tensor<4xf16>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----
func.func @comparison_result(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @below {{'fusion.binary' op 'result' has element type i64; supported: i1}}
  %r = "fusion.binary"(%x, %x) {kind = "lt"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----
func.func @comparison_operands_differ(%x: tensor<4xi32>, %y: tensor<4xi64>) -> tensor<4xi1> {
  // expected-error @below {{'fusion.binary' op 'rhs' has element type i64 in an op of type i32}}
  %r = "fusion.binary"(%x, %y) {kind = "eq"} : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----
func.func @logical_on_float(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @below {{'fusion.unary' op 'x' has element type f32; supported: i1}}
  %r = "fusion.unary"(%x) {kind = "logical_not"} : (tensor<4xf32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----
func.func @logical_and_on_int(%x: tensor<4xi32>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @below {{'fusion.binary' op 'lhs' has element type i32; supported: i1}}
  %r = "fusion.binary"(%x, %b) {kind = "logical_and"} : (tensor<4xi32>, tensor<4xi1>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----
// Integer division and integer powers are not ops of the dialect (the API divides in f32).
func.func @int_div(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{'lhs' has element type i32; supported: f32, f16, bf16}}
  // expected-error @below {{'rhs' has element type i32; supported: f32, f16, bf16}}
  %r = "fusion.binary"(%x, %x) {kind = "div"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----
func.func @arithmetic_on_bool(%b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @below {{'x' has element type i1; supported: f32, f16, bf16, i32, i64}}
  %r = "fusion.unary"(%b) {kind = "neg"} : (tensor<4xi1>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----
func.func @result_type_differs(%x: tensor<4xi32>) -> tensor<4xi64> {
  // expected-error @below {{'lhs' has element type i32 in an op of type i64}}
  // expected-error @below {{'rhs' has element type i32 in an op of type i64}}
  %r = "fusion.binary"(%x, %x) {kind = "add"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----
func.func @shape_differs(%x: tensor<4xf32>, %y: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.binary' op 'rhs' has shape tensor<8xf32> but the result is tensor<4xf32>}}
  %r = "fusion.binary"(%x, %y) {kind = "mul"} : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
// A narrower float never feeds a wider op unconverted (that needs a fusion.cast).
func.func @bf16_feeds_f32(%x: tensor<4xbf16>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'lhs' has element type bf16 in an op of type f32}}
  %r = "fusion.binary"(%x, %y) {kind = "sub"} : (tensor<4xbf16>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @where_condition(%c: tensor<4xi32>, %x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @below {{'first' has element type i32; supported: i1}}
  %r = "fusion.ternary"(%c, %x, %x) {kind = "where"} : (tensor<4xi32>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// --- scalar parameters ---------------------------------------------------------------------------
// -----
func.func @clamp_without_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.unary' op 'clamp' needs at least one of the attributes min, max}}
  %r = "fusion.unary"(%x) {kind = "clamp"} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @clamp_unknown_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.unary' op unknown attribute 'maximum' ('clamp' takes min, max)}}
  %r = "fusion.unary"(%x) {kind = "clamp", min = 0.0 : f64, maximum = 1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @parameter_on_plain_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fusion.unary' op unknown attribute 'min'}}
  %r = "fusion.unary"(%x) {kind = "exp", min = 0.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @float_clamp_int_bound(%x: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @below {{'fusion.unary' op 'min' must be an f64 attribute (the op is f16), got 0 : i64}}
  %r = "fusion.unary"(%x) {kind = "clamp", min = 0 : i64} : (tensor<4xf16>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----
func.func @int_clamp_float_bound(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{'fusion.unary' op 'max' must be an i64 attribute (the op is i32), got 1.500000e+00 : f64}}
  %r = "fusion.unary"(%x) {kind = "clamp", max = 1.5 : f64} : (tensor<4xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----
func.func @int_clamp_out_of_range(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{'fusion.unary' op 'max' = 4294967296 does not fit i32}}
  %r = "fusion.unary"(%x) {kind = "clamp", max = 4294967296 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----
func.func @nan_to_num_missing(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @below {{'fusion.unary' op 'nan_to_num' needs the attributes nan, posinf, neginf}}
  %r = "fusion.unary"(%x) {kind = "nan_to_num", nan = 0.0 : f64} : (tensor<4xbf16>) -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----
// Well-formed: an f32 constant feeding a bf16 op, comparisons of bf16 with f32 and of booleans,
// integer where/clamp, casts between every category, discardable attributes left alone.
func.func @accepted(%x: tensor<4xbf16>, %b: tensor<4xi1>, %l: tensor<4xi64>)
    -> (tensor<4xbf16>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xf32>, tensor<4xi1>, tensor<4xbf16>) {
  %k = arith.constant dense<2.5> : tensor<f32>
  %kb = "fusion.broadcast"(%k) {dims = array<i64>} : (tensor<f32>) -> tensor<4xf32>
  %m = "fusion.binary"(%kb, %x) {kind = "mul"} : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xbf16>
  %lt = "fusion.binary"(%x, %kb) {kind = "lt"} : (tensor<4xbf16>, tensor<4xf32>) -> tensor<4xi1>
  %eq = "fusion.binary"(%b, %lt) {kind = "eq", fuser.note = "kept"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %w = "fusion.ternary"(%eq, %l, %l) {kind = "where"} : (tensor<4xi1>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %c = "fusion.unary"(%w) {kind = "clamp", min = -9223372036854775808 : i64} : (tensor<4xi64>) -> tensor<4xi64>
  %f = "fusion.cast"(%c) : (tensor<4xi64>) -> tensor<4xf32>
  %nz = "fusion.cast"(%f) : (tensor<4xf32>) -> tensor<4xi1>
  %h = "fusion.cast"(%b) : (tensor<4xi1>) -> tensor<4xbf16>
  return %m, %lt, %eq, %c, %f, %nz, %h : tensor<4xbf16>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xf32>, tensor<4xi1>, tensor<4xbf16>
}
