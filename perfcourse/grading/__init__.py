"""Graded exercises: one source for solutions and exercises, and a grader that runs them.

- :mod:`perfcourse.grading.make` writes ``exercises/`` from ``solutions/`` (``perfcourse
  make-exercises``): the code between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes
  ``raise NotImplementedError()`` and outputs are cleared.
- :mod:`perfcourse.grading.grade` grades submitted notebooks (``perfcourse grade``).
- :mod:`perfcourse.grading.kernel` runs one notebook in a fresh kernel with a time limit, a
  memory limit and an output limit, then runs its checks in the same kernel.
- :mod:`perfcourse.grading.checks` holds one module of graded parts per exercise.

The grader is a teaching tool, not a security sandbox: a submission runs as the user who
starts the grader and can do anything that user can. Run untrusted submissions inside a
container or under a separate account with nothing to lose.
"""
