// --verify-diagnostics checks emitted diagnostics against `expected-error` comments instead of
// printing them, and exits 0 when every expectation is met.  The designators: @below (the next
// line that is not itself an expectation), @above (the previous such line), @+N / @-N (N lines
// after / before the comment), none (the comment's own line).  The text in {{...}} is a
// substring of the message.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics
// RUN: fuser-opt %s --split-input-file --verify-diagnostics -p canonicalize

func.func @below() {
  // expected-error @below {{pending must be in [0, 63], got 64}}
  "nvasync.bulk_wait"() {pending = 64 : i32, read = false} : () -> ()
  return
}

// -----
func.func @below_skips_expectations() {
  // expected-error @below {{barrier id must be in [1, 15], got 16}}
  // expected-error @below {{thread count must be a positive multiple of 32 up to 1024, got 7}}
  "nvasync.named_barrier"() {id = 16 : i32, threads = 7 : i32} : () -> ()
  return
}

// -----
func.func @above() {
  "nvasync.wgmma_wait"() {pending = 8 : i32} : () -> ()
  // expected-error @above {{pending must be in [0, 7], got 8}}
  return
}

// -----
func.func @above_skips_expectations() {
  "nvasync.setmaxnreg"() {regs = 7 : i32, action = "up"} : () -> ()
  // expected-error @above {{register count must be a multiple of 8 in [24, 256], got 7}}
  // expected-error @above {{action must be 'inc' or 'dec', got 'up'}}
  return
}

// -----
func.func @plus_n() {
  // expected-error @+3 {{space must be one of shared::cta, shared::cluster, global, all, got 'cta'}}

  // (two lines further down)
  "nvasync.fence_proxy_async"() {space = "cta"} : () -> ()
  return
}

// -----
func.func @minus_n() {
  "nvasync.fence_proxy_async"() {space = "gmem"} : () -> ()
  // (a line in between)
  // expected-error @-2 {{got 'gmem'}}
  return
}

// -----
func.func @same_line() {
  "nvasync.wgmma_wait"() {pending = 99 : i32} : () -> () // expected-error {{pending must be in [0, 7], got 99}}
  return
}

// -----
// A chunk without expectations and without diagnostics passes.
func.func @clean() {
  "nvasync.wgmma_wait"() {pending = 7 : i32} : () -> ()
  return
}

// -----
// Several errors in one chunk, on different ops.
func.func @several() {
  // expected-error @below {{got 64}}
  "nvasync.bulk_wait"() {pending = 64 : i32, read = true} : () -> ()
  %c0 = arith.constant 0 : index
  // expected-error @below {{got 8}}
  "nvasync.wgmma_wait"() {pending = 8 : i32} : () -> ()
  return
}
