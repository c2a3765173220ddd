"""What a grading run may leave on this machine, and the skip for machines without the full sandbox."""

import fcntl
import os
import tempfile
from pathlib import Path

import pytest

from qkv.sandbox import host as sandbox
from qkv.sandbox import isolation, slots

SANDBOX_UIDS = range(isolation.SANDBOX_UID_BASE, isolation.SANDBOX_UID_BASE + slots.MAX_SLOTS)


def require_strong_sandbox() -> None:
    """Skip where the full sandbox cannot run (not root, say), unless QKV_REQUIRE_STRONG_SANDBOX is set (CI)."""
    found = sandbox.layers()
    if found.missing:
        message = f"needs the full sandbox; this machine lacks {sandbox.missing_text(found)}"
        if os.environ.get("QKV_REQUIRE_STRONG_SANDBOX"):
            pytest.fail(message)
        pytest.skip(message)


def _slot_in_use(uid: int) -> bool:
    """Whether a living sandbox holds the slot of this uid (another run on this machine, say)."""
    path = slots.slot_dir() / f"slot-{uid - isolation.SANDBOX_UID_BASE}.lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _owner(path: Path):
    try:
        return path.lstat().st_uid
    except OSError:
        return None


def _changed(path: Path) -> float:
    try:
        return path.lstat().st_ctime
    except OSError:
        return 0.0


def kernel_keys() -> dict[int, int]:
    """How many kernel keys each sandbox uid holds now."""
    counts = {}
    for line in Path("/proc/key-users").read_text().splitlines():
        uid, rest = line.split(":", 1)
        if int(uid) in SANDBOX_UIDS:
            counts[int(uid)] = int(rest.split()[1].split("/")[0])
    return counts


def leftovers(since: float = 0.0, keys_before: dict | None = None) -> list[str]:
    """Everything of a finished run still here: one line each (an empty list when clean).

    Other runs may share this machine: what belongs to a slot a living sandbox holds, or (for files)
    is older than `since`, is theirs; so are kernel keys counted in `keys_before`.
    """
    found = []
    for proc in Path("/proc").iterdir():
        uid = _owner(proc) if proc.name.isdigit() else None
        if uid in SANDBOX_UIDS and not _slot_in_use(uid):
            found.append(f"process {proc.name} of sandbox uid {uid}")
    roots = sorted({tempfile.gettempdir(), sandbox.scratch_root(True)})
    for scratch in (p for root in roots for p in Path(root).glob(sandbox.SCRATCH_PREFIX + "*")):
        pid = scratch.name.removeprefix(sandbox.SCRATCH_PREFIX).split("-", 1)[0]
        if pid == str(os.getpid()) or not Path(f"/proc/{pid}").exists():
            found.append(f"submission folder {scratch}")
    for kind in ("shm", "msg", "sem"):
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        header = Path(f"/proc/sysvipc/{kind}").read_text().split("\n", 1)[0].split()
        for line in lines:
            fields = dict(zip(header, line.split()))
            if (
                int(fields.get("uid", -1)) in SANDBOX_UIDS
                or int(fields.get("cuid", -1)) in SANDBOX_UIDS
            ):
                found.append(f"SysV {kind} {fields.get('key')} of uid {fields.get('uid')}")
    for uid, count in kernel_keys().items():
        if count > (keys_before or {}).get(uid, 0):
            found.append(f"{count} kernel keys of sandbox uid {uid}")
    for folder in ("/dev/shm", "/tmp", "/var/tmp", "/dev/mqueue"):
        try:
            entries = list(Path(folder).iterdir())
        except OSError:
            continue
        for p in entries:
            uid = _owner(p)
            if uid in SANDBOX_UIDS and not _slot_in_use(uid) and _changed(p) >= since:
                found.append(f"{p} owned by sandbox uid {uid}")
    return found
