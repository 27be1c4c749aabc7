"""Whole-table jobs, run against the table directly: purge (erase a tenant, with proof),
reindex (embed what is missing or stale), migration (copy into a new table) and per-tenant
storage. A purge and a reindex resume where a stopped run got to (`resume_markers`), a
migration is safe to run again, storage only reads. Only jobs over the whole table Scan
it: migration, and a purge of every tenant or one asked to verify by a Scan (`scan=True`).

May import: `table`, `embedders`, `items`.
"""
