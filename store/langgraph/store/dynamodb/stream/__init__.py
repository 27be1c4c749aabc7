"""The stream Lambda's logic: the consumer that embeds writes in the background and
forgets the namespaces the TTL sweep empties (`consumer`), the event source filter its
mapping and the emulation both apply (`event_filter`), and the routing of threads' new
checkpoints to the extraction queue (`router`). Tracing and the queue's message contract,
which the extraction Lambda shares, are in `handlers`. `lambdas/embedder/` holds only the
handler that calls it.

May import: `table`, `embedders`, `items`, `handlers`.
"""
