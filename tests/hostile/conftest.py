"""The hostile suite runs the real app (SQLite and PostgreSQL) with the API tests' two tenants."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import EXAMPLE, Api, make_api  # noqa: F401 - re-exported for the tests


@pytest.fixture
def api(db_url: str, tmp_path: Path) -> Iterator[Api]:
    yield from make_api(db_url, tmp_path)
