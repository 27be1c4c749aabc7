"""Strategies and the seam they share: what a strategy is (`strategy`), what it reads
(`transcript`) and returns (`candidates`), its errors, the one structured model call every
strategy's extract goes through (`model_call`, `structured`), the chat models a
deployment may name (`chat_models`), and the built-in strategies.

May import: `table`, `recall`.
"""
