"""The fleet: the worker and `run --queue`'s run workflow (`worker`), the fleet seen from outside
its runs (`admin`), and the roll call's janitor (`janitor`). The top room: over `_runs` (what the
CLI calls) and the rest."""
