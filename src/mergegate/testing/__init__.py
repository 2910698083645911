"""mergegate's test doubles, shipped as public API (like httpx's `MockTransport`).

* `ScriptedBackend` (`mergegate.testing.scripted`): an in-process agent backend that replays
  scripted replies and records every request, for pipelines built on mergegate.
* `ModelServer` (`mergegate.testing.model_server`, `mergegate model-server`): a scripted model
  endpoint on 127.0.0.1 that real agent CLIs talk to (Anthropic Messages, OpenAI Chat
  Completions and Responses).

Nothing in the library imports this package; only tests, benchmarks and the CLI do.
"""

from __future__ import annotations

from mergegate.testing.model_server import ModelServer, Script, Turn, load_script
from mergegate.testing.scripted import ScriptedBackend, ScriptedReply

__all__ = ["ModelServer", "Script", "ScriptedBackend", "ScriptedReply", "Turn", "load_script"]
