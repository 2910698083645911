"""Versioned prompt templates for reviewers and implementers.

Each template is a file in `templates/` named `<name>.v<N>.md`, read and filled by
`mergegate.handoff.PromptFile` (`string.Template` placeholders, `$name`). A prompt records the
template's name, version and sha256, so every report can say exactly which words the agent was
given.
"""

from __future__ import annotations

from dataclasses import dataclass

from mergegate.handoff import PromptFile, RenderedPrompt
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
class PromptTemplate(PromptFile):
    """One versioned template. `render` fills every placeholder or raises `KeyError`."""

    def render(self, **values: str) -> RenderedPrompt:
        if "review_id" in values and "scope" in values and "verdict_object" not in values:
            # The example is built from the verdict object's model (and reads back with it).
            example = verdict_object_example(values["review_id"], values["scope"])
            values = {**values, "verdict_object": example}
        return super().render(**values)


def load_template(name: str) -> PromptTemplate:
    """Load the current version of a built-in template by name."""
    return PromptTemplate.load(__package__, name, _TEMPLATE_VERSIONS[name])
