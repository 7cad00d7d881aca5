"""``python -m meanfield.cli``."""
import sys

from . import main

sys.exit(main())
