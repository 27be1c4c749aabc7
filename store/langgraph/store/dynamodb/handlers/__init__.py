"""What both Lambda handlers share (the stream consumer's and the extraction worker's):
their skeleton (`batch`: the loop over a batch, partial batch failures, metrics, logging
and the settings the stack sets), tracing, and the extraction queue's message contract,
which one writes and the other reads. Knows the table's vocabulary, nothing of the store,
the saver or extraction.

May import: `table`.
"""
