// BUG (a check and its op's documentation disagree): nvasync.named_barrier is documented as
// "Barrier `id` (1-15) over `threads` threads" (dialects/nvasync.py), but _check_named_barrier
// accepts id 0 ("barrier id must be in [0, 15]").  Barrier 0 is the CTA-wide barrier that
// nvasync.sync_threads (bar.sync 0) uses; a named barrier 0 over part of the CTA would share its
// hardware barrier.  Expected, per the op's documentation: id 0 is rejected like id 16.
// RUN: fuser-opt %s --verify-diagnostics

func.func @named_barrier_zero() {
  // expected-error @below {{barrier id must be in [1, 15], got 0}}
  "nvasync.named_barrier"() {id = 0 : i32, threads = 128 : i32} : () -> ()
  return
}
