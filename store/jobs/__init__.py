"""Whole-table jobs, run against the table directly: purge (erase a tenant, with proof),
reindex (embed what is missing or stale), migration (copy into a new table) and per-tenant
storage. Each is resumable or read-only, and none scans the table.

May import: `table`, `embedders`, `items`.
"""
