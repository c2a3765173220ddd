"""The names of the messages between the grader, the zygote and a child (the frames are wire.py's).

Apart from wire.py so that what starts a sandbox, before anything has imported numpy, can name them.
"""


class Op:
    """The names of the messages, in one place.

    Grader to child: CALLS, a batch of calls run in order, each [function, input tree, ...] (then,
    on its own, a frame of any other op ends the child). Child to grader: LOADED or UNGRADABLE once,
    after loading; then RESULTS frames, each answering the next one or more calls of the batch in
    order (one frame per call when the batch asks to `stream`), one list per call: [RETURNED, value
    tree, [per input, whether the call changed it]], [RAISED, type, message, where],
    [NOT_IMPLEMENTED], [MISSING] (no such function) or [MEMORY]. Grader to zygote,
    over the control socket: START, SPAWN (a child for one submission; answered with its pid), REAP
    (kill and wait for it; answered with its wait status).
    """

    CALLS = "calls"
    RESULTS = "results"
    LOADED = "loaded"
    UNGRADABLE = "ungradable"
    RETURNED = "returned"
    RAISED = "raised"
    NOT_IMPLEMENTED = "not_implemented"
    MISSING = "missing"
    MEMORY = "memory"
    START = "start"
    SPAWN = "spawn"
    REAP = "reap"


class ZygoteGone(Exception):
    """The zygote stopped answering; the sandbox starts a new one."""
