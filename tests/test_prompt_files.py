"""One loader for the versioned prompt templates of review, the implementer and verify
(issue 26, item 4): each package keeps its own names and versions, `PromptFile` reads,
identifies and fills them."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import mergegate
from mergegate.handoff import PromptFile
from mergegate.implementer import _prompts as implementer_prompts
from mergegate.review import prompts as review_prompts
from mergegate.verify import _verifier

SRC = Path(mergegate.__file__).parent


def test_each_package_loads_its_current_templates_through_prompt_file() -> None:
    review = review_prompts.load_template("spec-review")
    implementer = implementer_prompts.load_template("implementer")
    assert isinstance(review, PromptFile)
    assert isinstance(implementer, PromptFile)
    on_disk = SRC / "review" / "templates" / f"spec-review.v{review.version}.md"
    assert review.source == on_disk.read_text("utf-8")
    assert review.sha256 == hashlib.sha256(on_disk.read_bytes()).hexdigest()
    verifier = SRC / "verify" / "templates" / f"verifier.v{_verifier.TEMPLATE_VERSION}.md"
    assert _verifier.template_sha256() == hashlib.sha256(verifier.read_bytes()).hexdigest()


def test_a_placeholder_without_a_value_is_an_error_not_left_in_the_text() -> None:
    template = PromptFile("t", 1, "review $what in ${where}; costs $$5")
    assert template.fill({"what": "a", "where": "b"}) == "review a in b; costs $5"
    with pytest.raises(KeyError):
        template.fill({"what": "a"})


def test_a_missing_template_file_is_an_error() -> None:
    with pytest.raises(FileNotFoundError):
        PromptFile.load("mergegate.review", "no-such-template", 1)


def test_review_and_the_implementer_render_the_one_prompt_type() -> None:
    from mergegate.handoff import RenderedPrompt
    from mergegate.implementer import RenderedPrompt as ImplementerPrompt
    from mergegate.review import RenderedPrompt as ReviewPrompt

    assert ReviewPrompt is ImplementerPrompt is RenderedPrompt
    rendered = review_prompts.load_template("no-spec").render()
    assert isinstance(rendered, RenderedPrompt)
    assert (rendered.template, rendered.version) == ("no-spec", 1)
