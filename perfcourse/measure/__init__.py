"""perfcourse.measure."""
