"""Where the external first-order provers are, and how far a Tweety query may go.

Built at the edge from the one ``Settings`` (``FolTools.from_settings``) and passed to the FOL bridges,
so no bridge reads ``LEXLOGIC_EPROVER`` or ``LEXLOGIC_TWEETY_*`` itself; the default finds ``eprover``
on PATH and has no Tweety jars.
"""

from __future__ import annotations

import glob
import os
import shutil
from dataclasses import dataclass

from lexlogic.settings import Settings


@dataclass(frozen=True)
class FolTools:
    eprover: str | None = None  # the E prover binary; None: `eprover` on PATH
    tweety_classpath: str = ""  # os.pathsep-separated jar files, folders or globs
    tweety_seconds: float = 60.0  # deadline of one Tweety query (its child process)
    tweety_memory_mb: int = 512  # the child JVM's heap (-Xmx)

    @classmethod
    def from_settings(cls, settings: Settings) -> FolTools:
        return cls(
            eprover=settings.eprover,
            tweety_classpath=settings.tweety_classpath,
            tweety_seconds=settings.tweety_timeout,
            tweety_memory_mb=settings.tweety_memory_mb,
        )

    def eprover_binary(self) -> str | None:
        return self.eprover or shutil.which("eprover")

    def tweety_jars(self) -> list[str]:
        """The jar files the classpath names (files, every jar of a folder, or the matches of a glob)."""
        jars: list[str] = []
        for part in filter(None, self.tweety_classpath.split(os.pathsep)):
            if os.path.isdir(part):
                jars += sorted(glob.glob(os.path.join(part, "*.jar")))
            elif any(ch in part for ch in "*?["):
                jars += sorted(glob.glob(part))
            elif os.path.isfile(part):
                jars.append(part)
        return jars
