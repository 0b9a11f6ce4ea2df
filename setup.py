"""Build hooks; everything else about the package is in pyproject.toml.

1. The wheel carries the shipped checkpoints: every ``*.safetensors`` file under the
   repository's ``checkpoints/`` and the model cards beside them (``*.md``) are copied to
   ``choco_envs/checkpoints/`` in the build (``choco_envs.policy.checkpoint.checkpoint_dir``
   looks there first in an install, ``PACKAGED`` in that module). No file is listed by
   name, so a newly shipped file travels without an edit here. A build without a single
   shipped file fails rather than make a wheel whose trained bots are missing. An
   editable install copies nothing: it reads the checkout's ``checkpoints/`` in place.
2. The long description is README.md with its relative links made absolute (to the
   ``Source`` URL of ``[project.urls]``), so they work outside the repository.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the build requirement tomli covers 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent
#: the repository's folder of shipped checkpoints and where the wheel puts it
SHIPPED, PACKAGED = "checkpoints", "choco_envs/checkpoints"
#: the kinds of file carried from checkpoints/: weights (safetensors only) and model cards
CARRIED = (".safetensors", ".md")
#: a markdown link or image target, or an HTML src/href
LINK = re.compile(r"(\]\(|\]:\s*|(?:src|href)=\")([^)\s\"]+)")


def shipped_files(root: Path = ROOT) -> list[Path]:
    """Every file the wheel carries from checkpoints/, relative to that folder."""
    folder = root / SHIPPED
    found = sorted(
        p.relative_to(folder) for p in folder.rglob("*") if p.is_file() and p.suffix in CARRIED
    )
    if not any(p.suffix == ".safetensors" for p in found):
        raise SystemExit(
            f"setup.py: no shipped checkpoint (*.safetensors) under {folder}: a wheel without "
            "them has no trained bots (the sdist must carry checkpoints/, see MANIFEST.in)"
        )
    return found


class BuildWithCheckpoints(build_py):
    """build_py, then the shipped checkpoints and their cards into the package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        for rel in shipped_files():
            target = Path(self.build_lib) / PACKAGED / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / SHIPPED / rel, target)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not self.editable_mode:
            outputs += [str(Path(self.build_lib) / PACKAGED / p) for p in shipped_files()]
        return outputs


def absolute_links(text: str, base: str) -> str:
    """README text with every relative link target made absolute: files under
    ``{base}/blob/main/``, images under ``{base}/raw/main/``, in-page anchors on the
    repository's front page (which shows the README)."""

    def fix(match: re.Match[str]) -> str:
        lead, target = match.group(1), match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            return match.group(0)
        if target.startswith("#"):
            return f"{lead}{base}{target}"
        kind = "raw" if re.search(r"\.(png|svg|jpe?g|gif)$", target.split("#")[0]) else "blob"
        return f"{lead}{base}/{kind}/main/{target.removeprefix('./')}"

    return LINK.sub(fix, text)


def long_description() -> str:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    base = meta["project"]["urls"]["Source"].rstrip("/")
    return absolute_links((ROOT / "README.md").read_text(encoding="utf-8"), base)


setup(
    cmdclass={"build_py": BuildWithCheckpoints},
    long_description=long_description(),
    long_description_content_type="text/markdown",
)
