"""Graded exercises: one source for solutions and exercises, and a grader that runs them.

- :mod:`perfcourse.grading.make` writes ``exercises/`` from ``solutions/`` (``perfcourse
  make-exercises``): the code between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes
  ``raise NotImplementedError()`` and outputs are cleared.
- :mod:`perfcourse.grading.grade` grades submitted notebooks (``perfcourse grade``), found and
  read by :mod:`perfcourse.grading.collect`.
- :mod:`perfcourse.grading.session` grades one notebook: it runs in a kernel
  (:mod:`perfcourse.grading.kernel`, :mod:`perfcourse.grading.runner`) inside a bubblewrap
  sandbox (:mod:`perfcourse.grading.sandbox`), and each part's check runs in the grader's
  process, calling the learner's functions across the boundary with plain data only
  (:mod:`perfcourse.grading.wire`).
- :mod:`perfcourse.grading.checks` holds one module of graded parts per exercise.
- :mod:`perfcourse.grading.report` merges failures into scores and prints the table.

No check, answer or seed enters a learner's process, and the sandbox shows it neither the
checks, the solutions, the other submissions nor the grader. Without bubblewrap the grader
refuses to grade unless told ``unsafe``, and then says that nothing was contained.
"""
