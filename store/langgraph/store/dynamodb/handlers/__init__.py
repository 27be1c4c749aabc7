"""What both Lambda handlers share (the stream consumer's and the extraction worker's):
the extraction queue's message contract, which one writes and the other reads, and
tracing. Knows the table's vocabulary, nothing of the store, the saver or extraction.

May import: `table`.
"""
