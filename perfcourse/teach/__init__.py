"""perfcourse.teach."""
