import re
import subprocess
import sys
from argparse import Namespace

import pytest

from perfcourse import cli, glossary


def test_enough_terms_each_complete():
    assert len(glossary.TERMS) >= 30
    for t in glossary.TERMS:
        assert t.english and t.chinese and all(t.chinese)
        assert re.search(r"[\u4e00-\u9fff]", " ".join(t.chinese)), t.english
        assert t.definition.endswith(".") and len(t.definition) < 200
        assert t.lesson in glossary.LESSONS
    english = [t.english.lower() for t in glossary.TERMS]
    assert len(english) == len(set(english))


def test_every_lesson_notebook_named_exists_in_the_syllabus_order():
    names = list(glossary.LESSONS.values())
    assert names == sorted(names) and names[0] == "00_start_here" and names[-1] == "10_self_test"


@pytest.mark.parametrize("chinese, english", [
    ("关键路径", "critical path"), ("并行度", "parallelism"), ("串行比例", "serial fraction"),
    ("吞吐", "throughput"), ("延迟", "latency"), ("带宽", "bandwidth"), ("尾延迟", "tail latency"),
    ("算术强度", "arithmetic intensity"), ("强扩展", "strong scaling"), ("弱扩展", "weak scaling"),
    ("排队", "queueing"), ("在途请求数", "in-flight requests"),
])
def test_chinese_terms_find_their_english_pair_first(chinese, english):
    assert glossary.lookup(chinese)[0].english == english


def test_both_efficiency_terms_lead_to_scaling_efficiency():
    for word in ("扩展效率", "并行效率", "Parallel Efficiency"):
        assert glossary.lookup(word)[0].english == "scaling efficiency"


def test_lookup_is_case_insensitive_partial_and_ranked():
    assert glossary.lookup("CRITICAL PATH")[0].english == "critical path"
    assert [t.english for t in glossary.lookup("intens")] == ["arithmetic intensity"]
    assert glossary.lookup("littles law")[0].english == "Little's law"
    assert glossary.lookup("work")[0].english == "work"      # exact match before "workload"
    assert "workload" in [t.english for t in glossary.lookup("work")]
    assert glossary.lookup("no such thing here") == []


@pytest.mark.parametrize("bad, err", [(None, TypeError), (3, TypeError), ("   ", ValueError)])
def test_lookup_validates(bad, err):
    with pytest.raises(err, match="text"):
        glossary.lookup(bad)


def test_describe_and_table():
    text = glossary.describe(glossary.lookup("critical path")[0])
    assert "关键路径" in text and "lesson 02" in text and "02_work_span.ipynb" in text
    table = glossary.table()
    assert len(table.splitlines()) == len(glossary.TERMS) + 1
    assert "在途请求数" in table
    with pytest.raises(TypeError, match="term"):
        glossary.describe("critical path")


def test_command_finds_lists_and_fails_helpfully(capsys):
    assert glossary.run(Namespace(term=["critical", "path"])) == 0
    assert "关键路径" in capsys.readouterr().out
    assert glossary.run(Namespace(term=[])) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(glossary.TERMS) + 1
    assert glossary.run(Namespace(term=["critcal", "path"])) == 1
    err = capsys.readouterr().err
    assert "No glossary term matches" in err and "critical path" in err and "perfcourse glossary" in err


def test_registered_in_the_cli(capsys):
    assert cli.main(["glossary", "尾延迟"]) == 0
    assert "tail latency" in capsys.readouterr().out
    assert cli.main(["glossary", "zzzz"]) == 1
    assert "No glossary term" in capsys.readouterr().err


def test_shell_command_in_either_language():
    res = subprocess.run([sys.executable, "-m", "perfcourse", "glossary", "关键路径"], capture_output=True,
                         text=True, timeout=120, encoding="utf-8")
    assert res.returncode == 0, res.stderr
    assert "critical path" in res.stdout

