"""``python -m meanfield``: the command line (:mod:`meanfield.cli`)."""
import sys

from .cli import main

sys.exit(main())
