"""The engine that runs strategies over a thread: the extractor, its config and per-tenant
settings, the cursor with its lease, the ledger, the daily budget, the reader of the
checkpointer's rows, and the keys of extraction's rows.

May import: `table`, `embedders`, `items`, `jobs`, `basestore`,
`langgraph.checkpoint.dynamodb`, `recall`, `extraction.strategies`, `extraction.consolidation`.
"""
