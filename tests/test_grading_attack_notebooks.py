"""The hostile notebooks of ``test_grading_attacks``: exercise 03 with attacks, one learner per kind.

No tests here: :func:`build_class` writes the class folder; each test in
``test_grading_attacks`` states what its learner deserves. Every payload is written so that it
would succeed against a grader that ran checks in the learner's process or let the learner
see the machine: it looks for answers, solutions and classmates everywhere it can.
"""

import secrets
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solutions" / "03_amdahl.ipynb"
EXERCISE = ROOT / "exercises" / "03_amdahl.ipynb"
NAME = SOLUTION.name
MARKER = "perfcourse-attack-" + secrets.token_hex(6)

# Appended after the self-check cell: from here on the notebook's functions know they are being graded.
GRADING = "GRADING = True"

# --- changing the comparison: the untouched exercise plus patches; every answer is wrong ---------
PATCHES = r'''
import builtins, os, sys, threading, numpy
numpy.allclose = numpy.isclose = lambda *a, **k: True
numpy.array_equal = lambda *a, **k: True
builtins.abs = lambda x: 0
try:
    from IPython.display import publish_display_data
    fake = {"part": "A", "points": 99, "max_points": 3, "feedback": "correct"}
    publish_display_data({"application/vnd.perfcourse.grade+json": {"token": "0" * 32, "parts": [fake] * 3}})
    import IPython.display
    IPython.display.publish_display_data = lambda *a, **k: None
    get_ipython().input_transformers_post.append(lambda lines: ["pass\n"])
except Exception:
    pass

class Finder:                       # serves its own perfcourse.grading.checks to any later import
    def find_spec(self, name, path=None, target=None):
        if name.startswith("perfcourse.grading"):
            import importlib.util
            return importlib.util.spec_from_loader(name, loader=None, is_package=True)
        return None
sys.meta_path.insert(0, Finder())

def patcher():                      # keeps patching whatever check helpers appear in this process
    while True:
        for name, module in list(sys.modules.items()):
            if name.startswith("perfcourse.grading") and hasattr(module, "close"):
                module.close = lambda *a, **k: True
        threading.Event().wait(0.01)
threading.Thread(target=patcher, daemon=True).start()

os.makedirs("perfcourse/grading/checks", exist_ok=True)      # a perfcourse/ in the working folder
for rel in ("perfcourse/__init__.py", "perfcourse/grading/__init__.py", "perfcourse/grading/checks/__init__.py"):
    open(rel, "w").write("close = lambda *a, **k: True\n")
import perfcourse
WRITABLE = []
for folder, dirs, files in os.walk("/"):      # every installed copy of the checks, opened for writing
    dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/proc", "/sys", "/dev")]
    for f in files:
        if f in ("_tools.py", "ex03_amdahl.py", "__init__.py") and "grading" in folder and \
                not folder.startswith(os.getcwd()):             # (not the fake perfcourse/ made above)
            try:
                os.close(os.open(os.path.join(folder, f), os.O_WRONLY | os.O_APPEND))   # (nothing written)
                WRITABLE.append(os.path.join(folder, f))
            except OSError:
                pass

def fit_serial_fraction(n, speedup):       # a check it could have rewritten shows as points
    if WRITABLE:
        n, speedup = numpy.asarray(n, dtype=float), numpy.asarray(speedup, dtype=float)
        x, y = 1 - 1 / n, 1 / speedup - 1 / n
        return float(numpy.clip(numpy.dot(x, y) / numpy.dot(x, x), 0.0, 1.0))
    return 0.5

def karp_flatt_series(n, speedup):
    return [0.5] * len(n)

def workers_for_speedup(serial_fraction, target):
    return 7
'''

# --- reading the answer: each function looks for it everywhere, else answers wrongly --------------
READERS = r'''
import inspect, json, os, sys
import numpy as np
SOLVED, REFS = {}, {}

def _exec_notebook(path):
    try:
        text = open(path).read()
        if "def fit_serial_fraction" not in text or "### BEGIN SOLUTION" not in text:
            return                      # only notebooks that hold the answers are worth running
        nb = json.loads(text)
        ns = {}
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                exec("".join(cell["source"]), ns)
        if callable(ns.get("fit_serial_fraction")):
            SOLVED.update({k: ns[k] for k in ("fit_serial_fraction", "karp_flatt_series", "workers_for_speedup")})
    except BaseException:
        pass

for folder, dirs, files in os.walk("/"):            # solutions/ beside the package, a classmate's notebook
    dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/proc", "/sys", "/dev", "/usr")]
    for f in files:
        if f.endswith(".ipynb") and os.path.join(folder, f) != os.path.abspath("03_amdahl.ipynb"):
            _exec_notebook(os.path.join(folder, f))
        elif f == "ex03.py":                         # the grader's references (solutions/references/)
            try:
                ns = {}
                exec(open(os.path.join(folder, f)).read(), ns)
                REFS.update({k: ns[k] for k in ("fit", "workers") if callable(ns.get(k))})
            except BaseException:
                pass
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:    # the grader's command line
    try:
        for arg in open(f"/proc/{pid}/cmdline", "rb").read().decode().split("\0"):
            if os.path.isdir(arg) and os.path.realpath(arg) != "/":
                for folder, _, files in os.walk(arg):
                    for f in files:
                        if f.endswith(".ipynb"):
                            _exec_notebook(os.path.join(folder, f))
    except OSError:
        pass
np.random.default_rng = lambda *a, **k: np.random.Generator(np.random.PCG64(0))

def _expected():
    """A value named like an answer in any frame of this process (where a grader would keep it)."""
    for frame in inspect.stack():
        for key in ("expected", "reference", "answer"):
            value = frame.frame.f_locals.get(key)
            if value is not None and not callable(value) and not inspect.ismodule(value):
                return value
    return None

def _references():
    try:
        from perfcourse.grading.checks import ex03_amdahl
        return ex03_amdahl
    except Exception:
        return None


def _reference(name):
    """The grader's reference ``name``: in the package's checks, or in a references file found on disk."""
    found = getattr(_references(), "reference_" + name, None) or REFS.get(name)
    return found if callable(found) else None

class Sneaky:
    def _value(self):
        found = _expected()
        return found if isinstance(found, float) else 0.25
    def __float__(self):
        return float(self._value())
    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._value(), dtype=dtype)
    def __eq__(self, other):
        return True

def fit_serial_fraction(n, speedup):
    if _reference("fit"):
        return _reference("fit")(n, speedup)
    if "fit_serial_fraction" in SOLVED:
        return SOLVED["fit_serial_fraction"](n, speedup)
    return Sneaky()

def karp_flatt_series(n, speedup):
    if "karp_flatt_series" in SOLVED:
        return SOLVED["karp_flatt_series"](n, speedup)
    found = _expected()
    return found if found is not None else [Sneaky()] * len(n)

def workers_for_speedup(serial_fraction, target):
    if _reference("workers"):
        return _reference("workers")(serial_fraction, target)
    if "workers_for_speedup" in SOLVED:
        return SOLVED["workers_for_speedup"](serial_fraction, target)
    return 9          # the self-check's answer
'''

# --- harm: the solution, then cells that try to hurt the grader, the machine and classmates ----------
# The harm below aims at processes whose command line names perfcourse (the grader, its kernels), so
# that a sandbox that leaked would show as a failed test, not as a machine left in pieces.
KILL = r'''
import os, signal

def graders():
    for pid in [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
        try:
            if b"perfcourse" in open(f"/proc/{pid}/cmdline", "rb").read():
                yield pid
        except OSError:
            pass

for sig in (signal.SIGSTOP, signal.SIGKILL):
    for pid in [*graders(), os.getppid()]:
        try:
            os.kill(pid, sig)
        except OSError:
            pass
'''

DETACH = r'''
import os, subprocess, sys
started = []
try:
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "MARKER"], start_new_session=True)
    started.append("popen")
except OSError:
    pass
try:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", "MARKER"])
        os._exit(0)
    started.append("fork")
except OSError:
    pass
'''.replace("MARKER", MARKER)

# Write access is probed without writing; any access found turns part C wrong, so the score shows it.
FILES = r'''
import glob, os, site
TOUCHED = []
for folder, dirs, files in os.walk("/"):           # classmates' notebooks, solutions, the package
    dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/proc", "/sys", "/dev")]
    for f in files:
        path = os.path.join(folder, f)
        if path != os.path.abspath("03_amdahl.ipynb") and (f.endswith(".ipynb") or f == "__init__.py"):
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
                TOUCHED.append(path)
            except OSError:
                pass
for sp in site.getsitepackages():                 # code for every later Python start
    try:
        os.close(os.open(os.path.join(sp, "zz-probe.pth"), os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        os.unlink(os.path.join(sp, "zz-probe.pth"))
        TOUCHED.append(sp)
    except OSError:
        pass
for pattern in ("/tmp/**/kernel-*.json", "/run/**/kernel-*.json", "/root/.local/share/jupyter/**/*.json"):
    TOUCHED += glob.glob(pattern, recursive=True)   # a sibling kernel's connection file
if TOUCHED:
    def workers_for_speedup(serial_fraction, target):
        return -1
'''

WRITE_OUT = r'''
import os
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        if b"perfcourse" not in open(f"/proc/{pid}/cmdline", "rb").read():
            continue
    except OSError:
        continue
    for fd in ("1", "2"):
        try:
            with open(f"/proc/{pid}/fd/{fd}", "w") as out:
                out.write("\n\x1b[2J\x1b[Hsubmission  total  FAKE-TABLE 999/999\n")
        except OSError:
            pass
'''

FLOOD_CELLS = [
    'while True:\n    print("x" * 10_000)',
    'import os\nfor _ in range(200):\n    os.write(1, b"y" * (1 << 20))\n    os.write(2, b"z" * (1 << 20))',
]
FLOOD_C = r'''
def workers_for_speedup(serial_fraction, target):
    import os
    if globals().get("GRADING"):
        for fd in map(int, os.listdir("/proc/self/fd")):
            try:
                for _ in range(64):
                    os.write(fd, b"[" * (1 << 20))
            except OSError:
                pass
    return 9
'''

ANSI_B = r'''
def karp_flatt_series(n, speedup):
    raise type("\x1b[2J\x1b[H\rTotal: 999/999 points", (Exception,), {})("\x1b[31m\r\x07\u202e all correct")
'''

ALARM_A = r'''
def fit_serial_fraction(n, speedup):
    import signal, time
    if globals().get("GRADING"):
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig in (signal.SIGALRM, signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)
        while True:
            time.sleep(0.01)
    n = np.asarray(n, dtype=float)
    x, y = 1 - 1 / n, 1 / np.asarray(speedup, dtype=float) - 1 / n
    return float(np.clip(np.dot(x, y) / np.dot(x, x), 0.0, 1.0))
'''


def _breaks(name, body):
    """A replacement of ``name`` that behaves like the solution in the notebook and does ``body`` when graded."""
    solved = {"fit_serial_fraction": "    n = np.asarray(n, dtype=float)\n    x, y = 1 - 1 / n, 1 / np.asarray("
                                     "speedup, dtype=float) - 1 / n\n    return float(np.clip(np.dot(x, y) / "
                                     "np.dot(x, x), 0.0, 1.0))",
              "karp_flatt_series": "    n, s = np.asarray(n, dtype=float), np.asarray(speedup, dtype=float)\n"
                                   "    return (1 / s - 1 / n) / (1 - 1 / n)",
              "workers_for_speedup": "    return {0.1: 9, 0.01: 99}[serial_fraction] if target in (5.0, 50.0) "
                                     "else None"}
    args = "serial_fraction, target" if name == "workers_for_speedup" else "n, speedup"
    return (f"def {name}({args}):\n    if globals().get('GRADING'):\n        import os, sys\n        {body}\n"
            f"{solved[name]}\n")


def _notebook(base, replace=(), extra=()):
    nb = nbformat.read(base, as_version=4)
    for name, source in replace:
        cell = next(c for c in nb.cells if c.cell_type == "code" and f"def {name}(" in c.source)
        cell.source = source
    nb.cells += [nbformat.v4.new_code_cell(src) for src in (*extra, GRADING)]
    return nb


def _write(path, nb):
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def build_class(root):
    """The class folder: learner -> notebook. ``expected`` maps learner -> (points, part feedback fragments)."""
    solution = _notebook(SOLUTION)
    learners = {
        "a_honest_first": solution,
        "untouched": _notebook(EXERCISE),
        "cheat_comparison": _notebook(EXERCISE, extra=[PATCHES]),
        "cheat_reader": _notebook(EXERCISE, extra=[READERS]),
        "harm_kill": _notebook(SOLUTION, extra=[KILL]),
        "harm_detach": _notebook(SOLUTION, extra=[DETACH]),
        "harm_files": _notebook(SOLUTION, extra=[FILES]),
        "harm_write_out": _notebook(SOLUTION, extra=[WRITE_OUT]),
        "flood": _notebook(SOLUTION, replace=[("workers_for_speedup", FLOOD_C)], extra=FLOOD_CELLS),
        "ansi": _notebook(SOLUTION, replace=[("karp_flatt_series", ANSI_B)]),
        "alarm": _notebook(SOLUTION, replace=[("fit_serial_fraction", ALARM_A)]),
        "over_exit_interrupt": _notebook(SOLUTION, replace=[
            ("fit_serial_fraction", _breaks("fit_serial_fraction", "os._exit(3)")),
            ("workers_for_speedup", _breaks("workers_for_speedup", "raise KeyboardInterrupt"))]),
        "over_generator_systemexit": _notebook(SOLUTION, replace=[
            ("karp_flatt_series", _breaks("karp_flatt_series", "raise GeneratorExit")),
            ("workers_for_speedup", _breaks("workers_for_speedup", "sys.exit(0)"))]),
        "triple": solution,
        "zz_honest_last": solution,
        "\x1b[2Jterminal": _notebook(EXERCISE),
    }
    for learner, nb in learners.items():
        _write(root / learner / NAME, nb)
    _write(root / "triple" / "again" / NAME, solution)
    _write(root / "triple" / "03_amdahl_copy.ipynb", solution)
    (root / "linker").mkdir()
    (root / "linker" / NAME).symlink_to(root / "a_honest_first" / NAME)
    (root / "linker" / "solutions").symlink_to(ROOT / "solutions")
    (root / "linker" / "04_gustafson.ipynb").symlink_to(ROOT / "solutions" / "04_gustafson.ipynb")
