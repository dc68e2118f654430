"""The CKP format: a knowledge file's header in both forms, its fields, dates and limits, and ``_index.md``."""
