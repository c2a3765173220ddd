"""A submission's own output (stdout and stderr), capped: what the grader keeps of it."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Output:
    """A submission's stdout/stderr: the first `cap` bytes kept, the rest only counted."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        self.data += chunk[:max(room, 0)]
        self.dropped += max(len(chunk) - max(room, 0), 0)

    def text(self) -> str:
        text = self.data.decode("utf-8", "replace")
        return text + (f"\n[... {self.dropped} more bytes of output dropped]" if self.dropped else "")
