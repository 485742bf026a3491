"""The kernel side of grading: run a notebook's cells, then call its functions when asked.

The grader starts this file as a script (``python -I runner.py``) inside the sandbox, with
:mod:`wire` beside it; it imports nothing of perfcourse. It speaks JSON lines over its
standard input and output, which it first moves to private descriptors: what the
notebook prints, and anything it writes to descriptors 1 and 2, is discarded (a cell that
prints more than the output limit through ``print`` is stopped).

Messages: the runner says ``hello``; the grader sends ``start`` (the notebook's code cells,
the names to look up, the limits); the runner answers one ``cell`` message per code cell
and then ``ready`` with which names are functions; then each ``call`` (a function name and
plain-data arguments) gets a ``result`` or a ``raised``. Kernel parts are not graded
here: the grader launches the kernels itself, in a probe that never runs the notebook
(``probe.py``). No answer, seed or check ever
comes this way: the grader compares in its own process. Nothing here is trusted.
"""

from __future__ import annotations

import os
import sys

FILE_SIZE_LIMIT = 64 << 20
syncs = None   # perfcourse/_syncs.py, copied here as syncs.py and loaded from beside this file by main()
OPEN_FILES_LIMIT = 256


class OutputLimit(Exception):
    """Raised inside ``print`` when a cell has printed more than its limit."""


class Sink:
    """``sys.stdout``/``sys.stderr`` while the notebook runs: counts what is printed, keeps nothing."""

    def __init__(self):
        self.limit, self.count, self.flooded, self.armed = 1 << 20, 0, False, False

    def reset(self, armed):
        self.count, self.flooded, self.armed = 0, False, armed

    def write(self, text):
        self.count += len(text) if isinstance(text, str) else 0
        if self.armed and self.count > self.limit and not self.flooded:
            self.flooded = True
            raise OutputLimit(f"printed more than {self.limit} characters")
        return len(text) if isinstance(text, str) else 0

    def flush(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True


class Channel:
    """The private pipe pair to the grader."""

    def __init__(self, wire):
        self.wire = wire
        self.inp = os.fdopen(os.dup(0), "rb")
        self.out = os.fdopen(os.dup(1), "wb")
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)

    def send(self, message):
        self.out.write(self.wire.dumps(message).encode("ascii") + b"\n")
        self.out.flush()

    def receive(self):
        line = self.inp.readline()
        if not line:
            os._exit(0)
        return self.wire.loads(line.decode("utf-8"), 1 << 28)   # the grader's own messages


def _text(x, limit=300):
    try:
        text = str(x)
    except BaseException:  # noqa: BLE001 - a learner's __str__ may raise anything
        text = "?"
    return text[:limit]


def describe(err):
    """The plain description of an exception raised by the learner's code."""
    return {"ename": _text(type(err).__name__, 80), "evalue": _text(err),
            "not_implemented": isinstance(err, NotImplementedError)}


def limit_resources(memory_bytes, tasks=None):
    """Address space (what is mapped now plus ``memory_bytes``), file size, open files, no core, and
    (``tasks``) the threads of the sandbox's user. Hard limits: the notebook cannot raise them again."""
    import resource

    with open("/proc/self/statm") as f:
        now = int(f.read().split()[0]) * resource.getpagesize()
    limits = [(resource.RLIMIT_AS, now + memory_bytes), (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT),
              (resource.RLIMIT_NOFILE, OPEN_FILES_LIMIT), (resource.RLIMIT_CORE, 0)]
    if tasks is not None:
        limits.append((resource.RLIMIT_NPROC, tasks))
    for which, value in limits:
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass


def make_shell():
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class Shell(InteractiveShell):
        def ask_exit(self):
            """``exit()`` or ``quit()`` in a cell: like a kernel, end after this cell."""
            self.exit_now = True

    config = Config()
    config.HistoryManager.enabled = False
    config.InteractiveShell.colors = "nocolor"
    return Shell.instance(config=config)


def restore(here, name, text):
    """Put the notebook's copy back in ``here`` when a cell deleted it (or the folder); True if it did."""
    if os.path.isfile(os.path.join(here, name)):
        return False
    os.makedirs(here, exist_ok=True)
    os.chdir(here)
    with open(os.path.join(here, name), "w", encoding="utf-8") as f:
        f.write(text)
    return True


def run_cells(channel, shell, sink, start):
    """Run each code cell like "run all, ignoring errors"; report each one."""
    here, name = os.getcwd(), os.path.basename(str(start["notebook_name"])) or "notebook.ipynb"
    restore(here, name, str(start["notebook_text"]))
    for index, source in enumerate(start["cells"]):
        sink.reset(armed=True)
        try:
            result = shell.run_cell(str(source), store_history=False)
            err = result.error_before_exec or result.error_in_exec
        except BaseException as caught:  # noqa: BLE001 - whatever the cell did, report it and go on
            err = caught
        flooded = sink.flooded
        sink.reset(armed=False)
        try:
            deleted = restore(here, name, str(start["notebook_text"]))
        except OSError:
            deleted = True
        channel.send({"op": "cell", "index": index, "error": None if err is None else describe(err),
                      "flood": flooded, "deleted": deleted, "exit": bool(shell.exit_now)})
        if shell.exit_now:
            os._exit(0)
    user = shell.user_ns
    kinds = {n: ("function" if callable(user[n]) else "other") for n in start["names"] if n in user}
    channel.send({"op": "ready", "names": kinds})


_CLOCK = __import__("time").perf_counter   # taken before any notebook runs: a cell that patches time.perf_counter
                                            # does not change the times a watched call records


def _layout(value):
    """What sets the work of a call on an array argument: its type, shape, strides, dtype and data address. An array
    resized or reshaped in place keeps its identity but not this. ``None`` for a value that is no array."""
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    where = getattr(value, "__array_interface__", None) or getattr(value, "__cuda_array_interface__", None) or {}
    return (type(value), tuple(shape), getattr(value, "strides", None), str(getattr(value, "dtype", "")),
            where.get("data") if isinstance(where, dict) else None)


def watched(user, watch, sync=False):
    """Wrap each function ``watch`` names in the namespace ``user`` so that its calls on the notebook's own
    arguments are timed: ``watch`` maps a function's name to the names of the arguments it must be called with
    (compared by identity). Only calls on exactly those arguments that return count. Returns the record,
    ``{name: [seconds of each call]}``, and a function that puts the originals back.

    The arguments are the objects those names hold when the wrapping is done, with their layout then (see
    :func:`_layout`): a name rebound later, or an array resized or reshaped in place, does not count. The clock
    is the one this module took before any cell ran. With ``sync`` (the grader says so where its own backend is
    CuPy on a GPU) each call is timed around the function and a device synchronisation, so the time is the
    work's and not only its launch's.
    """
    record, originals = {}, {n: user[n] for n in watch if callable(user.get(n))}
    cupy = sys.modules.get("cupy") if sync else None
    wait = cupy.cuda.runtime.deviceSynchronize if cupy is not None else None

    def wrap(name, func, wanted):
        layouts = [_layout(w) for w in wanted]

        def call(*args, **kwargs):
            started = _CLOCK()
            result = func(*args, **kwargs)
            if wait is not None:
                wait()
            took = _CLOCK() - started
            if len(args) >= len(wanted) and all(a is w and _layout(a) == lay for a, w, lay in
                                                zip(args, wanted, layouts)):   # noqa: B905 - a prefix
                record[name].append(took)
            return result
        return call

    for name, func in originals.items():
        record[name] = []
        user[name] = wrap(name, func, [user.get(str(w)) for w in watch[name]])
    return record, lambda: user.update(originals)


KEPT_CALLS = 4_000    # the times of at most this many of a function's last calls travel back (a message is 1 MiB)


def summary(record):
    """``{name: [calls, [seconds of each of the last calls, in order]]}`` of a :func:`watched` record (the last
    :data:`KEPT_CALLS` at most): a measurement's samples are its last calls, after any warm-up."""
    return {name: [len(times), [float(t) for t in times[-KEPT_CALLS:]]] for name, times in record.items()}


def answer(channel, shell, sink, message):
    """Call one of the notebook's functions on the grader's inputs; send its result as plain data, with the calls
    it made to the functions the message names under ``watch`` (see :func:`watched`)."""
    wire = channel.wire
    sink.reset(armed=False)
    watch = message.get("watch") or {}
    record, restore = watched(shell.user_ns, {str(n): list(a) for n, a in watch.items()} if isinstance(watch, dict)
                              else {}, sync=message.get("sync") is True)
    try:
        func = shell.user_ns[str(message["name"])]
        args = wire.decode(message["args"], functions=True)
        try:
            result = func(*args)
        finally:
            restore()
        value = wire.encode(result, lenient=True)
        reply = {"op": "result", "id": message["id"], "value": value, "calls": summary(record)}
        if len(wire.dumps(reply)) > message["max_bytes"]:
            reply = {"op": "raised", "id": message["id"], "ename": "ResultTooLarge",
                     "evalue": f"the result is larger than {message['max_bytes']} bytes", "not_implemented": False}
    except BaseException as err:  # noqa: BLE001 - KeyboardInterrupt, SystemExit...: this call failed, no more
        reply = {"op": "raised", "id": message["id"], **describe(err)}
    channel.send(reply)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    global syncs
    import syncs
    import wire
    del sys.path[0]
    import threading

    import numpy  # noqa: F401 - loaded before the memory limit, as every exercise uses it

    threading.stack_size(syncs.THREAD_STACK_BYTES)   # the CUDA simulator starts a thread per CUDA thread

    channel = Channel(wire)
    sink = Sink()
    sys.stdout = sys.stderr = sink
    shell = make_shell()
    channel.send({"op": "hello"})
    start = channel.receive()
    sink.limit = int(start["max_output_bytes"])
    tasks = start.get("tasks")
    limit_resources(int(start["memory_bytes"]), int(tasks) if tasks is not None else None)
    run_cells(channel, shell, sink, start)
    while True:
        message = channel.receive()
        if message.get("op") == "call":
            answer(channel, shell, sink, message)


if __name__ == "__main__":
    main()
