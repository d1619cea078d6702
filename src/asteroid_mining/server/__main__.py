"""`python -m asteroid_mining.server`: the server with every setting on the command line."""

import sys

from .main import main

sys.exit(main())
