# Leaves SysV shared memory behind (300 MiB, touched, so it is charged to the memory cgroup) holding a marker.
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
IPC_CREAT = 0o1000
KEY = 0x51_4B_56


def _leave(size=300 << 20):
    shmid = libc.shmget(KEY, size, IPC_CREAT | 0o666)
    if shmid < 0:
        return
    addr = libc.shmat(shmid, None, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        return
    ctypes.memset(addr, 0x41, size)
    ctypes.memmove(addr, b"qkv-marker", 10)
    libc.shmdt(ctypes.c_void_p(addr))


_leave()


def softmax(S):
    _leave()
    return S
