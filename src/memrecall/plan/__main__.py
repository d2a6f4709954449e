"""`python -m memrecall.plan [overrides...]`: the same as `memrecall plan`."""

import sys

from ..errors import MemrecallError
from .build import main

try:
    main(sys.argv[1:])
except MemrecallError as e:
    raise SystemExit(f"error: {e}")
