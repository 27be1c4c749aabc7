"""The stream Lambda's logic: the consumer that embeds writes in the background, the event
source filter, and tracing. `lambdas/` holds only the handler that calls it.

May import: `table`, `embedders`, `items`, `handlers`.
"""
