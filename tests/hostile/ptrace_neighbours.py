# Tries to read other processes' memory (process_vm_readv, ptrace) and to leave the namespaces.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)


def softmax(S):
    tried = []
    for pid in range(1, 400):
        if pid == os.getpid():
            continue
        if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
            tried.append(f"ptrace {pid}")
    tried.append(f"unshare {libc.unshare(0x20000000)}")
    tried.append(f"setns {libc.setns(os.open('/proc/1/ns/net', os.O_RDONLY) if os.path.exists('/proc/1/ns/net') else -1, 0)}")
    raise RuntimeError("; ".join(tried))
