"""The operating-system layer under the policy: a network namespace and a seccomp filter, where allowed.

Stdlib + ctypes only (the worker imports it before it takes work). Applied by the worker after its
rlimits and before it announces itself, in this order:

1. ``unshare(CLONE_NEWNET)`` while still root: the worker gets an empty network namespace (no interface
   but a downed loopback), so even a policy bypass reaches no network. Needs CAP_SYS_ADMIN; in a
   container without it this step is skipped and reported.
2. ``prctl(PR_SET_NO_NEW_PRIVS)``: no setuid binary can ever give privileges back.
3. A seccomp filter through the system's libseccomp (``libseccomp.so.2``, loaded with ctypes; no Python
   binding needed): the listed system calls fail with EPERM (the interpreter raises PermissionError,
   the worker survives and the run fails as a policy error). Default action: allow — this is a deny
   list of what a rule never needs, not a full allow list (CPython's own start-up and allocator use
   too many calls for a tight allow list to stay maintainable).

What it does NOT block: reading files that the nobody user may read (open for reading stays allowed,
the policy has no `open` anyway), CPU and memory (rlimits do that), and `mmap`/`brk` (memory is bounded by
RLIMIT_AS). Every step reports what it did in `report()`, which the worker's probe returns.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
from typing import Any

CLONE_NEWNET = 0x40000000
PR_SET_NO_NEW_PRIVS = 38
SCMP_ACT_ALLOW = 0x7FFF0000
O_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
SCMP_CMP_MASKED_EQ = 7


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


# System calls a rule never needs: network, new programs and processes, debugging other processes,
# namespaces, mounts, kernel modules and keys, BPF, perf, and changing identity.
DENIED_SYSCALLS = (
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "sendto",
    "sendmsg",
    "sendmmsg",
    "recvfrom",
    "recvmsg",
    "execve",
    "execveat",
    "fork",
    "vfork",
    "clone3",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kill",
    "tkill",
    "tgkill",
    "mount",
    "umount2",
    "unshare",
    "setns",
    "chroot",
    "pivot_root",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "personality",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "chmod",
    "fchmod",
    "fchmodat",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "mkdir",
    "mkdirat",
    "rmdir",
    "symlink",
    "symlinkat",
    "link",
    "linkat",
    "truncate",
    "ftruncate",
    "io_uring_setup",
    "userfaultfd",
)

_report: dict[str, Any] = {"netns": "not attempted", "no_new_privs": False, "seccomp": "not attempted"}


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def _load(name: str) -> Any:
    try:
        return ctypes.CDLL(name, use_errno=True)
    except OSError:
        return None


# loaded at import, before the worker's limits (no subprocess, no new fd needed later)
_LIBC = _load("libc.so.6") if platform.system() == "Linux" else None
_LIBSECCOMP = _load("libseccomp.so.2") if platform.system() == "Linux" else None


def _libc() -> Any:
    return _LIBC


def unshare_network() -> None:
    """An empty network namespace for this process (needs CAP_SYS_ADMIN: call while still root)."""
    libc = _libc()
    if libc is None:
        _report["netns"] = "unsupported platform"
        return
    if libc.unshare(CLONE_NEWNET) == 0:
        _report["netns"] = "isolated (empty network namespace)"
    else:
        _report["netns"] = f"unavailable ({errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())})"


def install_seccomp() -> None:
    """no_new_privs, then the deny-list filter (EPERM), plus: opening a file for writing fails."""
    libc = _libc()
    if libc is None:
        _report["seccomp"] = "unsupported platform"
        return
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0:
        _report["no_new_privs"] = True
    lib = _LIBSECCOMP
    if lib is None:
        _report["seccomp"] = "unavailable (libseccomp.so.2 not installed)"
        return
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        _report["seccomp"] = "unavailable (seccomp_init failed)"
        return
    denied = []
    try:
        eperm = _act_errno(errno.EPERM)
        for call in DENIED_SYSCALLS:
            nr = lib.seccomp_syscall_resolve_name(call.encode())
            if nr < 0:
                continue  # not on this architecture
            if lib.seccomp_rule_add(ctx, eperm, nr, 0) == 0:
                denied.append(call)
        # open/openat/creat with any write flag: EPERM (reading stays possible)
        for call, argno in (("open", 1), ("openat", 2)):
            nr = lib.seccomp_syscall_resolve_name(call.encode())
            if nr < 0:
                continue
            for flag in (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND):
                cmp = _ArgCmp(argno, SCMP_CMP_MASKED_EQ, flag, flag)
                lib.seccomp_rule_add_array(ctx, eperm, nr, 1, ctypes.byref(cmp))
            denied.append(f"{call}(write)")
        nr = lib.seccomp_syscall_resolve_name(b"creat")
        if nr >= 0 and lib.seccomp_rule_add(ctx, eperm, nr, 0) == 0:
            denied.append("creat")
        rc = lib.seccomp_load(ctx)
        if rc != 0:
            _report["seccomp"] = f"unavailable (seccomp_load: {-rc})"
            return
        _report["seccomp"] = "active"
        _report["denied"] = denied
    finally:
        lib.seccomp_release(ctx)


def report() -> dict[str, Any]:
    """What the OS layer did in this process (for the probe, tests and the audit)."""
    return dict(_report)
