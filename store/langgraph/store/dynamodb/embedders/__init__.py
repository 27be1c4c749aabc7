"""Embedders: Bedrock models and the rule for a model id, the offline MiniLM model, the
lexical embedder, building any of them by name, and embedding many texts in batches with
retries (`batch`), with the check of what a model returns.

May import: `table`.
"""
