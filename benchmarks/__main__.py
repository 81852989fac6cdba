"""`python -m benchmarks NAME [options]`: one benchmark of the registry; `list` (or nothing) lists
them, `quick` runs the quick set (`make bench`)."""
import sys

from benchmarks.driver import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
