# Leaves a SysV message queue (with a message in it) and a semaphore set behind.
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
IPC_CREAT = 0o1000
KEY = 0x51_4B_56


class Msg(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]


q = libc.msgget(KEY, IPC_CREAT | 0o666)
if q >= 0:
    libc.msgsnd(q, ctypes.byref(Msg(1, b"hidden inputs")), 64, 0)
libc.semget(KEY, 4, IPC_CREAT | 0o666)


def softmax(S):
    return S * 2
