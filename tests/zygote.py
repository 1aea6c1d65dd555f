"""A process that has imported the app once and forks a fresh server for each test.

A test server's start was mostly Python importing the app and compiling its templates
(3.5 s and 1.2 s of a 5 s start on an idle core, twice that with both cores busy), paid
again by each of the suite's few hundred servers. This process pays it once per test
process: ``tests.live.LiveServer`` asks it for a server, it forks, and the child sets the
test's environment and runs uvicorn as ``python -m uvicorn --factory app.main:create_app``
would. The app reads its settings when ``create_app`` runs, in the child, so each server
gets its own; a server that needs what is read at import (``REQUEST_SECONDS``), other
uvicorn options or a lower file limit is still started as its own process.

Protocol, over a Unix socket (``SOCK_SEQPACKET``) whose descriptor is the argument: a
message ``{"port": P, "env": {...}}`` carrying the asking test's standard error (its
descriptor, which pytest captures for that test) in, ``{"pid": N}`` out.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import traceback


def serve(port: int, env: dict[str, str], output: int) -> None:
    """In the forked child: become the test's server, its output going where that test's
    goes, then exit without running the zygote's own clean-up."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the server waits for its own workers
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.environ.clear()
    os.environ.update(env)
    import uvicorn

    code = 0
    try:
        uvicorn.run(
            "app.main:create_app",
            factory=True,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            # Event streams never end by themselves: do not wait long for them.
            timeout_graceful_shutdown=3,
        )
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def main() -> None:
    import app.main  # noqa: F401  (what every child would import)
    from app.web import warm_up

    warm_up()
    # Forking copies only the calling thread: nothing may be running beside it.
    assert threading.active_count() == 1, threading.enumerate()
    # Children are reaped as they end (the test process watches them by pid).
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    channel = socket.socket(fileno=int(sys.argv[1]))
    channel.sendall(b"ready")
    while True:
        message, fds, _flags, _address = socket.recv_fds(channel, 1 << 20, 1)
        if not message:
            return  # the test process has ended
        asked = json.loads(message)
        pid = os.fork()
        if pid == 0:
            channel.close()
            serve(int(asked["port"]), dict(asked["env"]), fds[0])
        for fd in fds:
            os.close(fd)
        channel.sendall(json.dumps({"pid": pid}).encode())


if __name__ == "__main__":
    main()
