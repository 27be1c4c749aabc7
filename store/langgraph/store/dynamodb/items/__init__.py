"""What a stored item is: its row and value, filters, the recency index entry, its vectors
(the index settings, what is embedded and how many texts one call takes, the extra vector
rows, the content-hash rule for writing them), the pinned model, and its namespaces (the
registry that lists where items live, `list_namespaces`' conditions).

May import: `table`, `embedders`.
"""
