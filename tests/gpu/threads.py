"""Calls from several threads at once: the GPU tests of launches that threads share."""
import sys
import threading


def run_in_threads(work, args) -> list[str]:
    """work(a) for each a of `args`, each in a thread of its own, all at once, under a 1 us GIL
    switch interval (so thread switches inside a call are frequent).  Returns the repr of every
    exception raised in a thread: a thread's exception does not reach pytest by itself."""
    failures = []

    def guarded(a):
        try:
            work(a)
        except Exception as e:
            failures.append(repr(e))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=guarded, args=(a,)) for a in args]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    return failures
