"""pytest collects each pack's YAML rule tests and declared properties (so CI runs them)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lexlogic.logic.memos import Memos

SESSION_MEMOS = Memos()  # the test session owns the memoised computations of the packs' YAML tests


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if (
        file_path.suffix == ".yaml"
        and file_path.parent.name == "tests"
        and (file_path.parent.parent / "pack.yaml").exists()
    ):
        return RuleTestFile.from_parent(parent, path=file_path)
    if file_path.name == "pack.yaml":
        return PackPropertiesFile.from_parent(parent, path=file_path)
    return None


class RuleTestFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from lexlogic.logic.ruletests import load_tests

        for test in load_tests(self.path):
            yield RuleTestItem.from_parent(self, name=test.name, test=test)


class RuleTestItem(pytest.Item):
    def __init__(self, *, test: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.test = test
        # pytest-lsp 1.0.1's runtest wrapper returns without yielding for an item without `funcargs`, which
        # makes pluggy fail every such item ("did not yield"): these items have no fixtures, say so.
        self.funcargs: dict[str, Any] = {}

    def runtest(self) -> None:
        from lexlogic.engine.workbench.ruletests import check_test

        outcome = check_test(self.path.parent.parent, self.test, memos=SESSION_MEMOS)
        if not outcome.passed:
            raise RuleTestFailure("\n".join(outcome.failures))

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, RuleTestFailure):
            return f"{self.test.file}:{self.test.line}: {self.test.name}\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.test.line, f"rule test: {self.name}"


class PackPropertiesFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from lexlogic.engine.packs.library import load_folder
        from lexlogic.engine.workbench.ruletests import pack_properties

        pack = load_folder(self.path.parent).pack
        for spec in pack_properties(pack):
            yield PropertyItem.from_parent(self, name=f"property:{spec.id}", spec=spec)


class PropertyItem(pytest.Item):
    def __init__(self, *, spec: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.funcargs: dict[str, Any] = {}  # see RuleTestItem (pytest-lsp's runtest wrapper)

    def runtest(self) -> None:
        from lexlogic.engine.workbench.ruletests import check_property

        n = int(os.environ.get("LEXLOGIC_PROPERTY_EXAMPLES", "0")) or None
        # the same examples on every CI run (a red CI means the rules changed); `lexlogic test` explores afresh
        check_property(self.path.parent, self.spec, n, derandomize=True, memos=SESSION_MEMOS)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.spec.line, f"property {self.spec.id}: {self.spec.label}"


class RuleTestFailure(AssertionError):
    pass
