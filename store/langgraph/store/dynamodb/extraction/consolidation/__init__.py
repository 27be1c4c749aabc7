"""Consolidation: what a candidate does to the memories already known (`decisions`), the
default consolidator that compares it with the nearest memories (`nearest`), and applying
the decisions through the store (`apply`).

May import: `table`, `items`, `basestore`, `recall`, `extraction.strategies`.
"""
