#!/usr/bin/env node
// A small FCP/1 implementation of two Forge tools: list_directory and read_file.
//
// Node's standard library only. Written from the specifications, not from the
// Go reference, to show a newcomer what an implementation looks like:
//
//   * spec/PROTOCOL.md (FCP/1): JSON Lines on stdin/stdout, one response per
//     request, the ops hello, call, definitions, reset and bye.
//   * LIST_DIRECTORY_SRD.md v1.1: requirement IDs FR-LD-*, NFR-LD-*, CFG-LD-*.
//   * TOOL_EXECUTOR_SRD.md §3.5 (the sandbox, FR-VAL-03..07), §3.6.3-4 (a
//     time limit per call, FR-EXE-03, checked as the tools work, FR-EXE-04;
//     the limits from [tools.timeouts], CFG-TMO-01) and §3.6.8 (read_file,
//     FR-TOOL-READ-01, CFG-READ-01).
//   * spec/INTERPRETATIONS.md where the SRDs leave room (I-LD-nn, I-SBX-nn,
//     I-RF-nn): the comments name the reading taken.
//
// Run it under the suite:
//
//   go run ./cmd/forge-conform --binary "node examples/node/forge_tools.js" \
//       --skip-file examples/node/skip.txt
'use strict';

const fs = require('fs');
const path = require('path');

const IMPLEMENTATION = { name: 'forge-tools-node', version: '0.1.0', language: 'javascript' };
const TOOLS = ['list_directory', 'read_file'];
const OPS = ['hello', 'call', 'definitions', 'reset', 'bye'];

// A ToolError (TOOL_EXECUTOR_SRD §4.1, NFR-ERR-01) as FCP/1's error object.
class ToolError extends Error {
  constructor(kind, message, fields = {}) {
    super(message);
    this.obj = { kind, message, ...fields };
  }
}
const badArgs = (message) => new ToolError('BadArgs', message);
const failed = (tool, message) => new ToolError('ExecutionFailed', message, { tool });
// SandboxViolation(DenialReason) (NFR-ERR-02); PROTOCOL.md §3.2's `denial`.
const denied = (reason, fields) =>
  new ToolError('SandboxViolation', `sandbox violation (${reason}): ${fields.attempted}`, {
    denial: { reason, ...fields },
  });

// A call's time limit (FR-EXE-03), fixed when the call starts. Tools call
// check() before each filesystem operation of their work, so a call past its
// limit stops working (FR-EXE-04: long-running work checks its abort
// periodically) instead of walking on.
class Deadline {
  constructor(tool, seconds) {
    this.tool = tool;
    this.seconds = seconds;
    this.at = performance.now() + seconds * 1000;
  }

  passed() { return performance.now() >= this.at; }

  error() {
    return new ToolError('Timeout', `${this.tool} timed out after ${this.seconds}s`, { tool: this.tool });
  }

  check() {
    if (this.passed()) throw this.error();
  }
}

// Lossy UTF-8 (NFR-LD-REL-02): the WHATWG decoder puts one U+FFFD per maximal
// ill-formed subpart (I-LD-01). ignoreBOM keeps a leading U+FEFF in a name.
const lossy = new TextDecoder('utf-8', { ignoreBOM: true });
const decode = (buf) => lossy.decode(buf);
// Order strings as UTF-8 bytes (Rust's str order); JavaScript's `<` compares
// UTF-16 code units, which differs above U+FFFF.
const utf8Compare = (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

const isInt = (v) => typeof v === 'number' && Number.isInteger(v);
// config.tools.<name> (PROTOCOL.md §3.2: the SRDs' [tools.*] TOML tables as JSON).
function table(config, name) {
  const t = ((config || {}).tools || {})[name];
  return t && typeof t === 'object' && !Array.isArray(t) ? t : {};
}
const get = (obj, key, dflt) => (Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : dflt);
const shortMessage = (err) => (err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied'
  : err.code === 'ENOENT' ? 'no such file or directory'
    : err.code === 'EIO' ? 'input/output error' : String(err.code || err.message).toLowerCase());

// ---------------------------------------------------------------------------
// The sandbox (TOOL_EXECUTOR_SRD §3.5)
// ---------------------------------------------------------------------------

const DEFAULT_DENIES = ['**/.ssh/**', '**/.gnupg/**', '**/id_rsa*', '**/*.pem', '**/*.key']; // FR-VAL-05

// One path component against one glob component: `*`, `?` and `[..]` never cross `/`.
function componentRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[' && glob.indexOf(']', i + 2) > 0) {
      const close = glob.indexOf(']', i + 2);
      let body = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
      if (body[0] === '!') body = '^' + body.slice(1);
      re += `[${body}]`;
      i = close;
    } else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

// Doublestar glob on a '/'-separated path (I-SBX-03): `**` matches zero or
// more whole components, so `**/.ssh/**` matches the .ssh directory itself too.
function globMatch(pattern, p) {
  const pat = pattern.split('/');
  const parts = p.split('/');
  const memo = new Map();
  const match = (i, j) => {
    const key = i * (parts.length + 1) + j;
    if (!memo.has(key)) {
      let ok;
      if (i === pat.length) ok = j === parts.length;
      else if (pat[i] === '**') {
        ok = false;
        for (let k = j; k <= parts.length && !ok; k++) ok = match(i + 1, k);
      } else ok = j < parts.length && componentRegExp(pat[i]).test(parts[j]) && match(i + 1, j + 1);
      memo.set(key, ok);
    }
    return memo.get(key);
  };
  return match(0, 0);
}

// FR-VAL-04's algorithm, step by step; returns the canonical absolute path
// (FR-VAL-04a) that every later file operation uses.
function sandboxResolve(tool, p, workingDir, config) {
  const sb = table(config, 'sandbox');
  // 1. Absolute paths only when allowed; 2. no `..` component. Both are
  // PathOutsideSandbox with attempted = resolved = the path (I-SBX-01).
  if (p.startsWith('/') && get(sb, 'allow_absolute', false) !== true) {
    throw denied('PathOutsideSandbox', { attempted: p, resolved: p });
  }
  if (p.split('/').includes('..')) throw denied('PathOutsideSandbox', { attempted: p, resolved: p });
  // 3. Relative to the working directory.
  const base = p.startsWith('/') ? '/' : workingDir;
  const comps = p.split('/').filter((c) => c !== '' && c !== '.');
  // 4. The deepest existing ancestor (existence follows symlinks, I-SBX-02),
  // canonicalized; 5. the missing rest appended unchanged (I-SBX-04).
  let i = comps.length;
  while (i > 0 && !fs.existsSync(path.join(base, ...comps.slice(0, i)))) i--;
  let canonical = fs.realpathSync(path.join(base, ...comps.slice(0, i)));
  if (i < comps.length) canonical = path.join(canonical, ...comps.slice(i));
  // 6. Contained by an allowed root (canonicalized, relative to working_dir).
  const roots = get(sb, 'allowed_roots', ['.']).map((r) => {
    const full = path.resolve(workingDir, r);
    if (!fs.existsSync(full)) throw failed(tool, `sandbox allowed root does not exist: ${r}`);
    return fs.realpathSync(full);
  });
  const inside = (r) => canonical === r || canonical.startsWith(r.replace(/\/+$/, '') + '/');
  if (!roots.some(inside)) throw denied('PathOutsideSandbox', { attempted: p, resolved: canonical });
  // 7. Denied patterns on the canonical path, the user's first (I-SBX-03).
  const patterns = [...get(sb, 'denied_patterns', [])];
  if (get(sb, 'include_default_denies', true)) patterns.push(...DEFAULT_DENIES);
  for (const pattern of patterns) {
    if (globMatch(pattern, canonical)) throw denied('DeniedPatternMatched', { attempted: canonical, pattern });
  }
  return canonical;
}

// ---------------------------------------------------------------------------
// list_directory (LIST_DIRECTORY_SRD.md)
// ---------------------------------------------------------------------------

const LIST_DIRECTORY_SCHEMA = { // FR-LD-VAL, the normative schema
  type: 'object',
  properties: {
    path: { type: 'string' },
    recursive: { type: 'boolean', default: false },
    max_depth: { type: 'integer', minimum: 1 },
    max_entries: { type: 'integer', minimum: 1 },
    include_hidden: { type: 'boolean', default: false },
    include_files: { type: 'boolean', default: true },
    include_dirs: { type: 'boolean', default: true },
    include_symlinks: { type: 'boolean', default: true },
    include_other: { type: 'boolean', default: false },
  },
  required: ['path'],
};

const READ_FILE_SCHEMA = { // FR-TOOL-READ-01's parameters (u32 line numbers, 1-indexed)
  type: 'object',
  properties: {
    path: { type: 'string' },
    start_line: { type: 'integer', minimum: 1 },
    end_line: { type: 'integer', minimum: 1 },
  },
  required: ['path'],
};

// The little JSON Schema the two tools need (FR-VAL-01): types, minimum, required.
function validate(schema, args) {
  if (!args || typeof args !== 'object' || Array.isArray(args)) throw badArgs('arguments must be a JSON object');
  for (const name of schema.required) {
    if (!(name in args)) throw badArgs(`missing required argument "${name}"`);
  }
  for (const [name, rule] of Object.entries(schema.properties)) {
    if (!(name in args)) continue;
    const v = args[name];
    const ok = rule.type === 'integer' ? isInt(v) : typeof v === rule.type;
    if (!ok) throw badArgs(`argument "${name}" must be a ${rule.type}`);
    if ('minimum' in rule && v < rule.minimum) throw badArgs(`argument "${name}" must be at least ${rule.minimum}`);
  }
}

// FR-LD-VAL-10: forward slashes (the only separator on Unix, I-LD-11), no `.`
// or empty segments, no trailing slash; `.` when nothing is left.
function normalizePath(p) {
  const segs = p.split('/').filter((s) => s !== '' && s !== '.');
  return p.startsWith('/') ? '/' + segs.join('/') : segs.join('/') || '.';
}

// I-LD-09: EACCES/EPERM, a vanished entry, anything else.
const entryErrorCode = (err) => (err.code === 'EACCES' || err.code === 'EPERM' ? 'permission_denied'
  : err.code === 'ENOENT' ? 'metadata_unavailable' : 'io_error');

const SLASH = Buffer.from('/');

function listDirectory(args, ctx, config, deadline) {
  validate(LIST_DIRECTORY_SCHEMA, args);
  const cfg = table(config, 'list_directory');
  const capEntries = get(cfg, 'max_entries', 200); // CFG-LD-05 built-in defaults
  const capDepth = get(cfg, 'max_depth', 4);
  // FR-LD-VAL-06a: explicit args > config defaults > built-in defaults.
  const arg = (name) => get(args, name, get(cfg, `${name}_default`, LIST_DIRECTORY_SCHEMA.properties[name].default));

  const p = args.path.trim();
  if (p === '') throw badArgs('path must not be empty'); // FR-LD-VAL-01
  const recursive = arg('recursive');
  if (!recursive && get(args, 'max_depth', 1) !== 1) { // FR-LD-VAL-02
    throw badArgs('max_depth is only allowed with recursive=true (or must be 1)');
  }
  const maxEntries = get(args, 'max_entries', capEntries);
  if (maxEntries > capEntries) { // FR-LD-VAL-04, CFG-LD-02
    throw badArgs(`max_entries ${maxEntries} exceeds the configured limit ${capEntries}`);
  }
  const include = {};
  for (const t of ['files', 'dirs', 'symlinks', 'other', 'hidden']) include[t] = arg(`include_${t}`);
  if (!include.files && !include.dirs && !include.symlinks) { // FR-LD-VAL-05
    throw badArgs('at least one of include_files, include_dirs, include_symlinks must be true');
  }
  const maxDepth = recursive ? get(args, 'max_depth', capDepth) : 1; // FR-LD-VAL-03
  if (recursive && maxDepth > capDepth) { // FR-LD-VAL-06b, CFG-LD-03
    throw badArgs(`max_depth ${maxDepth} exceeds the configured limit ${capDepth}`);
  }

  // FR-LD-VAL-07: the sandbox before any filesystem access.
  const root = sandboxResolve('list_directory', p, ctx.working_dir, config);
  // FR-LD-VAL-08, FR-LD-ERR-03: an existing directory, else ExecutionFailed.
  deadline.check();
  let st;
  try {
    st = fs.statSync(root);
  } catch (e) {
    if (['ENOENT', 'ENOTDIR', 'ELOOP'].includes(e.code)) throw failed('list_directory', `path does not exist: ${p}`);
    throw failed('list_directory', `cannot access ${p}: ${shortMessage(e)}`);
  }
  if (!st.isDirectory()) throw failed('list_directory', `path is not a directory: ${p}`);
  const rootBuf = Buffer.from(root);
  deadline.check();
  let names;
  try {
    names = fs.readdirSync(rootBuf, { encoding: 'buffer' });
  } catch (e) {
    throw failed('list_directory', `cannot read directory ${p}: ${shortMessage(e)}`);
  }

  const entries = []; // {entry, raw}
  let truncated = false;

  // Depth-first pre-order (FR-LD-LST-05); returns false once max_entries stops it.
  // Names stay bytes (Buffers) for the filesystem; order and output use the
  // lossy string, ties broken by the raw bytes (NFR-LD-REL-02, I-LD-02).
  function visit(dirBuf, rawNames, prefix, rawPrefix, depth) {
    const sorted = rawNames.map((raw) => ({ raw, name: decode(raw) }))
      .sort((a, b) => utf8Compare(a.name, b.name) || Buffer.compare(a.raw, b.raw));
    for (const { raw, name } of sorted) {
      const hidden = name.startsWith('.'); // FR-LD-LST-06a
      if (hidden && !include.hidden) continue; // FR-LD-LST-06: omitted, and not traversed
      const rel = prefix + name;
      const rawRel = Buffer.concat([rawPrefix, raw]);
      const full = Buffer.concat([dirBuf, SLASH, raw]);
      const entry = {
        name, path: rel, depth, type: 'unknown', size_bytes: null, modified_epoch_ms: null,
        is_hidden: hidden, error_code: null, error: null,
      };
      let children = null; // names of a directory to descend into
      let st = null;
      deadline.check(); // FR-EXE-03/04: stop once the call's limit has passed
      try {
        st = fs.lstatSync(full, { bigint: true }); // no-follow metadata (entry field rules)
      } catch (e) { // FR-LD-LST-04: still listed, as unknown
        entry.error_code = entryErrorCode(e);
        entry.error = shortMessage(e);
      }
      if (st) {
        entry.type = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : 'other';
        if (entry.type === 'file') entry.size_bytes = Number(st.size);
        // I-LD-10: truncated to whole milliseconds; before 1970 is null.
        if (st.mtimeNs >= 0n) entry.modified_epoch_ms = Number(st.mtimeNs / 1000000n);
        if (entry.type === 'dir' && depth < maxDepth) {
          // Only entries lstat calls directories are read: symlinks are never
          // followed (FR-LD-VAL-09, NFR-LD-SEC-03).
          deadline.check();
          try {
            children = fs.readdirSync(full, { encoding: 'buffer' });
          } catch (e) { // FR-LD-LST-08, I-LD-08: the dir's own entry becomes the error
            Object.assign(entry, { type: 'unknown', error_code: 'read_dir_failed', error: shortMessage(e) });
          }
        }
      }
      // FR-LD-LST-06: type filters decide what is listed and counted; error
      // entries are always listed (I-LD-07); directories are descended whether
      // or not they are listed (I-LD-06).
      const wanted = { file: include.files, dir: include.dirs, symlink: include.symlinks, other: include.other };
      if (entry.type === 'unknown' || wanted[entry.type]) {
        if (entries.length === maxEntries) { // FR-LD-LST-07: one more exists (I-LD-04)
          truncated = true;
          return false;
        }
        entries.push({ entry, raw: rawRel });
      }
      if (children && !visit(full, children, rel + '/', Buffer.concat([rawRel, SLASH]), depth + 1)) return false;
    }
    return true;
  }
  visit(rootBuf, names, '', Buffer.alloc(0), 1);

  // FR-LD-OUT-01: sorted by the lossy path; ties by raw bytes (I-LD-02).
  entries.sort((a, b) => utf8Compare(a.entry.path, b.entry.path) || Buffer.compare(a.raw, b.raw));
  const out = render(normalizePath(p), entries.map((e) => e.entry), maxEntries, ctx,
    truncated ? 'max_entries' : null);
  return [out, false]; // FR-LD-OUT-04: allow_truncation=false
}

// The canonical JSON (FR-LD-OUT-02a: keys in §3.5 order; JSON.stringify's
// escaping is serde_json's, I-LD-03) within effective_max =
// min(max_output_bytes, available_capacity_bytes) UTF-8 bytes
// (FR-LD-OUT-03/05/06/07): the longest prefix of entries that fits (I-LD-05).
function render(p, entries, maxEntries, ctx, reason) {
  const effectiveMax = Math.min(get(ctx, 'max_output_bytes', 102400), get(ctx, 'available_capacity_bytes', 65536));
  const parts = entries.map((e) => JSON.stringify(e));
  const text = (k, why) => `{"path":${JSON.stringify(p)},"entries":[${parts.slice(0, k).join(',')}],`
    + `"returned":${k},"max_entries":${maxEntries},"truncated":${why ? 'true' : 'false'},`
    + `"truncated_reason":${JSON.stringify(why)}}`;
  const size = (s) => Buffer.byteLength(s, 'utf8'); // FR-LD-OUT-06
  const full = text(parts.length, reason);
  if (size(full) <= effectiveMax) return full;
  let lo = -1; let hi = parts.length; // text(lo) fits (-1: nothing yet), text(hi) does not
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (size(text(mid, 'max_output_bytes')) <= effectiveMax) lo = mid; else hi = mid;
  }
  if (lo < 0) { // FR-LD-OUT-08
    throw failed('list_directory', `output budget too small: ${effectiveMax} bytes cannot hold an empty listing`);
  }
  return text(lo, 'max_output_bytes');
}

// ---------------------------------------------------------------------------
// read_file (TOOL_EXECUTOR_SRD §3.6.8)
// ---------------------------------------------------------------------------

const SNIFF_BYTES = 8192;
const BINARY_HEADER = '[binary:base64]';

function readFile(args, ctx, config, deadline) {
  validate(READ_FILE_SCHEMA, args);
  const start = get(args, 'start_line', null);
  const end = get(args, 'end_line', null);
  if (start !== null && end !== null && start > end) throw badArgs(`start_line (${start}) is after end_line (${end})`);
  const cfg = table(config, 'read_file'); // CFG-READ-01
  const capacity = get(ctx, 'available_capacity_bytes', 65536);
  const readLimit = Math.min(get(cfg, 'max_file_read_bytes', 204800), capacity);
  const maxScan = get(cfg, 'max_scan_bytes', 2097152); // FR-TOOL-READ-01a
  const outputLimit = Math.min(get(ctx, 'max_output_bytes', 102400), capacity);

  const p = sandboxResolve('read_file', args.path, ctx.working_dir, config);
  // FR-VAL-06: the canonical path holds no symlink; O_NOFOLLOW refuses one
  // swapped in after validation. O_NONBLOCK: a FIFO must not hang the call.
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  deadline.check();
  let fd;
  try {
    fd = fs.openSync(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') throw failed('read_file', `file not found: ${args.path}`);
    throw failed('read_file', `cannot open ${args.path}: ${shortMessage(e)}`);
  }
  try {
    deadline.check(); // a slow open may have outlived the call's limit (FR-EXE-03)
    const st = fs.fstatSync(fd);
    if (st.isDirectory()) throw failed('read_file', `${args.path} is a directory; use list_directory`);
    if (!st.isFile()) throw failed('read_file', `${args.path} is not a regular file`);

    // Binary detection: the first 8 KB hold a NUL or do not decode as UTF-8.
    // A character cut by the window's end is not a failure (I-RF-05).
    deadline.check();
    const window = Buffer.alloc(Math.min(SNIFF_BYTES, st.size));
    const got = fs.readSync(fd, window, 0, window.length, 0);
    let binary = window.subarray(0, got).includes(0);
    if (!binary) {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(window.subarray(0, got), { stream: st.size > SNIFF_BYTES });
      } catch {
        binary = true;
      }
    }
    if (binary) {
      if (start !== null || end !== null) throw badArgs('line ranges are not valid for a binary file');
      deadline.check();
      return [readBinary(fd, st.size, outputLimit), false]; // FR-TOOL-READ-01b
    }
    if (start === null && end === null) {
      if (st.size > readLimit) { // instruct the model to use a line range (I-RF-03)
        throw failed('read_file', `file is ${st.size} bytes, more than the read limit of ${readLimit} bytes; `
          + 'read a line range with start_line and end_line');
      }
      deadline.check();
      return [decode(fs.readFileSync(fd)), true];
    }
    return [readLines(fd, start || 1, end, maxScan, deadline), true];
  } finally {
    fs.closeSync(fd);
  }
}

// Lines start..end, each with its own terminator (I-RF-01), streaming from the
// start and never consuming more than maxScan bytes (FR-TOOL-READ-01a, I-RF-04).
function readLines(fd, start, end, maxScan, deadline) {
  const out = [];
  let line = []; let n = 0; let consumed = 0; let pos = 0;
  const buf = Buffer.alloc(65536);
  const narrow = () => failed('read_file',
    `reaching line ${end === null ? 'EOF' : end} means scanning more than ${maxScan} bytes; narrow the range`);
  while (end === null || n < end) {
    deadline.check(); // FR-EXE-03/04: a long scan stops at the call's limit
    const got = fs.readSync(fd, buf, 0, buf.length, pos);
    if (got === 0) { // EOF: a last line without newline still counts; an end beyond EOF reads through EOF
      if (line.length && ++n >= start) out.push(...line);
      break;
    }
    pos += got;
    const chunk = buf.subarray(0, got);
    let i = 0;
    while (i < got && (end === null || n < end)) {
      const nl = chunk.indexOf(10, i);
      const stop = nl === -1 ? got : nl + 1;
      consumed += stop - i;
      if (consumed > maxScan) throw narrow();
      line.push(Buffer.from(chunk.subarray(i, stop)));
      i = stop;
      if (nl !== -1) {
        if (++n >= start) out.push(...line);
        line = [];
      }
    }
  }
  return decode(Buffer.concat(out));
}

// `[binary:base64]` (+ ` [truncated]`), `\n`, base64 of the longest prefix
// whose output fits output_limit (I-RF-06).
function readBinary(fd, size, outputLimit) {
  let header = BINARY_HEADER;
  let n = size;
  if (header.length + 1 + 4 * Math.ceil(size / 3) > outputLimit) {
    header += ' [truncated]';
    const room = outputLimit - header.length - 1;
    if (room < 0) throw failed('read_file', `output budget too small for a binary file (${outputLimit} bytes)`);
    n = Math.floor(room / 4) * 3;
  }
  const data = Buffer.alloc(n);
  const got = fs.readSync(fd, data, 0, n, 0);
  return `${header}\n${data.subarray(0, got).toString('base64')}`;
}

// ---------------------------------------------------------------------------
// FCP/1 (spec/PROTOCOL.md)
// ---------------------------------------------------------------------------

const DEFINITIONS = [ // §3.3: sorted by name; FR-LD-DEF-01..04 and read_file's side effects/approval
  { name: 'list_directory', description: 'List directory entries', parameters: LIST_DIRECTORY_SCHEMA,
    side_effecting: false, requires_approval: false, risk_level: 'Low' },
  { name: 'read_file', description: "Read a file's text (a line range optional), or its bytes as base64",
    parameters: READ_FILE_SCHEMA, side_effecting: false, requires_approval: false, risk_level: 'Low' },
];

const TOOL_FUNCS = { list_directory: listDirectory, read_file: readFile };

// FR-EXE-03: a tool's own timeout() wins, else ctx.default_timeout. read_file's
// own is [tools.timeouts] file_operations_seconds (CFG-TMO-01a); list_directory
// has none (its SRD names no timeout), so it gets default_seconds.
const TIMEOUT_KEYS = { list_directory: 'default_seconds', read_file: 'file_operations_seconds' };

// [tools.timeouts] <key> (CFG-TMO-01), 30 s when absent; a value that is not a
// positive number keeps the default, so a call always has a limit.
function timeoutSeconds(config, key) {
  const v = table(config, 'timeouts')[key];
  return typeof v === 'number' && v > 0 && v < Infinity ? v : 30;
}

// §3.2: look the tool up, validate, run with a fresh context.
function call(req) {
  const c = req.call;
  if (!c || typeof c !== 'object' || typeof c.name !== 'string') throw badArgs('call.name is required');
  const func = Object.prototype.hasOwnProperty.call(TOOL_FUNCS, c.name) ? TOOL_FUNCS[c.name] : null;
  if (!func) throw new ToolError('UnknownTool', `unknown tool "${c.name}"`, { tool: c.name });
  const ctx = req.ctx && typeof req.ctx === 'object' ? req.ctx : {};
  if (typeof ctx.working_dir !== 'string' || !ctx.working_dir.startsWith('/')) {
    throw badArgs('ctx.working_dir must be an absolute path');
  }
  const config = req.config || {};
  const deadline = new Deadline(c.name, timeoutSeconds(config, TIMEOUT_KEYS[c.name]));
  let content; let allowTruncation;
  try {
    [content, allowTruncation] = func(c.args, ctx, config, deadline);
  } catch (e) {
    // FR-EXE-03: a call that fails after its limit has passed is Timeout,
    // whatever its own failure (a slow open that ends in EIO, say).
    if (e instanceof ToolError && deadline.passed()) throw deadline.error();
    throw e;
  }
  return { ok: true, content, allow_truncation: allowTruncation };
}

// One request line -> [response object, exit after it].
function handle(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    return [{ seq: -1, ok: false, error: badArgs(`request is not valid JSON: ${e.message}`).obj }, false];
  }
  const seq = req && typeof req === 'object' ? req.seq : undefined;
  if (!isInt(seq) || seq < 0) {
    return [{ seq: -1, ok: false, error: badArgs('request needs an object with an integer seq').obj }, false];
  }
  try {
    if (req.fcp !== 1) throw badArgs(`unsupported protocol version ${JSON.stringify(req.fcp)}: this implementation speaks FCP/1`);
    switch (req.op) {
      case 'hello': return [{ seq, fcp: 1, implementation: IMPLEMENTATION, tools: TOOLS, ops: OPS }, false];
      case 'call': return [{ seq, ...call(req) }, false];
      case 'definitions': return [{ seq, ok: true, definitions: DEFINITIONS }, false];
      case 'reset': return [{ seq, ok: true }, false]; // no conversation state to forget
      case 'bye': return [{ seq, ok: true }, true];
      default: throw badArgs(`unknown op ${JSON.stringify(req.op)}`);
    }
  } catch (e) {
    if (e instanceof ToolError) return [{ seq, ok: false, error: e.obj }, false];
    process.stderr.write(`internal error: ${e.stack}\n`); // a bug costs one answer, not the session
    return [{ seq, ok: false, error: { kind: 'ExecutionFailed', message: `internal error: ${e.message}` } }, false];
  }
}

// JSON Lines: split stdin's bytes at \n, answer each line at once (stdout
// writes to a pipe are synchronous in Node on Linux), exit 0 at EOF or after bye.
function writeAll(buf) {
  for (let off = 0; off < buf.length;) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
    }
  }
}
const strict = new TextDecoder('utf-8', { fatal: true });
let pending = Buffer.alloc(0);
function serve(line) {
  let text;
  try {
    text = strict.decode(line);
  } catch {
    text = '\u0000not utf-8';
  }
  const [response, done] = handle(text);
  writeAll(Buffer.from(JSON.stringify(response) + '\n'));
  if (done) process.exit(0);
}
process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  let nl;
  while ((nl = pending.indexOf(10)) !== -1) {
    const line = pending.subarray(0, nl);
    pending = pending.subarray(nl + 1);
    serve(line);
  }
});
process.stdin.on('end', () => {
  if (pending.length) serve(pending);
  process.exit(0);
});
