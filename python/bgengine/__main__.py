"""``python -m bgengine``: the same as the ``bgengine`` command."""

import sys

from bgengine.cli import main

if __name__ == "__main__":      # not when a tool (Sphinx, pkgutil walkers) imports it
    sys.exit(main())
