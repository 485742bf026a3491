"""environment.yml and pyproject.toml must name the same packages."""

import re
import subprocess
import sys
from pathlib import Path

import yaml

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _name(req):
    return re.split(r"[<>=!~ \[;]", req.strip(), maxsplit=1)[0].lower()


def _conda_names():
    """Every package environment.yml installs: conda's, and those only PyPI has (its pip list)."""
    deps = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    pip = next((d["pip"] for d in deps if isinstance(d, dict) and "pip" in d), [])
    return ({_name(d) for d in deps if isinstance(d, str)} - {"python", "pip"}) | {
        _name(p) for p in pip if not p.startswith("-")}


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    wanted |= {_name(r) for r in project["optional-dependencies"]["test"]}
    wanted |= {_name(r) for r in project["optional-dependencies"]["bench"]}    # simpy, for the benchmark
    assert _conda_names() == wanted


def test_environment_yml_installs_the_project():
    assert "- -e ." in (ROOT / "environment.yml").read_text()


def test_ruff_is_clean():
    res = subprocess.run([sys.executable, "-m", "ruff", "check", str(ROOT)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
