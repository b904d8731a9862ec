"""The pack cache on disk (issue 33, cold start): a served pack is the pack a compile gives, an edited file is
never served from an older entry, and a damaged, foreign or unwritable cache only costs a compile."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.packs import disk_cache, library
from lexlogic.engine.packs.library import compile_loaded, gated, load_folder, pack_digest
from lexlogic.logic.pack import RulePack, load_pack
from lexlogic.settings import SHIPPED_RULES


@pytest.fixture(autouse=True)
def no_memory_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each load in these tests goes past the process's own cache, to the disk (as a new process does)."""
    monkeypatch.setattr(library, "_by_digest", _Forgetful())


class _Forgetful(dict):  # type: ignore[type-arg]
    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def _copy(tmp_path: Path, name: str = "late_payment") -> Path:
    folder = tmp_path / "rules" / name
    shutil.copytree(SHIPPED_RULES / name, folder)
    return folder


def _fresh(root: Path) -> tuple[RulePack, CompiledProgram]:
    pack = gated(load_pack(root))
    return pack, compile_loaded(pack)


def _program_view(program: CompiledProgram) -> Any:
    """Everything a program holds, the AST nodes as clingo prints them."""
    rules = [
        (
            {k: v for k, v in vars(r).items() if k not in ("head", "body", "lits", "heads")},
            str(r.head),
            [str(b) for b in r.body],
            [(lit.negated, lit.kind, str(lit.node), lit.ground, lit.text, lit.ground_text) for lit in r.lits],
            [(str(term), ground) for term, ground in r.heads],
        )
        for r in program.rules
    ]
    by_head = {sig: [r.index for r in rs] for sig, rs in program.by_head.items()}
    return (program.text, program.source, rules, by_head, program.defined, program.used, program.inputs,
            program.rule_meta)  # fmt: skip


@pytest.mark.parametrize("name", ["late_payment", "rupture_brutale"])
def test_a_served_pack_is_the_pack_a_compile_gives(tmp_path: Path, name: str) -> None:
    root = (SHIPPED_RULES / name).resolve()
    cache = tmp_path / "cache"
    written = load_folder(root, cache)
    assert len(list(cache.glob("*.pack"))) == 1
    served = disk_cache.read(cache, root, pack_digest(root))
    assert served is not None
    pack, program = _fresh(root)
    assert served[0] == pack == written.pack
    assert _program_view(served[1]) == _program_view(program) == _program_view(written.program)
    assert served[1].rule_meta and all(r.head is not None for r in served[1].rules)  # the AST is back


def _edit_rule(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "public_procurement_regime :- public_buyer." in text
    path.write_text(text.replace("public_procurement_regime :- public_buyer.", "public_procurement_regime :- public_buyer, not prescribed."), encoding="utf-8")  # fmt: skip


def test_an_edited_rule_file_is_never_served_from_an_older_entry(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    cache = tmp_path / "cache"
    before = load_folder(root, cache)
    assert disk_cache.read(cache, root.resolve(), pack_digest(root.resolve())) is not None  # the entry exists
    _edit_rule(root / "defeaters.lp")
    after = load_folder(root, cache)
    assert "public_buyer, not prescribed" in after.program.text
    assert "public_buyer, not prescribed" not in before.program.text
    assert _program_view(after.program) == _program_view(_fresh(root.resolve())[1])
    assert len(list(cache.glob("*.pack"))) == 1  # the new content has its own entry, which replaced the old one
    assert disk_cache.read(cache, root.resolve(), pack_digest(root.resolve())) is not None


def test_a_rule_file_whatever_its_suffix_is_checked_before_an_entry_is_served(tmp_path: Path) -> None:
    """The pack's digest reads the usual suffixes only; the entry checks every file the load read."""
    root = _copy(tmp_path)
    (root / "defeaters.lp").rename(root / "defeaters.asp")
    manifest = root / "pack.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("defeaters.lp", "defeaters.asp"), "utf-8")
    cache = tmp_path / "cache"
    load_folder(root, cache)
    digest = pack_digest(root.resolve())
    _edit_rule(root / "defeaters.asp")
    assert pack_digest(root.resolve()) == digest  # the key alone cannot see this edit …
    assert disk_cache.read(cache, root.resolve(), digest) is None  # … the entry's own check does
    assert "public_buyer, not prescribed" in load_folder(root, cache).program.text


def test_another_code_version_does_not_read_an_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = (SHIPPED_RULES / "late_payment").resolve()
    cache = tmp_path / "cache"
    load_folder(root, cache)
    monkeypatch.setattr(disk_cache, "code_digest", lambda: "another version of the code")
    assert disk_cache.read(cache, root, pack_digest(root)) is None


@pytest.mark.parametrize("damage", ["truncated", "flipped", "garbage", "empty", "world-writable"])
def test_a_damaged_or_foreign_entry_is_compiled_again(tmp_path: Path, damage: str) -> None:
    root = (SHIPPED_RULES / "late_payment").resolve()
    cache = tmp_path / "cache"
    load_folder(root, cache)
    (entry,) = cache.glob("*.pack")
    data = entry.read_bytes()
    if damage == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":
        entry.write_bytes(data[:-100] + bytes([data[-100] ^ 1]) + data[-99:])
    elif damage == "garbage":
        entry.write_bytes(b"\x80\x05not a pack" * 50)
    elif damage == "empty":
        entry.write_bytes(b"")
    else:
        entry.chmod(0o666)
    assert disk_cache.read(cache, root, pack_digest(root)) is None
    again = load_folder(root, cache)
    assert _program_view(again.program) == _program_view(_fresh(root)[1])
    assert disk_cache.read(cache, root, pack_digest(root)) is not None  # compiled, and written whole again


def test_an_unwritable_cache_folder_only_costs_a_compile(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    root = (SHIPPED_RULES / "late_payment").resolve()
    loaded = load_folder(root, blocker / "packs")
    assert _program_view(loaded.program) == _program_view(_fresh(root)[1])
    assert blocker.is_file()


def test_concurrent_writers_and_readers_see_no_partial_entry(tmp_path: Path) -> None:
    root = (SHIPPED_RULES / "late_payment").resolve()
    cache = tmp_path / "cache"
    pack, program = _fresh(root)
    digest = pack_digest(root)
    expected = _program_view(program)
    seen: list[Any] = []
    errors: list[BaseException] = []

    def write() -> None:
        for _ in range(5):
            disk_cache.write(cache, root, digest, pack, program)

    def read() -> None:
        try:
            for _ in range(10):
                got = disk_cache.read(cache, root, digest)
                seen.append(None if got is None else _program_view(got[1]) == expected)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=f) for f in (write, write, read, read)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and False not in seen
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".pack")] == []  # no temporary file left
    assert disk_cache.read(cache, root, digest) is not None


#: a writer killed (SIGKILL) after its entry is written to the temporary file, before it is renamed into place
KILLED_WRITER = """
import os, sys, time
from pathlib import Path
from lexlogic.engine.packs import disk_cache
from lexlogic.engine.packs.library import compile_loaded, gated, pack_digest
from lexlogic.logic.pack import load_pack
root, cache = Path(sys.argv[1]), Path(sys.argv[2])
pack = gated(load_pack(root))
program = compile_loaded(pack)
def hang(src, dst):
    print("written", flush=True)
    time.sleep(120)
disk_cache.os.replace = hang
disk_cache.write(cache, root, pack_digest(root), pack, program)
"""


def test_a_killed_writers_temporary_file_is_swept_by_a_later_write(tmp_path: Path) -> None:
    root, cache = _copy(tmp_path), tmp_path / "cache"
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(root), str(cache)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "written"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    (abandoned,) = cache.glob(".*.tmp")
    assert abandoned.stat().st_size > 10_000  # a whole entry's bytes, never renamed into place
    assert list(cache.glob("*.pack")) == []
    live = cache / ".another-writer.tmp"  # a writer still at work (a fresh file) is left alone
    live.write_bytes(b"x")
    old = abandoned.stat().st_mtime - disk_cache.ABANDONED_AFTER_S - 1
    os.utime(abandoned, (old, old))  # the killed writer's file, as the next writer finds it later
    pack, program = _fresh(root)
    disk_cache.write(cache, root, pack_digest(root), pack, program)
    assert sorted(p.name for p in cache.iterdir() if p.name.startswith(".")) == [live.name]
    assert disk_cache.read(cache, root, pack_digest(root)) is not None
