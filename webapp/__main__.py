"""`python -m webapp` is `pod-playground`."""

import sys

from .cli import main

sys.exit(main())
