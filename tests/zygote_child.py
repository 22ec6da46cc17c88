"""What tests/test_zygote.py runs in the fork server's children: `report` prints what the
child sees as one JSON line; `exit N` exits with N; `sleep` says so and waits for a
signal; `atexit` registers a handler that writes to stderr, then returns."""

from __future__ import annotations

import atexit
import json
import os
import random
import sys
import time


def main(argv: list[str]) -> None:
    if argv[0] == "report":
        print(json.dumps({"argv": argv, "name": __name__, "cwd": os.getcwd(),
                          "env": {k: os.environ.get(k) for k in ("ZYGOTE_PASSED", "HOME")},
                          "pid": os.getpid(), "sid": os.getsid(0),
                          "preloaded": "colorsys" in sys.modules,
                          "stdin": sys.stdin.read(), "random": random.random()}))
    elif argv[0] == "exit":
        raise SystemExit(int(argv[1]))
    elif argv[0] == "sleep":
        print("sleeping", flush=True)
        time.sleep(60)
    elif argv[0] == "atexit":
        atexit.register(lambda: print("bye", file=sys.stderr, flush=True))
        print("hello", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
