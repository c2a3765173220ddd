"""Sandbox slots: unique per machine while their process lives, free again when it ends."""

import signal
import subprocess
import sys

from qkv.sandbox import slots

HOLD = (
    "import sys, time; from qkv.sandbox import slots; s = slots.claim(folder=sys.argv[1]); "
    "print(s.number, flush=True); time.sleep(60)"
)


def test_two_claims_get_different_slots_and_a_released_one_is_reused(tmp_path):
    a, b = slots.claim(folder=tmp_path), slots.claim(folder=tmp_path)
    assert (a.number, b.number) == (0, 1)
    a.release()
    with slots.claim(folder=tmp_path) as c:
        assert c.number == 0
    b.release()


def test_a_slot_held_by_another_process_is_skipped_and_freed_when_it_is_killed(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "0"
        with slots.claim(folder=tmp_path) as mine:
            assert mine.number == 1
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with slots.claim(folder=tmp_path) as again:
        assert again.number == 0
