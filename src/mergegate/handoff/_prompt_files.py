"""Versioned prompt templates shipped with a package: `<package>/templates/<name>.v<N>.md`.

Review, the implementer and verify each keep their own templates (and their own names and
versions); `PromptFile` is how any of them is read, identified (sha256 of the words) and
filled, and `RenderedPrompt` is a filled one with the identity of its template.
Placeholders are `string.Template`'s (`$name`): prompts quote code and JSON, which are full
of braces, so `str.format` would be a trap. A placeholder without a value is a `KeyError`,
never left in the text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Self

from pydantic import BaseModel, ConfigDict

__all__ = ["PromptFile", "RenderedPrompt"]


class RenderedPrompt(BaseModel):
    """A prompt as sent to an agent, with the identity of its template."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    template: str
    version: int
    template_sha256: str


@dataclass(frozen=True)
class PromptFile:
    """One version of one template: its name, version and words."""

    name: str
    version: int
    source: str

    @classmethod
    def load(cls, package: str, name: str, version: int) -> Self:
        """`<package>/templates/<name>.v<version>.md`, read as UTF-8 from the package's
        resources (so it works from a wheel or a zip as well as from a checkout)."""
        filename = f"{name}.v{version}.md"
        source = resources.files(package).joinpath("templates", filename).read_text("utf-8")
        return cls(name, version, source)

    @property
    def sha256(self) -> str:
        """The hex sha256 of the template's words: which words an agent was given."""
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    def fill(self, values: Mapping[str, str]) -> str:
        """The text with every `$name` replaced; `KeyError` for a placeholder without value."""
        return Template(self.source).substitute(values)

    def render(self, **values: str) -> RenderedPrompt:
        """`fill(values)` with the template's name, version and sha256."""
        return RenderedPrompt(
            text=self.fill(values),
            template=self.name,
            version=self.version,
            template_sha256=self.sha256,
        )
