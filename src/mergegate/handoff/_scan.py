"""The linear JSON object scanner lives in `mergegate.verdicts._scan` (the verdict parser reads
unfenced JSON verdicts with it too); handoff extraction uses the same one."""

from __future__ import annotations

from mergegate.verdicts._scan import MAX_CANDIDATES, ScanResult, Span, scan_objects

__all__ = ["MAX_CANDIDATES", "ScanResult", "Span", "scan_objects"]
