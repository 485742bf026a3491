"""Containment that holds when the grader is root: the host's settings, the grader's environment, memory and threads.

Two kinds of test. Probes run a short program in the grader's own sandbox (as a kernel would be
started) and report what it could do; the host side is read from outside while it runs. A class
graded through the command line, the way an instructor globs a folder (``perfcourse grade *``),
holds a learner per attack beside honest ones: every attacker keeps the points their functions
earn (an attack is not a wrong answer) and reaches nothing.

Needs bubblewrap (CI installs it); the root-only checks are skipped for an ordinary user, where
the host's own permissions already refuse them.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfcourse.grading import hostview
from perfcourse.grading import sandbox as sandbox_module
from perfcourse.grading.limits import CGROUP_SLACK_BYTES, THREAD_CAP, TMP_BYTES
from perfcourse.grading.sandbox import Sandbox, bwrap_path, kill

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solutions" / "03_amdahl.ipynb"
SECRET = "perfcourse-secret-" + os.urandom(6).hex()

if bwrap_path() is None:
    if os.environ.get("PERFCOURSE_REQUIRE_BWRAP") == "1":
        raise RuntimeError("PERFCOURSE_REQUIRE_BWRAP=1 but bubblewrap (bwrap) is not installed")
    pytest.skip("bubblewrap (bwrap) is not installed", allow_module_level=True)

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the grader is not root here")

PROBE = r'''
import ctypes, errno, json, os, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
seen = {}
def attempt(name, action):
    try:
        result = action()
        seen[name] = "allowed" if result is None or (isinstance(result, int) and result >= 0) else \
            errno.errorcode.get(ctypes.get_errno(), "?")
    except OSError as err:
        seen[name] = errno.errorcode.get(err.errno, str(err.errno))
attempt("core_pattern", lambda: os.close(os.open("/proc/sys/kernel/core_pattern", os.O_WRONLY)))
def lease():
    value = open("/proc/sys/fs/lease-break-time").read()
    with open("/proc/sys/fs/lease-break-time", "w") as f:
        f.write(value)
attempt("sysctl_write", lease)
for where in ("/etc/fill", "/fill", "/usr/fill"):     # the sandbox's root is a tmpfs without a size limit
    attempt("write" + where.replace("/", "_"), lambda: open(where, "w").close())
seen["environ"] = open("/proc/1/environ", "rb").read().decode("utf-8", "replace")
seen["cmdline"] = open("/proc/1/cmdline", "rb").read().decode("utf-8", "replace")
seen["pid"] = os.getpid()
attempt("shmget", lambda: libc.shmget(0, 1 << 30, 0o1600))
attempt("msgget", lambda: libc.msgget(0, 0o1600))
attempt("semget", lambda: libc.semget(0, 1, 0o1600))
attempt("memfd", lambda: os.close(os.memfd_create("x")))
open("/tmp/x", "w").close()
attempt("setxattr", lambda: os.setxattr("/tmp/x", "user.fill", b"y" * 4000))
attempt("mq_open", lambda: libc.mq_open(b"/q", os.O_CREAT | os.O_RDWR, 0o600, None))
attempt("add_key", lambda: libc.syscall(KEYCALL, b"user", b"k", b"v", 1, -2))
attempt("io_uring", lambda: libc.syscall(URINGCALL, 8, ctypes.create_string_buffer(120)))
attempt("ptrace", lambda: libc.ptrace(0, 0, None, None))
attempt("fork", lambda: (os._exit(0) if os.fork() == 0 else None))
threads, stop = [], threading.Event()
try:
    for _ in range(4 * CAP):
        t = threading.Thread(target=stop.wait, daemon=True)
        t.start()
        threads.append(t)
except (RuntimeError, OSError):
    pass
seen["threads"] = len(threads)
stop.set()
print(json.dumps(seen), flush=True)
sys.stdin.read()
'''
_CALLS = {"x86_64": (248, 425), "aarch64": (217, 425)}


def _probe(sandbox, code=PROBE, **spawn):
    import platform

    key, uring = _CALLS.get(platform.machine(), (-1, -1))
    code = code.replace("KEYCALL", str(key)).replace("URINGCALL", str(uring)).replace("CAP", str(THREAD_CAP))
    proc = sandbox.spawn([sys.executable, "-I", "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, **spawn)
    line = hostview.read_line(proc.stdout, 120)
    users = {hostview.host_uid(pid) for pid in hostview.descendants(proc.pid)} - {-1}
    groups = [Path(f) for f in proc.perfcourse_cgroups]
    kill(proc)
    assert line, proc.stderr.read().decode()[-2000:]
    return json.loads(line), users, groups


@pytest.fixture(scope="module")
def probed():
    os.environ["PERFCOURSE_PROBE_SECRET"] = SECRET
    try:
        box = Sandbox()
        try:
            yield (box, *_probe(box))
        finally:
            box.close()
    finally:
        del os.environ["PERFCOURSE_PROBE_SECRET"]


def test_the_kernel_is_pid_1_and_holds_nothing_of_the_graders_environment(probed):
    _, seen, _, _ = probed
    assert seen["pid"] == 1 and "-c" in seen["cmdline"].split("\0")
    assert SECRET not in seen["environ"] and "PERFCOURSE_PROBE_SECRET" not in seen["environ"]
    assert set(k.split("=")[0] for k in seen["environ"].split("\0") if k) <= {
        *sandbox_module.ENV, "HOME", "TMPDIR", "PATH", "PWD"}


def test_host_settings_cannot_be_written(probed):
    _, seen, _, _ = probed
    assert seen["core_pattern"] in ("EACCES", "EROFS", "EPERM"), seen
    assert seen["sysctl_write"] in ("EACCES", "EROFS", "EPERM"), seen


def test_only_tmp_takes_files(probed):
    _, seen, _, _ = probed
    assert [seen[k] for k in ("write_etc_fill", "write_fill", "write_usr_fill")] == ["EROFS"] * 3, seen


def test_memory_the_address_space_limit_does_not_see_is_refused(probed):
    _, seen, _, _ = probed
    for call in ("shmget", "msgget", "semget", "memfd", "setxattr", "mq_open", "add_key", "io_uring", "ptrace",
                 "fork"):
        assert seen[call] == "EPERM", (call, seen[call])


@as_root
def test_threads_stop_at_the_cap(probed):
    _, seen, _, _ = probed
    assert THREAD_CAP // 2 < seen["threads"] < THREAD_CAP, seen["threads"]


@as_root
def test_as_root_every_process_of_a_kernel_is_an_ordinary_user_of_its_own(probed):
    box, _, users, _ = probed
    assert users and 0 not in users and min(users) >= sandbox_module.BASE_UID, users
    second = _probe(box)[1]
    assert second and not second & users          # the next kernel is another user


@as_root
def test_as_root_the_kernel_sits_in_memory_and_pids_cgroups_that_are_removed_after(probed):
    box, _, _, groups = probed
    if box.cgroups.kind is None:
        pytest.skip("this machine lets the grader make no cgroup")
    assert groups and not any(g.exists() for g in groups)
    session = list(box.cgroups.session)
    box.close()
    assert not any(folder.exists() for folder in session)


@as_root
def test_files_in_tmp_cannot_hold_more_host_memory_than_the_limit():
    box = Sandbox()
    try:
        if box.cgroups.kind != "v1":
            pytest.skip("the v1 memory cgroup is what this test reads")
        fill = r'''
import json, os, sys, time
made, end = 0, time.monotonic() + 40
try:
    while time.monotonic() < end:
        for _ in range(1000):
            open("/tmp/" + "f" * 180 + str(made), "w").close()
            made += 1
except OSError as err:
    print(json.dumps({"made": made, "error": err.errno}), flush=True)
else:
    print(json.dumps({"made": made, "error": None}), flush=True)
sys.stdin.read()
'''
        memory = 32 << 20
        proc = box.spawn([sys.executable, "-I", "-c", fill], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, memory_bytes=memory)
        group = Path(proc.perfcourse_cgroups[0])
        limit = int((group / "memory.limit_in_bytes").read_text())
        line = hostview.read_line(proc.stdout, 90)
        peak = int((group / "memory.max_usage_in_bytes").read_text())
        kill(proc)
    finally:
        box.close()
    assert limit == memory + TMP_BYTES + CGROUP_SLACK_BYTES
    assert peak <= limit
    # the files stopped it (killed by the cgroup, or refused) long before a minute of them filled the host
    assert line == b"" or json.loads(line)["error"] is not None, line


# --- a class graded the way an instructor globs it ------------------------------------------------

ATTACKS = {
    # what each attack finds decides its answers: a learner keeps 7/7 only when the attack found nothing
    "leak_env": r'''
import os
found = [open(f"/proc/{p}/environ", "rb").read() for p in os.listdir("/proc") if p.isdigit()]
LEAK = b"PERFCOURSE_CLASS_SECRET" in b"".join(found)
raise RuntimeError(b"".join(found).decode("utf-8", "replace")[:3000])
''',
    "sysctl": r'''
import os
try:
    os.close(os.open("/proc/sys/kernel/core_pattern", os.O_WRONLY))
    LEAK = True
except OSError:
    LEAK = False
''',
    "host_memory": r'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
held = libc.shmget(0, 1 << 30, 0o1600) >= 0
try:
    os.memfd_create("m")
    held = True
except OSError:
    pass
LEAK = held
''',
    "threads": r'''
import threading
stop, count = threading.Event(), 0
try:
    for _ in range(5000):
        threading.Thread(target=stop.wait, daemon=True).start()
        count += 1
except (RuntimeError, OSError):
    pass
stop.set()
LEAK = count >= 5000
''',
}
LINGER = r'''
import ctypes, os, time
ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)            # no death signal when bubblewrap goes
os._exit = lambda *a: time.sleep(10**7)           # and no exit when the grader closes the pipe
'''
BREAK_IF_LEAKED = r'''
_honest = workers_for_speedup
def workers_for_speedup(serial_fraction, target):
    return -7 if globals().get("LEAK", True) else _honest(serial_fraction, target)
'''


@pytest.fixture(scope="module")
def glob_graded(tmp_path_factory):
    import nbformat

    base = tmp_path_factory.mktemp("globbed")
    klass = base / "class"
    for learner in ("alice", "--part-timeout=1e-9", "--unsafe", "deep", "linger", *ATTACKS):
        (klass / learner).mkdir(parents=True)
        nb = nbformat.read(SOLUTION, as_version=4)
        if learner == "linger":
            nb.cells.append(nbformat.v4.new_code_cell(LINGER))
        if learner in ATTACKS:
            nb.cells += [nbformat.v4.new_code_cell(ATTACKS[learner]), nbformat.v4.new_code_cell(BREAK_IF_LEAKED)]
        nbformat.write(nb, klass / learner / SOLUTION.name)
    nested, chain = klass / "deep", []
    for _ in range(1100):                     # one by one: a recursive mkdir would hit the recursion limit
        nested = nested / "d"
        nested.mkdir()
        chain.append(nested)
    book = base / "gradebook.json"
    env = {**os.environ, "PERFCOURSE_CLASS_SECRET": SECRET}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "perfcourse", "grade", *sorted(os.listdir(klass)), "--jobs", "2",
                           "--json", str(book)], cwd=klass, env=env, capture_output=True, timeout=600)
    seconds = time.monotonic() - started
    time.sleep(0.5)
    left = [pid for pid in os.listdir("/proc") if pid.isdigit() and _runs_the_runner(pid)]
    yield {"left": left, "proc": proc, "book": json.loads(book.read_text()) if book.exists() else None,
           "seconds": seconds, "text": book.read_text() if book.exists() else ""}
    for folder in reversed(chain):
        folder.rmdir()
    shutil.rmtree(base, ignore_errors=True)


def _runs_the_runner(pid):
    try:
        return b"perfcourse-grader" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _by_learner(book):
    return {Path(s["submission"]).parts[0]: s for s in book["submissions"] if s["exercise"] == "ex03"}


def test_a_globbed_class_is_graded_for_everyone_whatever_its_folder_names(glob_graded):
    proc, book = glob_graded["proc"], glob_graded["book"]
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert book["contained"] is True and book["part_timeout_s"] == 10 and book["errors"] == []
    subs = _by_learner(book)
    assert set(subs) == {"alice", "--part-timeout=1e-9", "--unsafe", "deep", "linger", *ATTACKS}
    assert {name: s["points"] for name, s in subs.items()} == dict.fromkeys(subs, 7.0)
    assert b"took '--unsafe' as the path" in proc.stderr


def test_a_folder_nested_past_the_limit_is_one_note(glob_graded):
    notes = [s for s in glob_graded["book"]["submissions"] if s["exercise"] is None]
    assert len(notes) == 1 and "nested more than 16 levels deep" in notes[0]["problems"][0], notes


def test_no_attack_found_anything_and_nothing_of_the_graders_environment_is_reported(glob_graded):
    text = glob_graded["text"] + glob_graded["proc"].stdout.decode() + glob_graded["proc"].stderr.decode()
    assert SECRET not in text and "PERFCOURSE_CLASS_SECRET" not in text
    leak = _by_learner(glob_graded["book"])["leak_env"]
    assert any("raised RuntimeError" in p for p in leak["problems"]), leak["problems"]


def test_options_are_never_abbreviated(tmp_path, capsys):
    from perfcourse import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(["grade", str(tmp_path), "--uns"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unrecognized arguments: --uns" in err[0]


def test_no_kernel_outlives_the_grader_even_one_that_turned_its_death_signal_off(glob_graded):
    assert glob_graded["left"] == []
    leftovers = [p for p in Path("/sys/fs/cgroup").glob("*/**/perfcourse-grade-*") if p.is_dir()]
    assert leftovers == [], leftovers


def test_one_learners_crowded_folder_does_not_hide_the_others(tmp_path, monkeypatch):
    from perfcourse.grading import collect

    monkeypatch.setattr(collect, "MAX_ENTRIES", 50)
    (tmp_path / "aaa" / "junk").mkdir(parents=True)
    for i in range(60):
        (tmp_path / "aaa" / "junk" / f"f{i}").touch()
    (tmp_path / "zed").mkdir()
    for learner in ("aaa", "zed"):
        shutil.copy(SOLUTION, tmp_path / learner / SOLUTION.name)
    entries, _ = collect.find_notebooks([tmp_path])
    graded = sorted(e.learner for e in entries if e.note is None)
    notes = [e for e in entries if e.note]
    assert graded == [str(tmp_path / "aaa"), str(tmp_path / "zed")]
    assert len(notes) == 1 and "more than 50 entries" in notes[0].note and notes[0].learner == str(tmp_path / "aaa")
