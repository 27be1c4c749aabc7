"""Benchmarks against the peer stores on the local emulation (`python -m bench`)."""
