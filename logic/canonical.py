"""A stable hash of JSON-like data (sorted keys): cache keys and the loop detector's state identity."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_hash(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str, ensure_ascii=False).encode()).hexdigest()
