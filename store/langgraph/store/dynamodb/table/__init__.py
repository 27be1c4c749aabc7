"""The table: its vocabulary and client plumbing.

Belongs here: every key prefix and attribute name (`schema`), the key codecs of namespaces
and threads, value and TTL encoding, DynamoDB requests (retries, batches, the pool), the
clock, usage metering, errors, the IAM declaration every grant derives from
(`permissions`; the tenant policy built from it is `iam`, at the package's root), the
lifecycle the store and the checkpointer share, every kind of row and how a tenant's
purge erases it (`row_kinds`), the rows a purge erases beyond the namespaces
(`row_sources`; extraction's of a tenant: `extraction_rows`), and the table's spec and
creation. Knows nothing of
LangGraph's items or checkpoints beyond their keys.

May import: nothing else of this library.
"""
