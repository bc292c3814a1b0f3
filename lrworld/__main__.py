"""`python -m lrworld`: the same command line as the `lrworld` console script."""

import sys

from lrworld.cli import main

sys.exit(main())
