"""Recall: the read side of formed memories, on the agent's hot path. The fields a formed
memory's value carries (`fields`), the namespace templates that forming and recalling
memories fill by one rule (`templates`), `recall` (one store round trip, capped in
tokens) and `MemoryRecall`, its `create_agent` middleware. An agent that recalls loads
nothing of extraction.

May import: `table`.
"""
