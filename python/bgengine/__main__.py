"""``python -m bgengine``: the same as the ``bgengine`` command."""

import sys

from bgengine.cli import main

sys.exit(main())
