#!/usr/bin/env python3
"""A small FCP/1 implementation of two Forge tools: list_directory and read_file.

Standard library only. Written from the specifications, not from the Go
reference, to show a newcomer what an implementation looks like:

  * spec/PROTOCOL.md (FCP/1): JSON Lines on stdin/stdout, one response per
    request, the ops hello, call, definitions, reset and bye.
  * LIST_DIRECTORY_SRD.md v1.1: requirement IDs FR-LD-*, NFR-LD-*, CFG-LD-*.
  * TOOL_EXECUTOR_SRD.md §3.5 (the sandbox, FR-VAL-03..07), §3.6.3-4 (a
    time limit per call, FR-EXE-03, checked as the tools work, FR-EXE-04;
    the limits from [tools.timeouts], CFG-TMO-01) and §3.6.8 (read_file,
    FR-TOOL-READ-01, CFG-READ-01).
  * spec/INTERPRETATIONS.md where the SRDs leave room (I-LD-nn, I-SBX-nn,
    I-RF-nn): the comments name the reading taken.

Run it under the suite:

    go run ./cmd/forge-conform --binary "python3 examples/python/forge_tools.py" \
        --skip-file examples/python/skip.txt
"""

import base64
import codecs
import errno
import fnmatch
import json
import math
import os
import stat
import sys
import time

IMPLEMENTATION = {"name": "forge-tools-python", "version": "0.1.0", "language": "python"}
TOOLS = ["list_directory", "read_file"]
OPS = ["hello", "call", "definitions", "reset", "bye"]


class ToolError(Exception):
    """A ToolError (TOOL_EXECUTOR_SRD §4.1, NFR-ERR-01) as FCP/1's error object."""

    def __init__(self, kind, message, **fields):
        super().__init__(message)
        self.obj = {"kind": kind, "message": message}
        self.obj.update({k: v for k, v in fields.items() if v is not None})


def bad_args(message):
    return ToolError("BadArgs", message)


def failed(tool, message):
    return ToolError("ExecutionFailed", message, tool=tool)


def denied(reason, **fields):
    """SandboxViolation(DenialReason) (NFR-ERR-02); PROTOCOL.md §3.2's `denial`."""
    denial = {"reason": reason}
    denial.update(fields)
    what = fields.get("attempted", "")
    err = ToolError("SandboxViolation", "sandbox violation (%s): %s" % (reason, what))
    err.obj["denial"] = denial
    return err


class Deadline:
    """A call's time limit (FR-EXE-03), fixed when the call starts. Tools call
    check() before each filesystem operation of their work, so a call past its
    limit stops working (FR-EXE-04: long-running work checks its abort
    periodically) instead of walking on."""

    def __init__(self, tool, seconds):
        self.tool, self.seconds = tool, seconds
        self.at = time.monotonic() + seconds

    def passed(self):
        return time.monotonic() >= self.at

    def error(self):
        return ToolError("Timeout", "%s timed out after %gs" % (self.tool, self.seconds), tool=self.tool)

    def check(self):
        if self.passed():
            raise self.error()


def json_text(value):
    """Compact JSON with serde_json's escaping (FR-LD-OUT-02a, I-LD-03): no
    spaces, non-ASCII as UTF-8, control characters as \\n, \\t or \\u00xx."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def is_int(v):
    # JSON Schema's "integer": a number with no fractional part (bool is not one).
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def table(config, name):
    """config.tools.<name> (PROTOCOL.md §3.2: the SRDs' [tools.*] TOML tables as JSON)."""
    tools = (config or {}).get("tools") or {}
    t = tools.get(name) or {}
    return t if isinstance(t, dict) else {}


# ---------------------------------------------------------------------------
# The sandbox (TOOL_EXECUTOR_SRD §3.5)
# ---------------------------------------------------------------------------

DEFAULT_DENIES = ["**/.ssh/**", "**/.gnupg/**", "**/id_rsa*", "**/*.pem", "**/*.key"]  # FR-VAL-05


def glob_match(pattern, path):
    """Doublestar glob on a '/'-separated path (I-SBX-03): `*`, `?` and `[..]`
    stay inside one component, `**` matches zero or more whole components (so
    `**/.ssh/**` matches the .ssh directory itself too)."""
    pat, parts = pattern.split("/"), path.split("/")
    memo = {}

    def match(i, j):
        if (i, j) not in memo:
            if i == len(pat):
                ok = j == len(parts)
            elif pat[i] == "**":
                ok = any(match(i + 1, k) for k in range(j, len(parts) + 1))
            else:
                ok = j < len(parts) and fnmatch.fnmatchcase(parts[j], pat[i]) and match(i + 1, j + 1)
            memo[(i, j)] = ok
        return memo[(i, j)]

    return match(0, 0)


def sandbox_resolve(tool, path, working_dir, config):
    """FR-VAL-04's algorithm, step by step; returns the canonical absolute path
    (FR-VAL-04a) that every later file operation uses."""
    sb = table(config, "sandbox")
    allow_absolute = sb.get("allow_absolute", False)
    # 1. Absolute paths only when allowed; 2. no `..` component. Both are
    # PathOutsideSandbox with attempted = resolved = the path (I-SBX-01).
    if path.startswith("/") and allow_absolute is not True:
        raise denied("PathOutsideSandbox", attempted=path, resolved=path)
    if ".." in path.split("/"):
        raise denied("PathOutsideSandbox", attempted=path, resolved=path)
    # 3. Relative to the working directory.
    base = "/" if path.startswith("/") else working_dir
    comps = [c for c in path.split("/") if c not in ("", ".")]
    # 4. The deepest existing ancestor (existence follows symlinks, I-SBX-02),
    # canonicalized; 5. the missing rest appended unchanged (I-SBX-04).
    i = len(comps)
    while i > 0 and not os.path.exists(os.path.join(base, *comps[:i])):
        i -= 1
    canonical = os.path.realpath(os.path.join(base, *comps[:i]))
    if comps[i:]:
        canonical = os.path.join(canonical, *comps[i:])
    # 6. Contained by an allowed root (canonicalized, relative to working_dir).
    roots = []
    for root in sb.get("allowed_roots", ["."]):
        full = os.path.join(working_dir, root)
        if not os.path.isdir(full):
            raise failed(tool, "sandbox allowed root does not exist: %s" % root)
        roots.append(os.path.realpath(full))
    if not any(canonical == r or canonical.startswith(r.rstrip("/") + "/") for r in roots):
        raise denied("PathOutsideSandbox", attempted=path, resolved=canonical)
    # 7. Denied patterns on the canonical path, the user's first (I-SBX-03).
    patterns = list(sb.get("denied_patterns", []))
    if sb.get("include_default_denies", True):
        patterns += DEFAULT_DENIES
    for pattern in patterns:
        if glob_match(pattern, canonical):
            raise denied("DeniedPatternMatched", attempted=canonical, pattern=pattern)
    return canonical


# ---------------------------------------------------------------------------
# list_directory (LIST_DIRECTORY_SRD.md)
# ---------------------------------------------------------------------------

LIST_DIRECTORY_SCHEMA = {  # FR-LD-VAL, the normative schema
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "recursive": {"type": "boolean", "default": False},
        "max_depth": {"type": "integer", "minimum": 1},
        "max_entries": {"type": "integer", "minimum": 1},
        "include_hidden": {"type": "boolean", "default": False},
        "include_files": {"type": "boolean", "default": True},
        "include_dirs": {"type": "boolean", "default": True},
        "include_symlinks": {"type": "boolean", "default": True},
        "include_other": {"type": "boolean", "default": False},
    },
    "required": ["path"],
}

READ_FILE_SCHEMA = {  # FR-TOOL-READ-01's parameters (u32 line numbers, 1-indexed)
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "start_line": {"type": "integer", "minimum": 1},
        "end_line": {"type": "integer", "minimum": 1},
    },
    "required": ["path"],
}


def validate(schema, args):
    """The little JSON Schema the two tools need (FR-VAL-01): types, minimum, required."""
    if not isinstance(args, dict):
        raise bad_args("arguments must be a JSON object")
    for name in schema["required"]:
        if name not in args:
            raise bad_args("missing required argument %r" % name)
    for name, rule in schema["properties"].items():
        if name not in args:
            continue
        v = args[name]
        kind = rule["type"]
        ok = {"string": isinstance(v, str), "boolean": isinstance(v, bool), "integer": is_int(v)}[kind]
        if not ok:
            raise bad_args("argument %r must be a %s" % (name, kind))
        if "minimum" in rule and v < rule["minimum"]:
            raise bad_args("argument %r must be at least %d" % (name, rule["minimum"]))


def normalize_path(path):
    """FR-LD-VAL-10: forward slashes (the only separator on Unix, I-LD-11),
    no `.` or empty segments, no trailing slash; `.` when nothing is left."""
    segs = [s for s in path.split("/") if s not in ("", ".")]
    if path.startswith("/"):
        return "/" + "/".join(segs)
    return "/".join(segs) or "."


def entry_error_code(err):
    # I-LD-09: EACCES/EPERM, a vanished entry, anything else.
    if err.errno in (errno.EACCES, errno.EPERM):
        return "permission_denied"
    if err.errno == errno.ENOENT:
        return "metadata_unavailable"
    return "io_error"


def short_message(err):
    return os.strerror(err.errno).lower() if err.errno else str(err)


def list_directory(args, ctx, config, deadline):
    validate(LIST_DIRECTORY_SCHEMA, args)
    cfg = table(config, "list_directory")
    cap_entries = cfg.get("max_entries", 200)  # CFG-LD-05 built-in defaults
    cap_depth = cfg.get("max_depth", 4)

    def arg(name):  # FR-LD-VAL-06a: explicit args > config defaults > built-in defaults
        if name in args:
            return args[name]
        return cfg.get(name + "_default", LIST_DIRECTORY_SCHEMA["properties"][name]["default"])

    path = args["path"].strip()
    if not path:  # FR-LD-VAL-01
        raise bad_args("path must not be empty")
    recursive = arg("recursive")
    if not recursive and args.get("max_depth", 1) != 1:  # FR-LD-VAL-02
        raise bad_args("max_depth is only allowed with recursive=true (or must be 1)")
    max_entries = args.get("max_entries", cap_entries)
    if max_entries > cap_entries:  # FR-LD-VAL-04, CFG-LD-02
        raise bad_args("max_entries %d exceeds the configured limit %d" % (max_entries, cap_entries))
    include = {t: arg("include_" + t) for t in ("files", "dirs", "symlinks", "other", "hidden")}
    if not (include["files"] or include["dirs"] or include["symlinks"]):  # FR-LD-VAL-05
        raise bad_args("at least one of include_files, include_dirs, include_symlinks must be true")
    max_depth = int(args.get("max_depth", cap_depth)) if recursive else 1  # FR-LD-VAL-03
    if recursive and max_depth > cap_depth:  # FR-LD-VAL-06b, CFG-LD-03
        raise bad_args("max_depth %d exceeds the configured limit %d" % (max_depth, cap_depth))
    max_entries = int(max_entries)

    # FR-LD-VAL-07: the sandbox before any filesystem access.
    root = sandbox_resolve("list_directory", path, ctx["working_dir"], config)
    # FR-LD-VAL-08, FR-LD-ERR-03: an existing directory, else ExecutionFailed.
    deadline.check()
    try:
        st = os.stat(root)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            raise failed("list_directory", "path does not exist: %s" % path)
        raise failed("list_directory", "cannot access %s: %s" % (path, short_message(e)))
    if not stat.S_ISDIR(st.st_mode):
        raise failed("list_directory", "path is not a directory: %s" % path)
    deadline.check()
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        names = os.listdir(root_fd)
    except OSError as e:
        raise failed("list_directory", "cannot read directory %s: %s" % (path, short_message(e)))

    entries = []  # (sort key, entry object)
    state = {"truncated": False}

    def visit(dir_fd, names, prefix, depth):
        """Depth-first pre-order (FR-LD-LST-05); returns False once max_entries stops it."""
        # NFR-LD-REL-02: names are bytes; order and output use the lossy UTF-8
        # string, ties broken by the raw bytes (I-LD-02).
        raw_names = sorted((os.fsencode(n) for n in names), key=lambda b: (b.decode("utf-8", "replace"), b))
        for raw in raw_names:
            name = raw.decode("utf-8", "replace")
            hidden = name.startswith(".")  # FR-LD-LST-06a
            if hidden and not include["hidden"]:
                continue  # FR-LD-LST-06: omitted, and not traversed
            rel = prefix + name
            deadline.check()  # FR-EXE-03/04: stop once the call's limit has passed
            entry = {"name": name, "path": rel, "depth": depth, "type": "unknown", "size_bytes": None,
                     "modified_epoch_ms": None, "is_hidden": hidden, "error_code": None, "error": None}
            child = None  # (fd, names) of a directory to descend into
            try:
                st = os.lstat(raw, dir_fd=dir_fd)  # no-follow metadata (FR-LD-VAL-09, entry field rules)
            except OSError as e:  # FR-LD-LST-04: still listed, as unknown
                entry["error_code"], entry["error"] = entry_error_code(e), short_message(e)
            else:
                mode = st.st_mode
                entry["type"] = ("file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode)
                                 else "symlink" if stat.S_ISLNK(mode) else "other")
                if entry["type"] == "file":
                    entry["size_bytes"] = st.st_size
                if st.st_mtime_ns >= 0:  # I-LD-10: truncated to ms; before 1970 is null
                    entry["modified_epoch_ms"] = st.st_mtime_ns // 1_000_000
                if entry["type"] == "dir" and depth < max_depth:
                    deadline.check()
                    try:  # O_NOFOLLOW: never follow a symlink swapped in (NFR-LD-SEC-03)
                        fd = os.open(raw, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
                        try:
                            child = (fd, os.listdir(fd))
                        except OSError:
                            os.close(fd)
                            raise
                    except OSError as e:  # FR-LD-LST-08, I-LD-08: the dir's own entry becomes the error
                        entry.update(type="unknown", error_code="read_dir_failed", error=short_message(e))
            # FR-LD-LST-06: type filters decide what is listed and counted;
            # error entries are always listed (I-LD-07). Directories are
            # descended whether or not they are listed (I-LD-06).
            wanted = {"file": include["files"], "dir": include["dirs"], "symlink": include["symlinks"],
                      "other": include["other"]}.get(entry["type"], True)
            if wanted:
                if len(entries) == max_entries:  # FR-LD-LST-07: one more exists (I-LD-04)
                    state["truncated"] = True
                    if child:
                        os.close(child[0])
                    return False
                entries.append(((name, raw), entry))
            if child:
                try:
                    if not visit(child[0], child[1], rel + "/", depth + 1):
                        return False
                finally:
                    os.close(child[0])
        return True

    try:
        visit(root_fd, names, "", 1)
    finally:
        os.close(root_fd)

    # FR-LD-OUT-01: sorted by the lossy path; ties by raw bytes (I-LD-02).
    def path_key(item):
        (_, raw), e = item
        return (e["path"], e["path"].encode("utf-8", "surrogateescape"), raw)

    entries = [e for _, e in sorted(entries, key=path_key)]
    out = render(normalize_path(path), entries, max_entries, ctx,
                 "max_entries" if state["truncated"] else None)
    return out, False  # FR-LD-OUT-04: allow_truncation=false


def render(path, entries, max_entries, ctx, reason):
    """The canonical JSON (FR-LD-OUT-02a: keys in §3.5 order) within
    effective_max = min(max_output_bytes, available_capacity_bytes) bytes
    (FR-LD-OUT-03/05/06/07): the longest prefix that fits (I-LD-05)."""
    effective_max = min(ctx.get("max_output_bytes", 102400), ctx.get("available_capacity_bytes", 65536))
    parts = [json_text(e).encode("utf-8") for e in entries]

    def text(k, reason):
        return (b'{"path":' + json_text(path).encode("utf-8") + b',"entries":[' + b",".join(parts[:k])
                + b'],"returned":%d,"max_entries":%d,"truncated":%s,"truncated_reason":%s}'
                % (k, max_entries, b"true" if reason else b"false",
                   json_text(reason).encode("utf-8")))

    full = text(len(parts), reason)
    if len(full) <= effective_max:
        return full.decode("utf-8")
    lo, hi = -1, len(parts)  # text(lo) fits (lo = -1: nothing fits yet), text(hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if len(text(mid, "max_output_bytes")) <= effective_max:
            lo = mid
        else:
            hi = mid
    if lo < 0:  # FR-LD-OUT-08
        raise failed("list_directory", "output budget too small: %d bytes cannot hold an empty listing"
                     % effective_max)
    return text(lo, "max_output_bytes").decode("utf-8")


# ---------------------------------------------------------------------------
# read_file (TOOL_EXECUTOR_SRD §3.6.8)
# ---------------------------------------------------------------------------

SNIFF_BYTES = 8192
BINARY_HEADER = "[binary:base64]"


def read_file(args, ctx, config, deadline):
    validate(READ_FILE_SCHEMA, args)
    start, end = args.get("start_line"), args.get("end_line")
    if start is not None and end is not None and start > end:
        raise bad_args("start_line (%d) is after end_line (%d)" % (start, end))
    cfg = table(config, "read_file")  # CFG-READ-01
    max_read = cfg.get("max_file_read_bytes", 204800)
    max_scan = cfg.get("max_scan_bytes", 2097152)  # FR-TOOL-READ-01a
    capacity = ctx.get("available_capacity_bytes", 65536)
    read_limit = min(max_read, capacity)
    output_limit = min(ctx.get("max_output_bytes", 102400), capacity)

    path = sandbox_resolve("read_file", args["path"], ctx["working_dir"], config)
    # FR-VAL-06: the canonical path holds no symlink; O_NOFOLLOW refuses one
    # swapped in after validation. O_NONBLOCK: a FIFO must not hang the call.
    deadline.check()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            raise failed("read_file", "file not found: %s" % args["path"])
        raise failed("read_file", "cannot open %s: %s" % (args["path"], short_message(e)))
    if deadline.passed():  # a slow open may have outlived the call's limit (FR-EXE-03)
        os.close(fd)
        raise deadline.error()
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise failed("read_file", "%s is a directory; use list_directory" % args["path"])
        raise failed("read_file", "%s is not a regular file" % args["path"])
    size = st.st_size
    with os.fdopen(fd, "rb") as f:

        # Binary detection: the first 8 KB hold a NUL or do not decode as
        # UTF-8. A character cut by the window's end is not a failure (I-RF-05).
        deadline.check()
        window = f.read(SNIFF_BYTES)
        binary = b"\0" in window
        if not binary:
            try:
                codecs.getincrementaldecoder("utf-8")().decode(window, final=len(window) < SNIFF_BYTES)
            except UnicodeDecodeError:
                binary = True

        if binary:
            if start is not None or end is not None:
                raise bad_args("line ranges are not valid for a binary file")
            return read_binary(f, window, size, output_limit, deadline), False  # FR-TOOL-READ-01b

        f.seek(0)
        if start is None and end is None:
            if size > read_limit:  # instruct the model to use a line range (I-RF-03)
                raise failed("read_file", "file is %d bytes, more than the read limit of %d bytes; read a line "
                             "range with start_line and end_line" % (size, read_limit))
            deadline.check()
            return f.read().decode("utf-8", "replace"), True
        return read_lines(f, start or 1, end, max_scan, deadline), True


def read_lines(f, start, end, max_scan, deadline):
    """Lines start..end, each with its own terminator (I-RF-01), streaming and
    never consuming more than max_scan bytes (FR-TOOL-READ-01a, I-RF-04)."""
    out, scanned, n = [], 0, 0
    while end is None or n < end:
        deadline.check()  # FR-EXE-03/04: a long scan stops at the call's limit
        # A line longer than what is left of the bound comes back cut, and
        # then the count passes the bound: no need to read further.
        line = f.readline(max_scan - scanned + 1)
        if not line:
            break  # EOF: an end_line beyond EOF reads through EOF
        scanned += len(line)
        if scanned > max_scan:
            raise failed("read_file", "reaching line %s means scanning more than %d bytes; narrow the range"
                         % (end if end is not None else "EOF", max_scan))
        n += 1
        if n >= start:
            out.append(line)
    return b"".join(out).decode("utf-8", "replace")


def read_binary(f, window, size, output_limit, deadline):
    """`[binary:base64]` (+ ` [truncated]`), `\\n`, base64 of the longest prefix
    whose output fits output_limit (I-RF-06)."""
    whole = len(BINARY_HEADER) + 1 + 4 * ((size + 2) // 3)
    if whole <= output_limit:
        header, n = BINARY_HEADER, size
    else:
        header = BINARY_HEADER + " [truncated]"
        room = output_limit - len(header) - 1
        if room < 0:
            raise failed("read_file", "output budget too small for a binary file (%d bytes)" % output_limit)
        n = (room // 4) * 3
    data = window[:n]
    if len(data) < n:
        deadline.check()
        data += f.read(n - len(data))
    return header + "\n" + base64.b64encode(data).decode("ascii")


# ---------------------------------------------------------------------------
# FCP/1 (spec/PROTOCOL.md)
# ---------------------------------------------------------------------------

DEFINITIONS = [  # §3.3: sorted by name; FR-LD-DEF-01..04 and read_file's side effects/approval
    {"name": "list_directory", "description": "List directory entries", "parameters": LIST_DIRECTORY_SCHEMA,
     "side_effecting": False, "requires_approval": False, "risk_level": "Low"},
    {"name": "read_file", "description": "Read a file's text (a line range optional), or its bytes as base64",
     "parameters": READ_FILE_SCHEMA, "side_effecting": False, "requires_approval": False, "risk_level": "Low"},
]

TOOL_FUNCS = {"list_directory": list_directory, "read_file": read_file}

# FR-EXE-03: a tool's own timeout() wins, else ctx.default_timeout. read_file's
# own is [tools.timeouts] file_operations_seconds (CFG-TMO-01a); list_directory
# has none (its SRD names no timeout), so it gets default_seconds.
TIMEOUT_KEYS = {"list_directory": "default_seconds", "read_file": "file_operations_seconds"}


def timeout_seconds(config, key):
    """[tools.timeouts] <key> (CFG-TMO-01), 30 s when absent; a value that is
    not a positive number keeps the default, so a call always has a limit."""
    v = table(config, "timeouts").get(key)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < math.inf:
        return v
    return 30


def call(req):
    """§3.2: look the tool up, validate, run with a fresh context."""
    c = req.get("call")
    if not isinstance(c, dict) or not isinstance(c.get("name"), str):
        raise bad_args("call.name is required")
    func = TOOL_FUNCS.get(c["name"])
    if func is None:
        raise ToolError("UnknownTool", "unknown tool %r" % c["name"], tool=c["name"])
    ctx = dict(req.get("ctx") or {})
    wd = ctx.get("working_dir")
    if not isinstance(wd, str) or not wd.startswith("/"):
        raise bad_args("ctx.working_dir must be an absolute path")
    config = req.get("config") or {}
    deadline = Deadline(c["name"], timeout_seconds(config, TIMEOUT_KEYS[c["name"]]))
    try:
        content, allow_truncation = func(c.get("args"), ctx, config, deadline)
    except ToolError:
        # FR-EXE-03: a call that fails after its limit has passed is Timeout,
        # whatever its own failure (a slow open that ends in EIO, say).
        if deadline.passed():
            raise deadline.error() from None
        raise
    return {"ok": True, "content": content, "allow_truncation": allow_truncation}


def handle(line):
    """One request line -> one response object (and whether to exit after it)."""
    try:
        req = json.loads(line)
    except ValueError as e:
        return {"seq": -1, "ok": False, "error": bad_args("request is not valid JSON: %s" % e).obj}, False
    seq = req.get("seq") if isinstance(req, dict) else None
    if not (is_int(seq) and seq >= 0):
        return {"seq": -1, "ok": False, "error": bad_args("request needs an object with an integer seq").obj}, False
    seq = int(seq)
    op = req.get("op")
    try:
        if req.get("fcp") != 1 or isinstance(req.get("fcp"), bool):
            raise bad_args("unsupported protocol version %r: this implementation speaks FCP/1" % req.get("fcp"))
        if op == "hello":
            return {"seq": seq, "fcp": 1, "implementation": IMPLEMENTATION, "tools": TOOLS, "ops": OPS}, False
        if op == "call":
            return dict(seq=seq, **call(req)), False
        if op == "definitions":
            return {"seq": seq, "ok": True, "definitions": DEFINITIONS}, False
        if op == "reset":  # no conversation state to forget
            return {"seq": seq, "ok": True}, False
        if op == "bye":
            return {"seq": seq, "ok": True}, True
        raise bad_args("unknown op %s" % json.dumps(op))
    except ToolError as e:
        return {"seq": seq, "ok": False, "error": e.obj}, False
    except Exception as e:  # a bug here costs one answer, not the session
        print("internal error: %r" % e, file=sys.stderr)
        return {"seq": seq, "ok": False, "error": {"kind": "ExecutionFailed", "message": "internal error: %s" % e}}, False


def main():
    for raw in sys.stdin.buffer:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = "\x00not utf-8"
        response, done = handle(line)
        sys.stdout.buffer.write(json_text(response).encode("utf-8") + b"\n")
        sys.stdout.buffer.flush()
        if done:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
