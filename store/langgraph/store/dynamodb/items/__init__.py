"""What a stored item is: its row and value, filters, the recency index entry, its vectors
(what is embedded, the extra vector rows, the content-hash rule for writing them), the
pinned model, and the namespace registry that lists where items live.

May import: `table`, `embedders`.
"""
