"""Benchmarks against the peer stores on the local emulation (`python -m bench`)."""

import os

# The stream consumer's Powertools logs and metrics would flood the benchmark's output.
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
