"""`python -m selfdebug` is the same as the `selfdebug` console script."""

import sys

from selfdebug.cli import main

sys.exit(main())
