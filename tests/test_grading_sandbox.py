"""The grader's boundary: what a sandboxed kernel can see and do, and what crosses back as data."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import perfcourse
from perfcourse.grading import wire
from perfcourse.grading.sandbox import Sandbox, SandboxError, bwrap_path, seccomp_filter

ROOT = Path(__file__).resolve().parent.parent
needs_bwrap = pytest.mark.skipif(bwrap_path() is None and os.environ.get("PERFCOURSE_REQUIRE_BWRAP") != "1",
                                 reason="bubblewrap (bwrap) is not installed")

INSIDE = r'''
import json, os, socket
import perfcourse as pc
seen = {"pid": os.getpid(), "processes": sorted(p for p in os.listdir("/proc") if p.isdigit()),
        "laws": pc.laws.amdahl_speedup(0.1, 4), "cwd": os.getcwd(), "env": sorted(os.environ)}
try:
    from perfcourse.grading.checks import ex03_amdahl
    seen["checks"] = "imported"
except ImportError as err:
    seen["checks"] = "ImportError"
import perfcourse.grading.checks as stub
seen["stub"] = sorted(n for n in vars(stub) if not n.startswith("_"))
for name, path in {"solutions": SOLUTIONS, "class": CLASS, "package": PACKAGE}.items():
    seen[name] = os.path.exists(path)
for name, action in {"fork": os.fork, "write_venv": lambda: open(os.path.join(VENV, "x.pth"), "w"),
                     "net": lambda: socket.create_connection(("1.1.1.1", 53), timeout=2)}.items():
    try:
        action() if name != "fork" else (os._exit(0) if action() == 0 else None)
        seen[name] = "allowed"
    except OSError as err:
        seen[name] = err.errno
print(json.dumps(seen))
'''


@needs_bwrap
def test_a_kernel_sees_the_package_without_its_checks_and_nothing_of_the_course(tmp_path):
    classmate = tmp_path / "class" / "bob" / "03_amdahl.ipynb"
    classmate.parent.mkdir(parents=True)
    classmate.write_text("{}")
    sandbox = Sandbox(hide=[ROOT, tmp_path / "class"])
    try:
        code = (INSIDE.replace("SOLUTIONS", repr(str(ROOT / "solutions"))).replace("CLASS", repr(str(classmate)))
                .replace("PACKAGE", repr(str(Path(perfcourse.__file__).parent / "grading" / "checks" / "_tools.py")))
                .replace("VENV", repr(sys.prefix)))
        proc = sandbox.spawn([sys.executable, "-I", "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = proc.communicate(timeout=120)
    finally:
        sandbox.close()
    seen = json.loads(out.decode().splitlines()[-1])
    assert seen["pid"] == 1 and seen["processes"] == ["1"], seen      # its own PID namespace, and it is pid 1
    assert seen["laws"] == pytest.approx(1 / (0.1 + 0.9 / 4)) and seen["cwd"] == "/tmp/work"
    assert seen["checks"] == "ImportError" and seen["stub"] == ["self_check"]
    assert (seen["solutions"], seen["class"], seen["package"]) == (False, False, False)
    assert seen["fork"] == 1 and seen["write_venv"] == 30 and seen["net"] != "allowed"   # EPERM, EROFS
    assert "HOME" in seen["env"] and not any(k.startswith(("PERFCOURSE_REQUIRE", "PYTEST")) for k in seen["env"])
    assert not sandbox.root.exists()


@needs_bwrap
def test_a_folder_to_hide_inside_the_environment_is_covered_and_the_environment_itself_refused():
    import nbformat

    inside = Path(nbformat.__file__).parent             # a folder of the environment the kernel does not need
    sandbox = Sandbox(hide=[inside])
    try:
        check = f"import os, numpy; print(os.listdir({str(inside)!r}))"
        proc = sandbox.spawn([sys.executable, "-I", "-c", check], stdout=subprocess.PIPE)
        assert proc.communicate(timeout=120)[0].decode().strip() == "[]"
        assert (inside / "__init__.py").is_file()       # hidden from the kernel, untouched here
    finally:
        sandbox.close()
    with pytest.raises(SandboxError, match="cannot hide .* the sandbox runs Python from it"):
        Sandbox(hide=[sys.prefix])


def test_without_bwrap_grading_is_refused_unless_unsafe(monkeypatch):
    from perfcourse.grading import sandbox

    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    with pytest.raises(SandboxError, match="bubblewrap .* --unsafe"):
        Sandbox()
    unsafe = Sandbox(unsafe=True)
    assert unsafe.contained is False
    unsafe.close()


def test_the_process_filter_is_a_valid_bpf_program():
    program = seccomp_filter("x86_64")
    assert len(program) % 8 == 0 and 10 <= len(program) // 8 <= 100
    assert seccomp_filter("aarch64") and seccomp_filter("sparc") is None


# --- values that cross the boundary ------------------------------------------------------------

def test_values_round_trip_as_plain_json():
    value = {"a": np.arange(6.0).reshape(2, 3), 3: (1, None, "x"), "n": [np.float64("inf"), math.nan, True],
             (1, 2): np.array([True, False]), "i": np.int64(7)}
    text = wire.dumps(wire.encode(value))
    back = wire.decode(json.loads(text))
    assert back["a"].tolist() == [[0, 1, 2], [3, 4, 5]] and back[3] == (1, None, "x") and back["i"] == 7
    assert back["n"][0] == math.inf and math.isnan(back["n"][1]) and back[(1, 2)].dtype == bool
    assert "NaN" not in text and "Infinity" not in text


@pytest.mark.parametrize("text", [
    '{"a": 1}', '{"$pickle": "gASV"}', "[NaN]", '{"$array": {"dtype": "object", "shape": [1], "data": [1]}}',
    '{"$array": {"dtype": "int64", "shape": [3], "data": [1, 2]}}', '{"$dict": [[[1], 2]]}',
    '{"$func": {"kind": "knee", "floor": 1, "per_item": 1, "knee": 1}}', "[" * 5000, "1" * 5000])
def test_anything_but_the_plain_forms_is_refused(text):
    with pytest.raises(wire.WireError):
        wire.decode(wire.loads(text, 1 << 20))


def test_messages_over_the_limit_are_refused_before_parsing_and_objects_never_become_data():
    with pytest.raises(wire.WireError, match="longer than 100"):
        wire.loads("[" + "1," * 100 + "1]", 100)
    with pytest.raises(TypeError, match="cannot be sent"):
        wire.encode(object())
    assert wire.encode(object(), lenient=True) == {"$other": "object"}
    assert repr(wire.decode({"$other": "Sneaky"})) == "<a Sneaky object>"
    latency = wire.decode({"$func": {"kind": "knee", "floor": 1.0, "per_item": 0.5, "knee": 3}}, functions=True)
    assert (latency(1), latency(5)) == (1.0, 2.0)


@pytest.mark.parametrize("header, column", [("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", 1),
                                            ("/usr/include/asm-generic/unistd.h", 2)])
def test_the_refused_system_calls_carry_the_kernels_numbers(header, column):
    import re

    from perfcourse.grading import seccomp

    if not os.path.isfile(header):
        pytest.skip(f"no {header} here to compare with")
    numbers = dict(re.findall(r"#define __NR(?:3264)?_(\w+)\s+(\d+)", open(header).read()))
    known = [row for row in seccomp._DENIED if row[0] in numbers]
    assert len(known) >= len(seccomp._DENIED) - 2           # setxattrat is newer than some headers
    assert [row[column] for row in known] == [int(numbers[row[0]]) for row in known]
