"""The ids mergegate makes up, in one place (STYLE rule 22: compose an id in one place).

Two kinds of run have ids of different shapes, on purpose:

* a **run** of the engine (`mergegate run`) is `YYYYmmdd-HHMMSS-xxxx`: it sorts by start time
  in `mergegate status`, and it is a valid git branch component (`mergegate/<run>`);
* a **check run** (one `mergegate review` or `mergegate verify`, or the verification the
  engine records for a phase) is 12 hex digits: it only names a report folder, and two checks
  started in the same second must not collide.

Both formats are persisted (folder names, database rows, branch names): changing one breaks
`resume` of the runs already recorded.

Layer L0: the standard library only.
"""

from __future__ import annotations

import secrets
import time
import uuid

__all__ = ["new_check_run_id", "new_run_id"]


def new_run_id() -> str:
    """A run id that sorts by start time and is a valid git branch component."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def new_check_run_id() -> str:
    """The id of one review or verification run: 12 random hex digits."""
    return uuid.uuid4().hex[:12]
