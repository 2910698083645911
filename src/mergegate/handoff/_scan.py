"""The linear JSON object scanner lives in the verdict package (`mergegate.verdicts.scan_objects`:
the verdict parser reads unfenced JSON verdicts with it too); handoff extraction uses the same
one."""

from __future__ import annotations

from mergegate.verdicts import MAX_CANDIDATES, ScanResult, Span, scan_objects

__all__ = ["MAX_CANDIDATES", "ScanResult", "Span", "scan_objects"]
