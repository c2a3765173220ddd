"""LTI's part of a running service: the platforms' keys, the service client, and the sender.

The sender is one thread: it posts what is owed every second, and owes the counted grades that
changed at once when woken (a launch, a graded hand-in) and every few seconds without.
"""

from __future__ import annotations

import logging
import threading
import time

from qkv.serve.lti import grades, keys, scores
from qkv.serve.lti.services import Services
from qkv.serve.lti.verify import PlatformKeys
from qkv.serve.service import Service

log = logging.getLogger("qkv.serve.lti")
ROUND_S = 1.0
RECONCILE_S = 2.0


class Runtime:
    def __init__(self, service: Service, counted: grades.CountedGrades) -> None:
        self.service = service
        self.counted = counted
        self.platform_keys = PlatformKeys()
        self.services = Services(lambda: keys.keyring(service.settings.data).current)
        self._woken = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._round_lock = threading.Lock()

    def wake(self) -> None:
        self._woken.set()

    def round(
        self, *, force: bool = False, assignment: str | None = None, owe: bool = True
    ) -> scores.Round:
        """Owes what changed and sends what is owed.

        Args:
            force: send to platforms and scores in their backoff too.
            assignment: only this assignment's scores.
            owe: compare the counted grades first (else only send what is already owed).

        Returns:
            What was sent, what failed and what is still owed.
        """
        with self._round_lock:
            if owe:
                with self.service.sessions.begin() as db:
                    grades.reconcile(db, self.service.course, self.counted, assignment)
            return scores.send_owed(
                self.service.sessions,
                self.services,
                lineitem_of=grades.lineitem_of(self.services, self.service.course),
                force=force,
                assignment=assignment,
            )

    def _loop(self) -> None:
        owed_at, woken = 0.0, True
        while not self._stopping.is_set():
            owe = woken or time.monotonic() - owed_at > RECONCILE_S
            try:
                self.round(owe=owe)
            except Exception:  # the sender must outlive a bad round; the next one tries again
                log.exception("LTI: a round of sending scores failed")
            if owe:
                owed_at = time.monotonic()
            woken = self._woken.wait(ROUND_S)
            self._woken.clear()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="lti-sender", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._woken.set()
        if self._thread is not None:
            self._thread.join(30)
            self._thread = None
