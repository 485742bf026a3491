"""perfcourse.labs."""
