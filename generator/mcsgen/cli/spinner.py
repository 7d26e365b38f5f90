"""A progress line on stderr for the verbs' longer steps (a terminal only)."""

import sys
import threading
import time


class Spinner:
    """A progress line on stderr for work that lasts longer than a second (TTY only)."""

    def __init__(self, label):
        self.label = label
        self.done = threading.Event()
        self.thread = None
        self.shown = False

    def __enter__(self):
        if sys.stderr.isatty():
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()
        return self

    def _run(self):
        start = time.monotonic()
        frames = "|/-\\"
        i = 0
        while not self.done.wait(0.2):
            elapsed = time.monotonic() - start
            if elapsed >= 1.0:
                sys.stderr.write(f"\r  {frames[i % 4]} {self.label} ({elapsed:.0f} s)")
                sys.stderr.flush()
                self.shown = True
                i += 1

    def __exit__(self, *exc):
        self.done.set()
        if self.thread:
            self.thread.join()
        if self.shown:
            sys.stderr.write("\r" + " " * (len(self.label) + 20) + "\r")
            sys.stderr.flush()
        return False
