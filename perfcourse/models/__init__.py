"""perfcourse.models."""
