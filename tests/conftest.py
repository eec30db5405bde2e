"""Settings for the whole test run (every directory, every xdist worker).

The cache of loaded cases (studcheck/cases/cache.py) goes to a temporary directory of this run,
not to the user's ~/.cache: set here, at import, so that the xdist workers and every `studcheck`
subprocess the tests start inherit it and share one cache. Removed at exit by the process that made it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from studcheck.cases.cache import CACHE_DIR_ENV

if not os.environ.get(CACHE_DIR_ENV):
    _made = tempfile.mkdtemp(prefix="studcheck-test-cache-")
    os.environ[CACHE_DIR_ENV] = _made
    atexit.register(shutil.rmtree, _made, True)
