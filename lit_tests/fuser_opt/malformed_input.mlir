// Whatever the input, a problem in it is reported as `FILE:LINE:COL: error: message` (FILE is
// `<stdin>` for stdin) with exit status 1 -- never a traceback or an abort (`not` without
// --crash fails on a crash).  Each RUN feeds one bad input.
// RUN: printf '\x00\x01 junk' | not fuser-opt 2>&1 | FileCheck %s --check-prefix=JUNK --implicit-check-not=Traceback
// RUN: printf '\x00\xff junk' | not fuser-opt 2>&1 | FileCheck %s --check-prefix=UTF8 --implicit-check-not=Traceback
// RUN: not fuser-opt %s --split-input-file 2>&1 | FileCheck %s --implicit-check-not=Traceback
// RUN: not fuser-opt %S/no-such-file.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE

// JUNK: <stdin>:1:2: error: unexpected character
// UTF8: <stdin>:1:2: error: invalid UTF-8 byte 0xff in this input

// NOFILE: no-such-file.mlir: error: cannot read input: No such file or directory

// --- an unknown op of a registered dialect
func.func @f() {
  // CHECK: malformed_input.mlir:[[@LINE+1]]:8: error: custom op 'arith.constnt' is unknown
  %x = arith.constnt 1 : i32
  return
}
// -----
// --- an op of an unknown dialect (MLIR reports it after the op name)
func.func @f() {
  // CHECK: malformed_input.mlir:[[@LINE+1]]:12: error: operation being parsed with an unregistered dialect
  "foo.bar"() : () -> ()
  return
}
// -----
// --- an unknown op of our IRDL dialect
func.func @f() {
  // CHECK: malformed_input.mlir:[[@LINE+1]]:3: error: unregistered operation 'nvasync.tma_copy' found in dialect ('nvasync') that does not allow unknown operations
  "nvasync.tma_copy"() : () -> ()
  return
}
// -----
// --- a bad attribute: syntax
func.func @f() {
  // CHECK: malformed_input.mlir:[[@LINE+1]]:51: error: expected attribute value
  "nvasync.bulk_wait"() {pending = 0 : i32, read = } : () -> ()
  return
}
// -----
// --- a bad attribute: an attribute of an unknown dialect
func.func @f() {
  // CHECK: malformed_input.mlir:[[@LINE+1]]:52: error: #"foo"<"bar"> : 'none' attribute created with unregistered dialect
  "nvasync.bulk_wait"() {pending = 0 : i32, read = #foo<bar>} : () -> ()
  return
}
// -----
// --- a bad type
func.func @f(%x: memref<4xf33>) {
  // CHECK: malformed_input.mlir:[[@LINE-1]]:27: error: expected non-function type
  return
}
// -----
// --- a missing '}': the parser reaches the end of the chunk (the end of the next line)
func.func @f() {
  return
// CHECK: malformed_input.mlir:[[@LINE]]:{{[0-9]+}}: error: expected operation name in quotes
// -----
// --- a use of an undefined value
func.func @f() {
  // CHECK: malformed_input.mlir:[[@LINE+1]]:10: error: use of undeclared SSA value name
  return %nope : i32
}
