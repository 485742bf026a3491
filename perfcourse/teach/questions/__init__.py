"""The self-test question bank: one module per lesson, each defining ``QUESTIONS``."""
