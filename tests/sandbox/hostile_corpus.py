"""The hostile-rule corpus: each entry is a rule that tries to escape, exhaust or corrupt, and the
error it must end in (kind, code(s), and a pattern the message must match so that it is CLEAR).

`body(...)` wraps statements in `def rule(facts):`; full sources are written out when the attack
lives at module level.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass

from sandbox.errors import ErrorKind

REFUSED, RUNTIME, LIMIT, OUTPUT = ErrorKind.REFUSED, ErrorKind.RUNTIME, ErrorKind.LIMIT, ErrorKind.OUTPUT
CPU = ("cpu", "wall", "killed")  # a runaway is stopped by the CPU rlimit, or the wall clock if the box is busy
# What stops a bomb depends on where the allocation fails: a Python MemoryError, or the kernel.
MEMORY = ("memory", "killed", "cpu", "wall")


@dataclass(frozen=True)
class Hostile:
    id: str
    category: str
    source: str
    kind: ErrorKind
    codes: tuple[str, ...]
    pattern: str
    output_schema: object = None


def body(code: str) -> str:
    return "def rule(facts):\n" + textwrap.indent(textwrap.dedent(code).strip("\n"), "    ") + "\n"


def H(id: str, category: str, source: str, kind: ErrorKind, codes: str | tuple[str, ...], pattern: str,
      output_schema: object = None) -> Hostile:
    return Hostile(id, category, source, kind, (codes,) if isinstance(codes, str) else codes, pattern, output_schema)


IMPORT = r"imports are not allowed in rules"
UNDERSCORE = r'starts with "_"'
NOT_AVAILABLE = r'name "(\w+)" is not available in rules'
READ_ONLY = r"blocked by the sandbox policy: the input facts are read-only"

CORPUS: list[Hostile] = [
    # ---------------------------------------------------------------- imports, in every spelling
    H("import-plain", "import", "import os\ndef rule(facts):\n    return os.getcwd()\n", REFUSED, "compile", IMPORT + r" \(import os\)"),
    H("import-dotted", "import", "import os.path\ndef rule(facts):\n    return 1\n", REFUSED, "compile", IMPORT),
    H("import-as", "import", "import subprocess as sp\ndef rule(facts):\n    return sp.run(['id'])\n", REFUSED, "compile", IMPORT),
    H("import-from", "import", "from os import system\ndef rule(facts):\n    return system('id')\n", REFUSED, "compile", IMPORT),
    H("import-star", "import", "from os import *\ndef rule(facts):\n    return 1\n", REFUSED, "compile", r"import"),
    H("import-relative", "import", "from . import secrets\ndef rule(facts):\n    return 1\n", REFUSED, "compile", IMPORT),
    H("import-future", "import", "from __future__ import annotations\ndef rule(facts):\n    return 1\n", REFUSED, "compile", IMPORT),
    H("import-in-body", "import", body("import shutil\nreturn shutil.rmtree('/')"), REFUSED, "compile", IMPORT),
    H("import-in-try", "import", body("try:\n    import ctypes\nexcept Exception:\n    pass\nreturn 1"), REFUSED, "compile", IMPORT),
    H("import-importlib", "import", body("import importlib\nreturn importlib.import_module('os')"), REFUSED, "compile", IMPORT),
    H("dunder-import", "import", body("return __import__('os').getcwd()"), REFUSED, "compile", UNDERSCORE),
    H("builtins-import", "import", body("return __builtins__['__import__']('os')"), REFUSED, "compile", UNDERSCORE),
    H("exec-import", "import", body("exec('import os')\nreturn 1"), REFUSED, "compile", r"[Ee]xec"),
    H("eval-import", "import", body("return eval('__import__(\"os\")')"), REFUSED, "compile", r"[Ee]val"),
    H("compile-import", "import", body("return compile('import os', 'x', 'exec')"), REFUSED, "compile", NOT_AVAILABLE),
    H("lambda-import", "import", body("f = lambda: __import__('os')\nreturn f()"), REFUSED, "compile", UNDERSCORE),
    H("import-missing-name", "import", body("return importlib.import_module('os')"), RUNTIME, "exception", r"NameError: name 'importlib' is not defined"),
    # ---------------------------------------------------------------- dunder walks to object.__subclasses__
    H("subclasses-tuple", "dunder", body("return ().__class__.__bases__[0].__subclasses__()"), REFUSED, "compile", UNDERSCORE),
    H("subclasses-mro", "dunder", body("return facts.__class__.__mro__[-1].__subclasses__()"), REFUSED, "compile", UNDERSCORE),
    H("base-list", "dunder", body("return [].__class__.__base__"), REFUSED, "compile", UNDERSCORE),
    H("func-globals", "dunder", body("return rule.__globals__"), REFUSED, "compile", UNDERSCORE),
    H("lambda-code", "dunder", body("return (lambda: 0).__code__"), REFUSED, "compile", UNDERSCORE),
    H("builtin-self", "dunder", body("return sum.__self__.open('/etc/passwd').read()"), REFUSED, "compile", UNDERSCORE),
    H("type-name", "dunder", body("return type(facts).mro()"), REFUSED, "compile", NOT_AVAILABLE),
    H("object-subclasses", "dunder", body("return object.__subclasses__()"), REFUSED, "compile", NOT_AVAILABLE),
    H("init-globals", "dunder", body("return facts.__init__.__globals__"), REFUSED, "compile", UNDERSCORE),
    H("str-dict", "dunder", body("return ''.__class__.__dict__"), REFUSED, "compile", UNDERSCORE),
    H("helper-attr-runtime", "dunder", body("return parse_date.func_globals"), RUNTIME, "policy", r"attribute 'func_globals' of function is not accessible"),
    H("type-attr-runtime", "dunder", body("return str.maketrans"), RUNTIME, "policy", r"attribute 'maketrans' of type is not accessible"),
    # ---------------------------------------------------------------- frames of generators and tracebacks
    H("gen-frame", "frames", body("g = (x for x in [1])\nreturn g.gi_frame.f_back.f_globals"), REFUSED, "compile", r'"gi_frame" is a restricted name'),
    H("gen-code", "frames", body("g = (x for x in [1])\nreturn g.gi_code"), REFUSED, "compile", r'"gi_code" is a restricted name'),
    H("gen-running-runtime", "frames", body("g = (x for x in [1])\nreturn g.gi_running"), RUNTIME, "policy", r"attribute 'gi_running' of generator is not accessible"),
    H("yield", "frames", "def gen():\n    yield 1\ndef rule(facts):\n    return list(gen())\n", REFUSED, "compile", r"generators \(yield\) are not allowed"),
    H("gen-send", "frames", body("g = (x for x in [1])\nreturn g.send(None)"), REFUSED, "compile", r'attribute "\.send" is not allowed'),
    H("traceback-dunder", "frames", body("try:\n    1/0\nexcept Exception as e:\n    return e.__traceback__.tb_frame.f_globals"), REFUSED, "compile", UNDERSCORE),
    H("with-traceback", "frames", body("try:\n    1/0\nexcept Exception as e:\n    return e.with_traceback(None)"), REFUSED, "compile", r'attribute "\.with_traceback" is not allowed'),
    H("tb-frame", "frames", body("tb = facts\nreturn tb.tb_frame.f_locals"), REFUSED, "compile", r'"tb_frame" is a restricted name'),
    H("f-back", "frames", body("return facts.f_back"), REFUSED, "compile", r'"f_back" is a restricted name'),
    H("async-frame", "frames", "async def co():\n    return 1\ndef rule(facts):\n    return co().cr_frame\n", REFUSED, "compile", r"AsyncFunctionDef statements are not allowed"),
    # ---------------------------------------------------------------- str.format / format_map tricks
    H("format-class", "format", body("return '{0.__class__.__mro__}'.format(facts)"), REFUSED, "compile", r'attribute "\.format" is not allowed'),
    H("format-map", "format", body("return '{x.__class__}'.format_map({'x': facts})"), REFUSED, "compile", r'attribute "\.format_map" is not allowed'),
    H("format-bound", "format", body("f = ''.format\nreturn f"), REFUSED, "compile", r'attribute "\.format" is not allowed'),
    H("format-unbound", "format", body("return str.format('{0.__class__}', 1)"), REFUSED, "compile", r'attribute "\.format" is not allowed'),
    H("format-builtin", "format", body("return format(facts, '')"), REFUSED, "compile", NOT_AVAILABLE),
    H("fstring-dunder", "format", body("return f'{facts.__class__}'"), REFUSED, "compile", UNDERSCORE),
    H("format-globals-key", "format", body("return '{0[__builtins__]}'.format(facts)"), REFUSED, "compile", r'attribute "\.format" is not allowed'),
    # ---------------------------------------------------------------- getattr / vars / globals
    H("getattr", "introspection", body("return getattr(facts, '__class__')"), REFUSED, "compile", NOT_AVAILABLE),
    H("vars", "introspection", body("return vars()"), REFUSED, "compile", NOT_AVAILABLE),
    H("globals", "introspection", body("return globals()['__builtins__']"), REFUSED, "compile", NOT_AVAILABLE),
    H("locals", "introspection", body("return locals()"), REFUSED, "compile", NOT_AVAILABLE),
    H("dir", "introspection", body("return dir(facts)"), REFUSED, "compile", NOT_AVAILABLE),
    H("setattr", "introspection", body("setattr(rule, 'x', 1)\nreturn 1"), REFUSED, "compile", NOT_AVAILABLE),
    H("hasattr", "introspection", body("return hasattr(facts, '__class__')"), REFUSED, "compile", NOT_AVAILABLE),
    H("bound-self", "introspection", body("f = facts.get\nreturn f.__self__"), REFUSED, "compile", UNDERSCORE),
    H("class-def", "introspection", "class X:\n    pass\ndef rule(facts):\n    return 1\n", REFUSED, "compile", r"class definitions are not allowed"),
    H("breakpoint", "introspection", body("breakpoint()\nreturn 1"), REFUSED, "compile", NOT_AVAILABLE),
    H("print", "introspection", body("print(facts)\nreturn 1"), REFUSED, "compile", NOT_AVAILABLE),
    # ---------------------------------------------------------------- builtins tampering
    H("builtins-name", "builtins", body("__builtins__['len'] = None\nreturn 1"), REFUSED, "compile", UNDERSCORE),
    H("global-rebind", "builtins", "def rule(facts):\n    global sum\n    sum = None\n    return 1\n", REFUSED, "compile", r"global statements are not allowed"),
    H("builtin-attr-write", "builtins", body("sum.cache = {}\nreturn 1"), RUNTIME, "policy", r"a rule cannot modify a builtin_function_or_method"),
    H("helper-attr-write", "builtins", body("months_between.cache = {}\nreturn 1"), RUNTIME, "policy", r"a rule cannot modify a function"),
    H("date-today", "builtins", body("return date.today()"), RUNTIME, "policy", r"attribute 'today' of type is not accessible"),
    H("del-builtin", "builtins", "del len\ndef rule(facts):\n    return 1\n", RUNTIME, "exception", r"NameError"),
    H("exit", "builtins", body("exit(0)"), REFUSED, "compile", NOT_AVAILABLE),
    H("system-exit", "builtins", body("raise SystemExit(0)"), REFUSED, "compile", NOT_AVAILABLE),
    # ---------------------------------------------------------------- mutation of the input
    H("mutate-setitem", "mutation", body("facts['a'] = 2\nreturn 1"), RUNTIME, "policy", READ_ONLY),
    H("mutate-delitem", "mutation", body("del facts['a']\nreturn 1"), RUNTIME, "policy", READ_ONLY),
    H("mutate-update", "mutation", body("facts.update({'a': 3})\nreturn 1"), RUNTIME, "policy", READ_ONLY + r" \(\.update\(\)"),
    H("mutate-clear", "mutation", body("facts.clear()\nreturn 1"), RUNTIME, "policy", READ_ONLY),
    H("mutate-pop", "mutation", body("return facts.pop('a')"), RUNTIME, "policy", READ_ONLY),
    H("mutate-setdefault", "mutation", body("return facts.setdefault('z', 1)"), RUNTIME, "policy", READ_ONLY),
    H("mutate-list-append", "mutation", body("facts['items'].append(4)\nreturn 1"), RUNTIME, "policy", READ_ONLY),
    H("mutate-list-setitem", "mutation", body("facts['items'][0] = 9\nreturn 1"), RUNTIME, "policy", READ_ONLY),
    H("mutate-list-sort", "mutation", body("facts['items'].sort()\nreturn 1"), RUNTIME, "policy", READ_ONLY),
    H("mutate-nested", "mutation", body("facts['nested']['x'] = 0\nreturn 1"), RUNTIME, "policy", READ_ONLY),
    H("mutate-augassign-item", "mutation", body("facts['items'] += [1]\nreturn 1"), REFUSED, "compile", r"Augmented assignment of object items"),
    H("mutate-swallowed", "mutation", body("try:\n    facts['a'] = 2\nexcept:\n    pass\nreturn facts['a']"), RUNTIME, "policy", READ_ONLY),
    # ---------------------------------------------------------------- infinite loops
    H("loop-while", "loop", body("while True:\n    pass"), LIMIT, CPU, r"(CPU time limit|wall-clock timeout|killed)"),
    H("loop-range", "loop", body("for i in range(10**12):\n    pass\nreturn 1"), LIMIT, CPU, r"(CPU time limit|wall-clock timeout|killed)"),
    H("loop-c-sum", "loop", body("return sum(range(10**14))"), LIMIT, CPU, r"(CPU time limit|wall-clock timeout|killed)"),
    H("loop-module-level", "loop", "while 1:\n    pass\ndef rule(facts):\n    return 1\n", LIMIT, CPU, r"(CPU time limit|wall-clock timeout|killed)"),
    H("loop-swallow", "loop", body("while True:\n    try:\n        x = 1\n    except:\n        pass"), LIMIT, CPU, r"(CPU time limit|wall-clock timeout|killed)"),
    H("bigint-power", "loop", body("return 10**10**8 % 7"), LIMIT, CPU + ("memory",), r"(CPU time limit|wall-clock timeout|killed|memory limit)"),
    # ---------------------------------------------------------------- deep recursion
    H("recursion", "recursion", body("def f(n):\n    return f(n + 1)\nreturn f(0)"), LIMIT, "recursion", r"recursion limit exceeded"),
    H("recursion-mutual", "recursion", body("def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nreturn f(0)"), LIMIT, "recursion", r"recursion limit exceeded"),
    H("recursion-lambda", "recursion", "f = lambda n: f(n + 1)\ndef rule(facts):\n    return f(0)\n", LIMIT, "recursion", r"recursion limit exceeded"),
    H("recursion-repr", "recursion", body("a = []\nfor _ in range(100000):\n    a = [a]\nreturn str(a)"), LIMIT, "recursion", r"recursion limit exceeded"),
    H("recursion-output", "recursion", body("a = []\nfor _ in range(100000):\n    a = [a]\nreturn a"), LIMIT, "recursion", r"recursion limit exceeded"),
    H("nested-source", "recursion", "def rule(facts):\n    return " + "(" * 300 + "1" + ")" * 300 + "\n", REFUSED, "compile", r"(too many nested|syntax error|nested)"),
    # ---------------------------------------------------------------- memory bombs
    H("mem-str", "memory", body("return len('x' * 10**10)"), LIMIT, MEMORY, r"(memory limit|killed)"),
    H("mem-list-mult", "memory", body("return len([0] * 10**10)"), LIMIT, MEMORY, r"(memory limit|killed)"),
    H("mem-list-range", "memory", body("return len(list(range(10**9)))"), LIMIT, MEMORY, r"(memory limit|killed)"),
    H("mem-dict-comp", "memory", body("return len({i: i for i in range(10**8)})"), LIMIT, MEMORY, r"(memory limit|killed)"),
    H("mem-doubling", "memory", body("a = ['x']\nwhile True:\n    a = a + a"), LIMIT, MEMORY, r"(memory limit|killed|CPU)"),
    H("mem-center", "memory", body("return len('ab'.center(10**10))"), LIMIT, MEMORY, r"(memory limit|killed)"),
    H("mem-join", "memory", body("return len('-'.join(['xxxxxxxx'] * 10**8))"), LIMIT, MEMORY, r"(memory limit|killed)"),
    H("mem-module-level", "memory", "BIG = 'x' * 10**10\ndef rule(facts):\n    return 1\n", LIMIT, MEMORY, r"(memory limit|killed)"),
    # ---------------------------------------------------------------- huge outputs
    H("out-str", "output", body("return 'x' * (2 * 10**6)"), LIMIT, "output_size", r"exceeds the cap of 1000000 bytes"),
    H("out-list", "output", body("return list(range(10**6))"), LIMIT, "output_size", r"exceeds the cap"),
    H("out-dict", "output", body("return {str(i): i for i in range(200000)}"), LIMIT, "output_size", r"exceeds the cap"),
    H("out-echo", "output", body("return [facts] * 100000"), LIMIT, "output_size", r"exceeds the cap"),
    # ---------------------------------------------------------------- invalid outputs
    H("out-function", "output", body("return lambda: 1"), OUTPUT, "not_json", r"function is not JSON-serialisable"),
    H("out-nan", "output", body("return float('nan')"), OUTPUT, "not_json", r"not JSON-serialisable"),
    H("out-set", "output", body("return {1, 2}"), OUTPUT, "not_json", r"set is not JSON-serialisable"),
    H("out-tuple-key", "output", body("return {(1, 2): 3}"), OUTPUT, "not_json", r"not JSON-serialisable"),
    H("out-schema-type", "output", body("return {'eligible': 'yes'}"), OUTPUT, "schema", r"\$\.eligible: Input should be a valid boolean", {"eligible": "bool"}),
    H("out-schema-extra", "output", body("return {'eligible': True, 'secret': facts}"), OUTPUT, "schema", r"\$\.secret: Extra inputs are not permitted", {"eligible": "bool"}),
    # ---------------------------------------------------------------- fork attempts
    H("fork-os", "fork", body("import os\nreturn os.fork()"), REFUSED, "compile", IMPORT),
    H("fork-dunder", "fork", body("return __import__('os').fork()"), REFUSED, "compile", UNDERSCORE),
    H("fork-subprocess", "fork", "import subprocess\ndef rule(facts):\n    return subprocess.Popen(['sh'])\n", REFUSED, "compile", IMPORT),
    H("fork-multiprocessing", "fork", "from multiprocessing import Process\ndef rule(facts):\n    return 1\n", REFUSED, "compile", IMPORT),
    H("fork-bare", "fork", body("return fork()"), RUNTIME, "exception", r"NameError: name 'fork' is not defined"),
    H("fork-system", "fork", body("return os.system('sh')"), RUNTIME, "exception", r"NameError: name 'os' is not defined"),
    # ---------------------------------------------------------------- signals
    H("signal-import", "signal", "import signal\ndef rule(facts):\n    signal.alarm(1)\n    return 1\n", REFUSED, "compile", IMPORT),
    H("signal-from", "signal", "from signal import SIGKILL\ndef rule(facts):\n    return 1\n", REFUSED, "compile", IMPORT),
    H("signal-kill-parent", "signal", body("import os\nos.kill(os.getppid(), 9)\nreturn 1"), REFUSED, "compile", IMPORT),
    H("signal-bare", "signal", body("signal.alarm(1)\nreturn 1"), RUNTIME, "exception", r"NameError: name 'signal' is not defined"),
    # ---------------------------------------------------------------- files
    H("file-open", "file", body("return open('/etc/passwd').read()"), REFUSED, "compile", NOT_AVAILABLE),
    H("file-write", "file", body("with open('/tmp/pwned', 'w') as f:\n    f.write('x')\nreturn 1"), REFUSED, "compile", NOT_AVAILABLE),
    H("file-io", "file", "import io\ndef rule(facts):\n    return io.open('/etc/passwd').read()\n", REFUSED, "compile", IMPORT),
    H("file-pathlib", "file", "from pathlib import Path\ndef rule(facts):\n    return Path('/etc/passwd').read_text()\n", REFUSED, "compile", IMPORT),
    H("file-legacy", "file", body("return file('/etc/passwd')"), RUNTIME, "exception", r"NameError: name 'file' is not defined"),
    # ---------------------------------------------------------------- sockets
    H("socket-import", "socket", "import socket\ndef rule(facts):\n    return socket.create_connection(('127.0.0.1', 5432))\n", REFUSED, "compile", IMPORT),
    H("socket-from", "socket", "from socket import socket\ndef rule(facts):\n    return 1\n", REFUSED, "compile", IMPORT),
    H("socket-urllib", "socket", "import urllib.request\ndef rule(facts):\n    return urllib.request.urlopen('http://127.0.0.1')\n", REFUSED, "compile", IMPORT),
    H("socket-http", "socket", body("import http.client\nreturn 1"), REFUSED, "compile", IMPORT),
    # ---------------------------------------------------------------- malformed rules
    H("no-rule", "shape", "def other(facts):\n    return 1\n", REFUSED, "compile", r"a rule must define `def rule\(facts\):`"),
    H("rule-rebound", "shape", "def rule(facts):\n    return 1\nrule = 5\n", RUNTIME, "no_rule", r"does not define a callable `rule`"),
    H("huge-source", "shape", "def rule(facts):\n    return 1\n" + "#" * 70_000 + "\n", REFUSED, "compile", r"rule source exceeds"),
    H("nonlocal", "shape", body("x = 1\ndef f():\n    nonlocal x\n    x = 2\nf()\nreturn x"), REFUSED, "compile", r"Nonlocal statements are not allowed"),
]

FACTS = {"a": 1, "items": [3, 1, 2], "nested": {"x": 1}, "relation_start": "2015-01-01"}
