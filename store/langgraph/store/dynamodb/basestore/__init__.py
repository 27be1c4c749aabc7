"""The store: `DynamoDBStore`, the read and write paths of a batch, search with and without
a query, the vector index's lifecycle, and configuration from keywords, environment or file.

May import: `table`, `embedders`, `items`, `jobs`.
"""
