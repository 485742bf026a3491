"""``perfcourse release --out DIR``: the course as learners receive it, with no solution in it.

DIR (new, or empty) gets the lessons (``notebooks/``, ``notebooks/zh/``), the graded exercises
(``exercises/``, ``exercises/zh/``) and a README saying how to install the package and open
them: a folder to commit to the class's repository, to pull with nbgitpuller, or to copy into a
hub image. ``solutions/`` never goes in. Before it finishes, every line of every solution block
(``### BEGIN SOLUTION`` ... ``### END SOLUTION``) of the course's ``solutions/`` that the lessons'
own code does not hold is looked for in what was written; if one is found, DIR is removed again
and the command fails naming it. From a checkout, stale exercises (``perfcourse make-exercises
--check``) are refused too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .._course import course_notebooks
from .._lang import EDITION, _
from . import CommandError

README = """# {title}

The lessons and the graded exercises of the course, as handed out: `notebooks/` (the lessons, from
`00_start_here.ipynb`), `exercises/` (one notebook per graded exercise; its last cell shows the score the
grader would give), and the Chinese edition of both in `zh/`.

## Install the course package, then open the lessons

```bash
python -m pip install "perfcourse @ git+<the course repository's URL>@<tag>"   # or the wheel you were given
jupyter lab notebooks/00_start_here.ipynb
```

`perfcourse doctor` says what the lessons will measure on your machine (a GPU with CuPy, or the CPU).
Work in these notebooks and hand in `exercises/`.
"""


def add_arguments(parser):
    parser.add_argument("--out", required=True, metavar="DIR",
                        help=_("a new or empty folder for the handout: lessons and exercises, no solutions"))
    parser.add_argument("--title", default="perfcourse: fundamentals of GPU and parallel performance",
                        help=_("the handout README's title"))


def _out(path):
    out = Path(path).absolute()
    if out.is_symlink() and not out.exists():
        raise CommandError(_("--out {path} is a symbolic link to nothing; give a new or an empty folder").format(
            path=path), code=2)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CommandError(_("--out must be a new or an empty folder; {path!r} is not").format(path=path), code=2)
    if not out.parent.is_dir():
        raise CommandError(_("--out {path}: the folder {folder} does not exist").format(path=path, folder=out.parent),
                           code=2)
    return out


def solution_lines(solutions, lessons=None):
    """Every non-trivial line inside a solution block of the notebooks in ``solutions``: what must not leak.

    A line the lessons' own code holds (``lessons``, a folder of notebooks) gives nothing away and is
    left out.
    """
    import nbformat

    from ..grading.make import BEGIN, END

    found = set()
    for path in sorted(Path(solutions).glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            inside = False
            for line in cell.source.split("\n") if cell.cell_type == "code" else ():
                marker = line.strip()
                if marker in (BEGIN, END):
                    inside = marker == BEGIN
                elif inside and len(marker) >= 12 and not marker.startswith("#"):
                    found.add(marker)
    if lessons is not None:
        found -= {line.strip() for path in sorted(Path(lessons).glob("*.ipynb"))
                  for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"
                  for line in c.source.split("\n")}
    return found


def leaks(folder, lines):
    """``(file, line)`` for each solution line found in a notebook under ``folder``."""
    import nbformat

    out = []
    for path in sorted(Path(folder).rglob("*.ipynb")):
        code = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
        have = {line.strip() for line in code.split("\n")}
        out += [(path, line) for line in sorted(lines & have)]
    return out


def run(args):
    from .course import checkout_root, source_root

    out = _out(args.out)
    try:
        source = source_root()
    except FileNotFoundError as err:
        raise CommandError(str(err)) from None
    checkout = checkout_root()
    if checkout is not None:
        from ..grading.make import check, plan

        try:
            stale = check(plan(checkout / "solutions", checkout / "exercises"), checkout / "exercises")
        except ValueError as err:
            raise CommandError(str(err)) from None
        if stale:
            raise CommandError(_("exercises/ is not current ({problem}); run `perfcourse make-exercises` first").format(
                problem=stale[0]))
    files = course_notebooks(source, EDITION)
    out.mkdir(exist_ok=True)
    try:
        for src, rel in files:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, out / rel)
        (out / "README.md").write_text(README.format(title=args.title), encoding="utf-8")
        found = (leaks(out, solution_lines(checkout / "solutions", checkout / "notebooks"))
                 if checkout is not None else [])
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    if found:
        shutil.rmtree(out, ignore_errors=True)
        path, line = found[0]
        raise CommandError(_("a solution line is in {file} ({line!r}); nothing was released").format(
            file=path.relative_to(out), line=line))
    lessons = sum(rel.parts[0] == "notebooks" for _src, rel in files)
    print(_("wrote {lessons} lesson and {exercises} exercise notebooks (both editions) and a README to {out}: no "
            "solutions").format(lessons=lessons, exercises=len(files) - lessons, out=out))
    return 0
