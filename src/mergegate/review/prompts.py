"""Versioned prompt templates for reviewers and implementers.

Each template is a file in `templates/` named `<name>.v<N>.md`. A prompt records the template's
name, version and sha256, so every report can say exactly which words the agent was given.
Templates use `string.Template` placeholders (`$name`): code under review is full of braces, so
`str.format` would be a trap.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from string import Template

from mergegate.verdicts import verdict_object_example

__all__ = ["PromptTemplate", "RenderedPrompt", "load_template"]

_TEMPLATE_VERSIONS: dict[str, int] = {
    "spec-review": 4,
    "quality-review": 4,
    "retry": 2,
    "fix": 2,
    "rereview-scoped": 1,
    "rereview-full": 1,
    "no-spec": 1,
}


@dataclass(frozen=True)
class RenderedPrompt:
    """A prompt as sent to an agent, with the identity of its template."""

    text: str
    template: str
    version: int
    template_sha256: str


@dataclass(frozen=True)
class PromptTemplate:
    """One versioned template. `render` fills every placeholder or raises `KeyError`."""

    name: str
    version: int
    source: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    def render(self, **values: str) -> RenderedPrompt:
        if "review_id" in values and "scope" in values and "verdict_object" not in values:
            # The example is built from the verdict object's model (and reads back with it).
            example = verdict_object_example(values["review_id"], values["scope"])
            values = {**values, "verdict_object": example}
        text = Template(self.source).substitute(values)
        return RenderedPrompt(text, self.name, self.version, self.sha256)


def load_template(name: str) -> PromptTemplate:
    """Load the current version of a built-in template by name."""
    version = _TEMPLATE_VERSIONS[name]
    filename = f"{name}.v{version}.md"
    source = resources.files(__package__).joinpath("templates", filename).read_text("utf-8")
    return PromptTemplate(name, version, source)
