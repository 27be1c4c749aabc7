"""`python -m bench`: see `bench.run`."""

from .run import main

main()
