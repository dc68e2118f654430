"""The ranked router (SPEC §6b) and what it is built of: the analysis of words, BM25F postings over
each file's fields, and the plain BM25 peer that benchmarks measure it against."""
