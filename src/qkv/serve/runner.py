"""`qkv serve`: open the database, start the grading processes, serve until SIGTERM.

On SIGTERM uvicorn stops taking requests and the grading processes finish what they hold (or, past
the grace time, are ended and their jobs go back to the queue for the next start).
"""

from __future__ import annotations

import contextlib
import signal

import uvicorn

from qkv.serve import queue
from qkv.serve.app import create_app
from qkv.serve.pool import Pool
from qkv.serve.service import Service
from qkv.serve.settings import Settings


class _Server(uvicorn.Server):
    """uvicorn's server, but a SIGTERM ends `run` normally instead of being raised again after the
    shutdown: the grading processes are stopped after it, and the exit code is 0."""

    @contextlib.contextmanager
    def capture_signals(self):
        previous = {s: signal.signal(s, self.handle_exit) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def run(settings: Settings) -> int:
    service = Service.open(settings)
    reclaimed = queue.reclaim_dead(service.engine)
    if reclaimed:
        print(f"qkv serve: {reclaimed} hand-ins a stopped server was grading go back to the queue")
    pool = Pool(service, settings.jobs)
    pool.start()
    service.wake = pool.wake
    app = create_app(settings, service)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        proxy_headers=False,  # the app reads forwarded headers itself (app.create_app)
        log_level="warning",
        lifespan="off",
    )
    server = _Server(config)
    print(
        f"qkv serve: http://{settings.host}:{settings.port}/ (data in {settings.data})", flush=True
    )
    lti = getattr(app.state, "lti", None)
    if lti is not None:
        lti.start()  # sends scores to the LMS while the service runs
    try:
        server.run()
    finally:
        pool.stop()
        if lti is not None:
            lti.stop()
    return 0
