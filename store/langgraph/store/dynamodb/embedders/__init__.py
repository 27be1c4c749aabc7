"""Embedders: Bedrock models and the rule for a model id, the offline MiniLM model, the
lexical embedder, and building any of them by name.

May import: `table`.
"""
