"""The ingestion child's files confined, with Landlock (Linux >= 5.13): writes to its own work folder, reads
to what a reading needs (the caller's list).

Why: the child parses untrusted files, as the same user as the server. Without this, a parse subverted by a
hostile file could write anything that user may write (the document cache of every tenant: a reading planted
for any content; the dossiers; the code) and read anything it may read (another tenant's dossier, the
server's /proc/<pid>/environ with its database URL), smuggling it out in its own reading's text. Landlock needs
no privilege (unlike dropping to another user, which needs root and a Python that user can read): once
applied, the process and its children (tesseract) may create, write, truncate, rename or delete files only
beneath ``work`` (and write /dev/null), and, given ``readable``, read only beneath those paths. Running
programs stays allowed (tesseract).

Stdlib + ctypes only. Best effort: a kernel without Landlock leaves the child unconfined, and says so
(`restrict_files` returns False; the child reports it).
"""

from __future__ import annotations

import ctypes
import os

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same numbers on every architecture
_VERSION = 1 << 0  # landlock_create_ruleset flag: ask the ABI version
_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

WRITE_FILE = 1 << 1
READ_FILE, READ_DIR = 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE = 1 << 4, 1 << 5
MAKE = sum(1 << b for b in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3


class _Ruleset(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _writes(abi: int) -> int:
    rights = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    return rights


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = _PathBeneath(rights, fd)
        if libc.syscall(_ADD_RULE, ruleset, _PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule({path})")
    finally:
        os.close(fd)


def abi() -> int:
    """The kernel's Landlock ABI version; 0 without Landlock."""
    libc = ctypes.CDLL(None, use_errno=True)
    return max(0, int(libc.syscall(_CREATE_RULESET, None, 0, _VERSION)))


def restrict_files(work: str, readable: tuple[str, ...] | None = None) -> bool:
    """From now on this process (and what it starts) writes only beneath ``work`` and to /dev/null; with
    ``readable``, it also reads only beneath those paths (files or folders), ``work`` and /dev/null.
    False when the kernel has no Landlock (nothing changed); OSError if applying it failed half-way."""
    libc = ctypes.CDLL(None, use_errno=True)
    abi = libc.syscall(_CREATE_RULESET, None, 0, _VERSION)
    if abi < 1:
        return False
    rights = _writes(abi) | (READ_FILE | READ_DIR if readable is not None else 0)
    attr = _Ruleset(rights)
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        _allow(libc, ruleset, work, rights)
        _allow(libc, ruleset, os.devnull, (WRITE_FILE | READ_FILE | TRUNCATE) & rights)
        for path in readable or ():
            if os.path.exists(path):
                _allow(libc, ruleset, path, READ_FILE | (READ_DIR if os.path.isdir(path) else 0))
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return True
