"""Command agents of the gate-value bench (run by the `command` backend, one process a call)."""
