"""The table: its vocabulary and client plumbing.

Belongs here: every key prefix and attribute name (`schema`), the key codecs of namespaces
and threads, value and TTL encoding, DynamoDB requests (retries, batches, the pool), usage
metering, errors, the IAM declaration, and the table's spec and creation. Knows nothing of
LangGraph's items or checkpoints beyond their keys.

May import: nothing else of this library.
"""
