"""Whole-table jobs, run against the table directly: purge (erase a tenant, with proof),
reindex (embed what is missing or stale), migration (copy into a new table) and per-tenant
storage. Each is resumable or read-only. Only jobs over the whole table Scan it: migration,
and a purge of every tenant or one asked to verify by a Scan (`scan=True`).

May import: `table`, `embedders`, `items`.
"""
