"""The common frame of a stage script: user-facing errors without stack traces."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import Callable

from .errors import MemrecallError


def run_stage(main: Callable[[], None]) -> None:
    logging.basicConfig(
        level=os.environ.get("MEMRECALL_LOG", "WARNING"),
        format="%(levelname)s %(name)s: %(message)s",
    )
    started = time.time()
    try:
        main()
    except MemrecallError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    from .timings import record_stage

    record_stage(Path(sys.argv[0]).stem, started, time.time())
