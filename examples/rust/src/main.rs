//! A small FCP/1 implementation of two Forge tools: list_directory and read_file.
//!
//! Rust's standard library plus serde_json (for reading requests and escaping
//! strings). Written from the specifications, not from the Go reference, to
//! show a newcomer what an implementation looks like:
//!
//! * spec/PROTOCOL.md (FCP/1): JSON Lines on stdin/stdout, one response per
//!   request, the ops hello, call, definitions, reset and bye.
//! * LIST_DIRECTORY_SRD.md v1.1: requirement IDs FR-LD-*, NFR-LD-*, CFG-LD-*.
//! * TOOL_EXECUTOR_SRD.md §3.5 (the sandbox, FR-VAL-03..07), §3.6.3-4 (a
//!   time limit per call, FR-EXE-03, checked as the tools work, FR-EXE-04;
//!   the limits from [tools.timeouts], CFG-TMO-01) and §3.6.8 (read_file,
//!   FR-TOOL-READ-01, CFG-READ-01).
//! * spec/INTERPRETATIONS.md where the SRDs leave room (I-LD-nn, I-SBX-nn,
//!   I-RF-nn): the comments name the reading taken.
//!
//! Build and run it under the suite (see README.md beside this file):
//!
//! ```sh
//! (cd examples/rust && cargo build --release --offline)
//! go run ./cmd/forge-conform --binary examples/rust/target/release/forge-tools \
//!     --skip-file examples/rust/skip.txt
//! ```
//!
//! It compiles with Debian bookworm's rustc (1.63): no newer language features.

use serde_json::{json, Value};
use std::ffi::OsString;
use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Errors: ToolError (TOOL_EXECUTOR_SRD §4.1, NFR-ERR-01) as FCP/1's error object
// ---------------------------------------------------------------------------

struct ToolError(Value);

fn bad_args(message: String) -> ToolError {
    ToolError(json!({"kind": "BadArgs", "message": message}))
}

fn failed(tool: &str, message: String) -> ToolError {
    ToolError(json!({"kind": "ExecutionFailed", "message": message, "tool": tool}))
}

/// SandboxViolation(DenialReason) (NFR-ERR-02); PROTOCOL.md §3.2's `denial`.
fn denied(reason: &str, attempted: &str, field: &str, value: &str) -> ToolError {
    ToolError(json!({
        "kind": "SandboxViolation",
        "message": format!("sandbox violation ({}): {}", reason, attempted),
        "denial": {"reason": reason, "attempted": attempted, field: value},
    }))
}

/// A short, non-localized message: the OS's text without " (os error N)", lower case.
fn short_message(err: &io::Error) -> String {
    let text = err.to_string();
    let text = text.split(" (os error").next().unwrap_or("");
    text.to_lowercase()
}

type Result<T> = std::result::Result<T, ToolError>;

// ---------------------------------------------------------------------------
// The call's time limit (TOOL_EXECUTOR_SRD §3.6.3-4)
// ---------------------------------------------------------------------------

/// A call's time limit (FR-EXE-03), fixed when the call starts. Tools call
/// check() before each filesystem operation of their work, so a call past its
/// limit stops working (FR-EXE-04: long-running work checks its abort
/// periodically) instead of walking on.
#[derive(Clone, Copy)]
struct Deadline {
    tool: &'static str,
    seconds: f64,
    at: Instant,
}

impl Deadline {
    fn new(tool: &'static str, seconds: f64) -> Deadline {
        // Capped at about 31 years: from_secs_f64 panics on overflow.
        let at = Instant::now() + Duration::from_secs_f64(seconds.min(1e9));
        Deadline { tool, seconds, at }
    }

    fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    fn error(&self) -> ToolError {
        let message = format!("{} timed out after {}s", self.tool, self.seconds);
        ToolError(json!({"kind": "Timeout", "message": message, "tool": self.tool}))
    }

    fn check(&self) -> Result<()> {
        if self.passed() {
            return Err(self.error());
        }
        Ok(())
    }
}

/// [tools.timeouts] <key> (CFG-TMO-01), 30 s when absent; a value that is not
/// a positive number keeps the default, so a call always has a limit.
fn timeout_seconds(config: &Value, key: &str) -> f64 {
    table(config, "timeouts")[key]
        .as_f64()
        .filter(|s| *s > 0.0 && s.is_finite())
        .unwrap_or(30.0)
}

// ---------------------------------------------------------------------------
// Small JSON helpers
// ---------------------------------------------------------------------------

/// A JSON string with serde_json's escaping (FR-LD-OUT-02a, I-LD-03).
fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("a string always serializes")
}

/// JSON Schema's "integer": a number with no fractional part.
fn as_integer(v: &Value) -> Option<i64> {
    if let Some(i) = v.as_i64() {
        return Some(i);
    }
    if v.as_u64().is_some() {
        return Some(i64::MAX);
    }
    match v.as_f64() {
        Some(f) if f.is_finite() && f.fract() == 0.0 => Some(f as i64),
        _ => None,
    }
}

/// config.tools.<name> (PROTOCOL.md §3.2: the SRDs' [tools.*] TOML tables as JSON).
fn table<'a>(config: &'a Value, name: &str) -> &'a Value {
    &config["tools"][name]
}

fn cfg_int(t: &Value, key: &str, default: i64) -> i64 {
    t.get(key).and_then(as_integer).unwrap_or(default)
}

fn cfg_bool(t: &Value, key: &str, default: bool) -> bool {
    t.get(key).and_then(Value::as_bool).unwrap_or(default)
}

// ---------------------------------------------------------------------------
// The sandbox (TOOL_EXECUTOR_SRD §3.5)
// ---------------------------------------------------------------------------

const DEFAULT_DENIES: [&str; 5] = ["**/.ssh/**", "**/.gnupg/**", "**/id_rsa*", "**/*.pem", "**/*.key"]; // FR-VAL-05

/// One path component against one glob component: `*`, `?` and `[..]`
/// (`[!..]` negates, `a-z` ranges) never cross `/`.
fn component_match(pat: &[char], s: &[char]) -> bool {
    match pat.first() {
        None => s.is_empty(),
        Some('*') => (0..=s.len()).any(|k| component_match(&pat[1..], &s[k..])),
        Some('?') => !s.is_empty() && component_match(&pat[1..], &s[1..]),
        Some('[') if pat.iter().skip(2).any(|&c| c == ']') => {
            let close = 2 + pat[2..].iter().position(|&c| c == ']').unwrap();
            let (negate, body) = match pat[1] {
                '!' | '^' => (true, &pat[2..close]),
                _ => (false, &pat[1..close]),
            };
            let c = match s.first() {
                Some(&c) => c,
                None => return false,
            };
            let mut hit = false;
            let mut i = 0;
            while i < body.len() {
                if i + 2 < body.len() && body[i + 1] == '-' {
                    hit |= body[i] <= c && c <= body[i + 2];
                    i += 3;
                } else {
                    hit |= body[i] == c;
                    i += 1;
                }
            }
            hit != negate && component_match(&pat[close + 1..], &s[1..])
        }
        Some(&c) => s.first() == Some(&c) && component_match(&pat[1..], &s[1..]),
    }
}

/// Doublestar glob on a '/'-separated path (I-SBX-03): `**` matches zero or
/// more whole components, so `**/.ssh/**` matches the .ssh directory itself too.
fn glob_match(pattern: &str, path: &str) -> bool {
    fn go(pat: &[Vec<char>], parts: &[Vec<char>]) -> bool {
        match pat.first() {
            None => parts.is_empty(),
            Some(p) if p.len() == 2 && p[0] == '*' && p[1] == '*' => {
                (0..=parts.len()).any(|k| go(&pat[1..], &parts[k..]))
            }
            Some(p) => !parts.is_empty() && component_match(p, &parts[0]) && go(&pat[1..], &parts[1..]),
        }
    }
    let split = |s: &str| s.split('/').map(|c| c.chars().collect()).collect::<Vec<Vec<char>>>();
    go(&split(pattern), &split(path))
}

/// FR-VAL-04's algorithm, step by step; returns the canonical absolute path
/// (FR-VAL-04a) that every later file operation uses.
fn sandbox_resolve(tool: &str, path: &str, working_dir: &str, config: &Value) -> Result<PathBuf> {
    let sb = table(config, "sandbox");
    // 1. Absolute paths only when allowed; 2. no `..` component. Both are
    // PathOutsideSandbox with attempted = resolved = the path (I-SBX-01).
    let absolute = path.starts_with('/');
    if (absolute && !cfg_bool(sb, "allow_absolute", false)) || path.split('/').any(|c| c == "..") {
        return Err(denied("PathOutsideSandbox", path, "resolved", path));
    }
    // 3. Relative to the working directory.
    let base = PathBuf::from(if absolute { "/" } else { working_dir });
    let comps: Vec<&str> = path.split('/').filter(|c| !c.is_empty() && *c != ".").collect();
    // 4. The deepest existing ancestor (existence follows symlinks, I-SBX-02),
    // canonicalized; 5. the missing rest appended unchanged (I-SBX-04).
    let join = |n: usize| comps[..n].iter().fold(base.clone(), |p, c| p.join(c));
    let mut i = comps.len();
    while i > 0 && !join(i).exists() {
        i -= 1;
    }
    let mut canonical = fs::canonicalize(join(i))
        .map_err(|e| failed(tool, format!("cannot resolve {}: {}", path, short_message(&e))))?;
    for c in &comps[i..] {
        canonical.push(c);
    }
    let shown = canonical.to_string_lossy().into_owned();
    // 6. Contained by an allowed root (canonicalized, relative to working_dir).
    let default_roots = json!(["."]);
    let roots = sb.get("allowed_roots").unwrap_or(&default_roots);
    let mut inside = false;
    for root in roots.as_array().into_iter().flatten() {
        let root = root.as_str().unwrap_or("");
        let full = fs::canonicalize(Path::new(working_dir).join(root))
            .map_err(|_| failed(tool, format!("sandbox allowed root does not exist: {}", root)))?;
        inside |= canonical.starts_with(&full); // whole components, like the path itself
    }
    if !inside {
        return Err(denied("PathOutsideSandbox", path, "resolved", &shown));
    }
    // 7. Denied patterns on the canonical path, the user's first (I-SBX-03).
    let mut patterns: Vec<String> = sb["denied_patterns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str().map(String::from))
        .collect();
    if cfg_bool(sb, "include_default_denies", true) {
        patterns.extend(DEFAULT_DENIES.iter().map(|p| p.to_string()));
    }
    for pattern in &patterns {
        if glob_match(pattern, &shown) {
            return Err(denied("DeniedPatternMatched", &shown, "pattern", pattern));
        }
    }
    Ok(canonical)
}

// ---------------------------------------------------------------------------
// Argument validation (FR-VAL-01): the little JSON Schema the tools need
// ---------------------------------------------------------------------------

/// (name, type) pairs of a schema's properties; integers have `minimum: 1`.
type Schema = &'static [(&'static str, &'static str)];

const LIST_DIRECTORY_PROPS: Schema = &[
    ("path", "string"),
    ("recursive", "boolean"),
    ("max_depth", "integer"),
    ("max_entries", "integer"),
    ("include_hidden", "boolean"),
    ("include_files", "boolean"),
    ("include_dirs", "boolean"),
    ("include_symlinks", "boolean"),
    ("include_other", "boolean"),
];

const READ_FILE_PROPS: Schema = &[("path", "string"), ("start_line", "integer"), ("end_line", "integer")];

fn validate(props: Schema, args: &Value) -> Result<()> {
    let obj = args.as_object().ok_or_else(|| bad_args("arguments must be a JSON object".into()))?;
    if !obj.contains_key("path") {
        return Err(bad_args("missing required argument \"path\"".into()));
    }
    for (name, kind) in props {
        let v = match obj.get(*name) {
            Some(v) => v,
            None => continue,
        };
        let ok = match *kind {
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            _ => as_integer(v).is_some(),
        };
        if !ok {
            return Err(bad_args(format!("argument \"{}\" must be a {}", name, kind)));
        }
        if *kind == "integer" && as_integer(v).unwrap() < 1 {
            return Err(bad_args(format!("argument \"{}\" must be at least 1", name)));
        }
    }
    Ok(())
}

/// The tools' definitions (PROTOCOL.md §3.3), sorted by name.
fn definitions() -> Value {
    let int_min1 = json!({"type": "integer", "minimum": 1});
    json!([
        {"name": "list_directory", "description": "List directory entries",  // FR-LD-DEF-01..04
         "parameters": {"type": "object", "required": ["path"], "properties": {
             "path": {"type": "string"},
             "recursive": {"type": "boolean", "default": false},
             "max_depth": int_min1, "max_entries": int_min1,
             "include_hidden": {"type": "boolean", "default": false},
             "include_files": {"type": "boolean", "default": true},
             "include_dirs": {"type": "boolean", "default": true},
             "include_symlinks": {"type": "boolean", "default": true},
             "include_other": {"type": "boolean", "default": false}}},
         "side_effecting": false, "requires_approval": false, "risk_level": "Low"},
        {"name": "read_file", "description": "Read a file's text (a line range optional), or its bytes as base64",
         "parameters": {"type": "object", "required": ["path"], "properties": {
             "path": {"type": "string"}, "start_line": int_min1, "end_line": int_min1}},
         "side_effecting": false, "requires_approval": false, "risk_level": "Low"},
    ])
}

// ---------------------------------------------------------------------------
// list_directory (LIST_DIRECTORY_SRD.md)
// ---------------------------------------------------------------------------

struct Entry {
    name: String,
    path: String,
    raw_path: Vec<u8>, // the path's bytes, to break ties between equal lossy strings (I-LD-02)
    depth: usize,
    kind: &'static str,
    size_bytes: Option<u64>,
    modified_epoch_ms: Option<i64>,
    is_hidden: bool,
    error_code: Option<&'static str>,
    error: Option<String>,
}

impl Entry {
    /// The entry object, keys in §3.5's order (FR-LD-OUT-02a).
    fn to_json(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "null".into());
        format!(
            "{{\"name\":{},\"path\":{},\"depth\":{},\"type\":\"{}\",\"size_bytes\":{},\"modified_epoch_ms\":{},\"is_hidden\":{},\"error_code\":{},\"error\":{}}}",
            quote(&self.name),
            quote(&self.path),
            self.depth,
            self.kind,
            opt(self.size_bytes.map(|n| n.to_string())),
            opt(self.modified_epoch_ms.map(|n| n.to_string())),
            self.is_hidden,
            opt(self.error_code.map(quote)),
            opt(self.error.as_deref().map(quote)),
        )
    }
}

/// I-LD-09: EACCES/EPERM, a vanished entry, anything else.
fn entry_error_code(err: &io::Error) -> &'static str {
    match err.kind() {
        io::ErrorKind::PermissionDenied => "permission_denied",
        io::ErrorKind::NotFound => "metadata_unavailable",
        _ => "io_error",
    }
}

/// A directory's names, or the error that kept them from us.
fn read_names(dir: &Path) -> io::Result<Vec<OsString>> {
    fs::read_dir(dir)?.map(|e| e.map(|e| e.file_name())).collect()
}

struct Lister {
    include_hidden: bool,
    include_files: bool,
    include_dirs: bool,
    include_symlinks: bool,
    include_other: bool,
    max_depth: usize,
    max_entries: usize,
    entries: Vec<Entry>,
    truncated: bool,
    deadline: Deadline,
}

impl Lister {
    /// Depth-first pre-order (FR-LD-LST-05); false once max_entries stops it.
    fn visit(&mut self, dir: &Path, names: Vec<OsString>, prefix: &str, raw_prefix: &[u8], depth: usize) -> Result<bool> {
        // Names are bytes; order and output use the lossy UTF-8 string
        // (NFR-LD-REL-02, I-LD-01), ties broken by the raw bytes (I-LD-02).
        let mut names: Vec<(String, OsString)> = names
            .into_iter()
            .map(|n| (String::from_utf8_lossy(n.as_bytes()).into_owned(), n))
            .collect();
        names.sort_by(|a, b| (&a.0, a.1.as_bytes()).cmp(&(&b.0, b.1.as_bytes())));
        for (name, raw) in names {
            let hidden = name.starts_with('.'); // FR-LD-LST-06a
            if hidden && !self.include_hidden {
                continue; // FR-LD-LST-06: omitted, and not traversed
            }
            let full = dir.join(&raw);
            let mut entry = Entry {
                path: format!("{}{}", prefix, name),
                raw_path: [raw_prefix, raw.as_bytes()].concat(),
                name,
                depth,
                kind: "unknown",
                size_bytes: None,
                modified_epoch_ms: None,
                is_hidden: hidden,
                error_code: None,
                error: None,
            };
            let mut children = None; // the names of a directory to descend into
            self.deadline.check()?; // FR-EXE-03/04: stop once the call's limit has passed
            match fs::symlink_metadata(&full) {
                // FR-LD-LST-04: an entry whose metadata fails is still listed, as unknown.
                Err(e) => {
                    entry.error_code = Some(entry_error_code(&e));
                    entry.error = Some(short_message(&e));
                }
                // No-follow metadata (lstat): a symlink is a symlink (entry field rules).
                Ok(meta) => {
                    let ft = meta.file_type();
                    entry.kind = if ft.is_file() {
                        "file"
                    } else if ft.is_dir() {
                        "dir"
                    } else if ft.is_symlink() {
                        "symlink"
                    } else {
                        "other"
                    };
                    if ft.is_file() {
                        entry.size_bytes = Some(meta.len());
                    }
                    // I-LD-10: truncated to whole milliseconds; before 1970 is null.
                    if meta.mtime() >= 0 {
                        entry.modified_epoch_ms = Some(meta.mtime() * 1000 + meta.mtime_nsec() / 1_000_000);
                    }
                    // Only entries lstat calls directories are read: symlinks
                    // are never followed (FR-LD-VAL-09, NFR-LD-SEC-03).
                    if ft.is_dir() && depth < self.max_depth {
                        self.deadline.check()?;
                        match read_names(&full) {
                            Ok(names) => children = Some(names),
                            // FR-LD-LST-08, I-LD-08: the directory's own entry becomes the error.
                            Err(e) => {
                                entry.kind = "unknown";
                                entry.error_code = Some("read_dir_failed");
                                entry.error = Some(short_message(&e));
                            }
                        }
                    }
                }
            }
            // FR-LD-LST-06: type filters decide what is listed and counted;
            // error entries are always listed (I-LD-07); directories are
            // descended whether or not they are listed (I-LD-06).
            let wanted = match entry.kind {
                "file" => self.include_files,
                "dir" => self.include_dirs,
                "symlink" => self.include_symlinks,
                "other" => self.include_other,
                _ => true,
            };
            let child_prefix = format!("{}/", entry.path);
            let raw_child_prefix = [&entry.raw_path[..], b"/"].concat();
            if wanted {
                if self.entries.len() == self.max_entries {
                    // FR-LD-LST-07: max_entries reached and one more exists (I-LD-04).
                    self.truncated = true;
                    return Ok(false);
                }
                self.entries.push(entry);
            }
            if let Some(names) = children {
                if !self.visit(&full, names, &child_prefix, &raw_child_prefix, depth + 1)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}

/// FR-LD-VAL-10: forward slashes (the only separator on Unix, I-LD-11), no
/// `.` or empty segments, no trailing slash; `.` when nothing is left.
fn normalize_path(path: &str) -> String {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
    if path.starts_with('/') {
        format!("/{}", segs.join("/"))
    } else if segs.is_empty() {
        ".".into()
    } else {
        segs.join("/")
    }
}

fn list_directory(args: &Value, ctx: &Value, config: &Value, deadline: Deadline) -> Result<(String, bool)> {
    validate(LIST_DIRECTORY_PROPS, args)?;
    let cfg = table(config, "list_directory");
    let cap_entries = cfg_int(cfg, "max_entries", 200); // CFG-LD-05 built-in defaults
    let cap_depth = cfg_int(cfg, "max_depth", 4);
    // FR-LD-VAL-06a: explicit args > config defaults > built-in defaults.
    let flag = |name: &str, builtin: bool| {
        args.get(name)
            .and_then(Value::as_bool)
            .unwrap_or_else(|| cfg_bool(cfg, &format!("{}_default", name), builtin))
    };
    let path = args["path"].as_str().unwrap_or("").trim();
    if path.is_empty() {
        return Err(bad_args("path must not be empty".into())); // FR-LD-VAL-01
    }
    let recursive = flag("recursive", false);
    let asked_depth = args.get("max_depth").and_then(as_integer);
    if !recursive && asked_depth.unwrap_or(1) != 1 {
        return Err(bad_args("max_depth is only allowed with recursive=true (or must be 1)".into())); // FR-LD-VAL-02
    }
    let max_entries = args.get("max_entries").and_then(as_integer).unwrap_or(cap_entries);
    if max_entries > cap_entries {
        // FR-LD-VAL-04, CFG-LD-02
        return Err(bad_args(format!("max_entries {} exceeds the configured limit {}", max_entries, cap_entries)));
    }
    let mut lister = Lister {
        include_hidden: flag("include_hidden", false),
        include_files: flag("include_files", true),
        include_dirs: flag("include_dirs", true),
        include_symlinks: flag("include_symlinks", true),
        include_other: flag("include_other", false),
        max_depth: 1,
        max_entries: max_entries as usize,
        entries: Vec::new(),
        truncated: false,
        deadline,
    };
    if !(lister.include_files || lister.include_dirs || lister.include_symlinks) {
        // FR-LD-VAL-05
        return Err(bad_args("at least one of include_files, include_dirs, include_symlinks must be true".into()));
    }
    if recursive {
        let depth = asked_depth.unwrap_or(cap_depth); // FR-LD-VAL-03
        if depth > cap_depth {
            // FR-LD-VAL-06b, CFG-LD-03
            return Err(bad_args(format!("max_depth {} exceeds the configured limit {}", depth, cap_depth)));
        }
        lister.max_depth = depth as usize;
    }

    // FR-LD-VAL-07: the sandbox before any filesystem access.
    let working_dir = ctx["working_dir"].as_str().unwrap_or("");
    let root = sandbox_resolve("list_directory", path, working_dir, config)?;
    // FR-LD-VAL-08, FR-LD-ERR-03: an existing directory, else ExecutionFailed.
    deadline.check()?;
    match fs::metadata(&root) {
        Err(_) => return Err(failed("list_directory", format!("path does not exist: {}", path))),
        Ok(m) if !m.is_dir() => return Err(failed("list_directory", format!("path is not a directory: {}", path))),
        Ok(_) => {}
    }
    deadline.check()?;
    let names = read_names(&root)
        .map_err(|e| failed("list_directory", format!("cannot read directory {}: {}", path, short_message(&e))))?;
    lister.visit(&root, names, "", b"", 1)?;

    // FR-LD-OUT-01: sorted by the lossy path; ties by raw bytes (I-LD-02).
    let mut entries = lister.entries;
    entries.sort_by(|a, b| (&a.path, &a.raw_path).cmp(&(&b.path, &b.raw_path)));
    let reason = if lister.truncated { Some("max_entries") } else { None };
    let out = render(&normalize_path(path), &entries, max_entries, ctx, reason)?;
    Ok((out, false)) // FR-LD-OUT-04: allow_truncation=false
}

/// The canonical JSON (FR-LD-OUT-02a: keys in §3.5 order) within
/// effective_max = min(max_output_bytes, available_capacity_bytes) bytes
/// (FR-LD-OUT-03/05/06/07): the longest prefix of entries that fits (I-LD-05).
fn render(path: &str, entries: &[Entry], max_entries: i64, ctx: &Value, reason: Option<&str>) -> Result<String> {
    let effective_max = cfg_int(ctx, "max_output_bytes", 102400).min(cfg_int(ctx, "available_capacity_bytes", 65536));
    let parts: Vec<String> = entries.iter().map(Entry::to_json).collect();
    let text = |k: usize, reason: Option<&str>| {
        format!(
            "{{\"path\":{},\"entries\":[{}],\"returned\":{},\"max_entries\":{},\"truncated\":{},\"truncated_reason\":{}}}",
            quote(path),
            parts[..k].join(","),
            k,
            max_entries,
            reason.is_some(),
            reason.map(quote).unwrap_or_else(|| "null".into()),
        )
    };
    // Rust strings are UTF-8: len() is the byte length (FR-LD-OUT-06).
    let fits = |s: &String| s.len() as i64 <= effective_max;
    let full = text(parts.len(), reason);
    if fits(&full) {
        return Ok(full);
    }
    // The longest prefix that fits: text(lo) fits (lo = -1: none yet), text(hi) does not.
    let (mut lo, mut hi) = (-1i64, parts.len() as i64);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(&text(mid as usize, Some("max_output_bytes"))) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    if lo < 0 {
        // FR-LD-OUT-08
        return Err(failed(
            "list_directory",
            format!("output budget too small: {} bytes cannot hold an empty listing", effective_max),
        ));
    }
    Ok(text(lo as usize, Some("max_output_bytes")))
}

// ---------------------------------------------------------------------------
// read_file (TOOL_EXECUTOR_SRD §3.6.8)
// ---------------------------------------------------------------------------

const SNIFF_BYTES: usize = 8192;
const BINARY_HEADER: &str = "[binary:base64]";

fn read_file(args: &Value, ctx: &Value, config: &Value, deadline: Deadline) -> Result<(String, bool)> {
    validate(READ_FILE_PROPS, args)?;
    let start = args.get("start_line").and_then(as_integer);
    let end = args.get("end_line").and_then(as_integer);
    if let (Some(s), Some(e)) = (start, end) {
        if s > e {
            return Err(bad_args(format!("start_line ({}) is after end_line ({})", s, e)));
        }
    }
    let cfg = table(config, "read_file"); // CFG-READ-01
    let capacity = cfg_int(ctx, "available_capacity_bytes", 65536);
    let read_limit = cfg_int(cfg, "max_file_read_bytes", 204800).min(capacity);
    let max_scan = cfg_int(cfg, "max_scan_bytes", 2097152); // FR-TOOL-READ-01a
    let output_limit = cfg_int(ctx, "max_output_bytes", 102400).min(capacity);

    let shown = args["path"].as_str().unwrap_or("");
    let path = sandbox_resolve("read_file", shown, ctx["working_dir"].as_str().unwrap_or(""), config)?;
    // FR-VAL-06, the fallback the SRD names (std has no O_NOFOLLOW): lstat the
    // canonical path, open it, and abort if what was opened is not what was
    // validated (same device and inode). Only regular files are opened, so a
    // FIFO never blocks the call.
    deadline.check()?;
    let before = fs::symlink_metadata(&path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => failed("read_file", format!("file not found: {}", shown)),
        _ => failed("read_file", format!("cannot open {}: {}", shown, short_message(&e))),
    })?;
    if before.is_dir() {
        return Err(failed("read_file", format!("{} is a directory; use list_directory", shown)));
    }
    if !before.is_file() {
        return Err(failed("read_file", format!("{} is not a regular file", shown)));
    }
    let io_failed = |e: io::Error| failed("read_file", format!("cannot read {}: {}", shown, short_message(&e)));
    deadline.check()?;
    let mut file = fs::File::open(&path).map_err(io_failed)?;
    deadline.check()?; // a slow open may have outlived the call's limit (FR-EXE-03)
    let meta = file.metadata().map_err(io_failed)?;
    if (meta.dev(), meta.ino()) != (before.dev(), before.ino()) {
        return Err(failed("read_file", format!("{} changed while it was being opened", shown)));
    }
    let size = meta.len();

    // Binary detection: the first 8 KB hold a NUL or do not decode as UTF-8.
    // A character cut by the window's end is not a failure (I-RF-05).
    deadline.check()?;
    let mut window = Vec::with_capacity(SNIFF_BYTES);
    (&mut file).take(SNIFF_BYTES as u64).read_to_end(&mut window).map_err(io_failed)?;
    let binary = window.contains(&0)
        || match std::str::from_utf8(&window) {
            Ok(_) => false,
            Err(e) => !(e.error_len().is_none() && size > SNIFF_BYTES as u64),
        };

    if binary {
        if start.is_some() || end.is_some() {
            return Err(bad_args("line ranges are not valid for a binary file".into()));
        }
        deadline.check()?;
        return Ok((read_binary(file, window, size, output_limit)?, false)); // FR-TOOL-READ-01b
    }
    let mut rest = window;
    if start.is_none() && end.is_none() {
        if size as i64 > read_limit {
            // instruct the model to use a line range (I-RF-03)
            return Err(failed(
                "read_file",
                format!(
                    "file is {} bytes, more than the read limit of {} bytes; read a line range with start_line and end_line",
                    size, read_limit
                ),
            ));
        }
        deadline.check()?;
        file.read_to_end(&mut rest).map_err(io_failed)?;
        return Ok((String::from_utf8_lossy(&rest).into_owned(), true));
    }
    let reader = BufReader::new(io::Cursor::new(rest).chain(file));
    Ok((read_lines(reader, start.unwrap_or(1), end, max_scan, deadline)?, true))
}

/// Lines start..=end, each with its own terminator (I-RF-01), streaming from
/// the start and never consuming more than max_scan bytes (FR-TOOL-READ-01a, I-RF-04).
fn read_lines<R: BufRead>(
    mut reader: R,
    start: i64,
    end: Option<i64>,
    max_scan: i64,
    deadline: Deadline,
) -> Result<String> {
    let (mut out, mut scanned, mut n) = (Vec::new(), 0i64, 0i64);
    while end.map_or(true, |e| n < e) {
        deadline.check()?; // FR-EXE-03/04: a long scan stops at the call's limit
        // A line longer than what is left of the bound comes back cut, and
        // then the count passes the bound: no need to read further.
        let mut line = Vec::new();
        let got = (&mut reader)
            .take((max_scan - scanned + 1) as u64)
            .read_until(b'\n', &mut line)
            .map_err(|e| failed("read_file", format!("read failed: {}", short_message(&e))))?;
        if got == 0 {
            break; // EOF: an end_line beyond EOF reads through EOF
        }
        scanned += got as i64;
        if scanned > max_scan {
            let until = end.map_or("EOF".to_string(), |e| e.to_string());
            return Err(failed(
                "read_file",
                format!("reaching line {} means scanning more than {} bytes; narrow the range", until, max_scan),
            ));
        }
        n += 1;
        if n >= start {
            out.extend_from_slice(&line);
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `[binary:base64]` (+ ` [truncated]`), `\n`, base64 of the longest prefix
/// whose output fits output_limit (I-RF-06).
fn read_binary(file: fs::File, window: Vec<u8>, size: u64, output_limit: i64) -> Result<String> {
    let mut header = BINARY_HEADER.to_string();
    let mut n = size;
    if (header.len() as u64 + 1 + 4 * ((size + 2) / 3)) as i64 > output_limit {
        header.push_str(" [truncated]");
        let room = output_limit - header.len() as i64 - 1;
        if room < 0 {
            return Err(failed("read_file", format!("output budget too small for a binary file ({} bytes)", output_limit)));
        }
        n = (room as u64 / 4) * 3;
    }
    let mut data = window;
    data.truncate(n as usize);
    let missing = n - data.len() as u64;
    file.take(missing)
        .read_to_end(&mut data)
        .map_err(|e| failed("read_file", format!("read failed: {}", short_message(&e))))?;
    Ok(format!("{}\n{}", header, base64(&data)))
}

/// Standard base64 with padding (RFC 4648 §4).
fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity((data.len() + 2) / 3 * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let v = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(v >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// FCP/1 (spec/PROTOCOL.md)
// ---------------------------------------------------------------------------

/// §3.2: look the tool up, validate, run with a fresh context.
fn call(req: &Value) -> Result<Value> {
    let name = req["call"]["name"].as_str().ok_or_else(|| bad_args("call.name is required".into()))?;
    let ctx = &req["ctx"];
    if !ctx["working_dir"].as_str().map_or(false, |w| w.starts_with('/')) {
        return Err(bad_args("ctx.working_dir must be an absolute path".into()));
    }
    let args = &req["call"]["args"];
    let config = &req["config"];
    // FR-EXE-03: a tool's own timeout() wins, else ctx.default_timeout.
    // read_file's own is [tools.timeouts] file_operations_seconds
    // (CFG-TMO-01a); list_directory has none (its SRD names no timeout), so it
    // gets default_seconds.
    type Tool = fn(&Value, &Value, &Value, Deadline) -> Result<(String, bool)>;
    let (tool, run, timeout_key): (&'static str, Tool, &str) = match name {
        "list_directory" => ("list_directory", list_directory, "default_seconds"),
        "read_file" => ("read_file", read_file, "file_operations_seconds"),
        _ => {
            return Err(ToolError(json!({"kind": "UnknownTool", "message": format!("unknown tool {}", quote(name)), "tool": name})))
        }
    };
    let deadline = Deadline::new(tool, timeout_seconds(config, timeout_key));
    let (content, allow_truncation) = match run(args, ctx, config, deadline) {
        Ok(result) => result,
        // FR-EXE-03: a call that fails after its limit has passed is Timeout,
        // whatever its own failure (a slow open that ends in EIO, say).
        Err(_) if deadline.passed() => return Err(deadline.error()),
        Err(e) => return Err(e),
    };
    Ok(json!({"ok": true, "content": content, "allow_truncation": allow_truncation}))
}

/// One request line -> (response, exit after it).
fn handle(line: &[u8]) -> (Value, bool) {
    let req: Value = match std::str::from_utf8(line).map_err(|e| e.to_string()).and_then(|s| serde_json::from_str(s).map_err(|e| e.to_string())) {
        Ok(v) => v,
        Err(e) => return (json!({"seq": -1, "ok": false, "error": {"kind": "BadArgs", "message": format!("request is not valid JSON: {}", e)}}), false),
    };
    let seq = match req.get("seq").and_then(Value::as_u64) {
        Some(seq) => seq,
        None => return (json!({"seq": -1, "ok": false, "error": {"kind": "BadArgs", "message": "request needs an object with an integer seq"}}), false),
    };
    let answer = |r: Result<Value>| match r {
        Ok(mut v) => {
            v["seq"] = json!(seq);
            v
        }
        Err(ToolError(e)) => json!({"seq": seq, "ok": false, "error": e}),
    };
    if req["fcp"] != json!(1) {
        return (answer(Err(bad_args(format!("unsupported protocol version {}: this implementation speaks FCP/1", req["fcp"])))), false);
    }
    match req["op"].as_str().unwrap_or("") {
        "hello" => (json!({"seq": seq, "fcp": 1,
            "implementation": {"name": "forge-tools-rust", "version": env!("CARGO_PKG_VERSION"), "language": "rust"},
            "tools": ["list_directory", "read_file"],
            "ops": ["hello", "call", "definitions", "reset", "bye"]}), false),
        "call" => (answer(call(&req)), false),
        "definitions" => (answer(Ok(json!({"ok": true, "definitions": definitions()}))), false),
        "reset" => (answer(Ok(json!({"ok": true}))), false), // no conversation state to forget
        "bye" => (answer(Ok(json!({"ok": true}))), true),
        _ => (answer(Err(bad_args(format!("unknown op {}", req["op"])))), false),
    }
}

fn main() {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break, // EOF: exit 0
            Ok(_) => {}
        }
        while line.last() == Some(&b'\n') || line.last() == Some(&b'\r') {
            line.pop();
        }
        // A bug costs one answer, not the session (in the spirit of FR-EXE-04b).
        let (response, done) = std::panic::catch_unwind(|| handle(&line)).unwrap_or_else(|_| {
            (json!({"seq": -1, "ok": false, "error": {"kind": "ExecutionFailed", "message": "internal error (panic)"}}), false)
        });
        let text = serde_json::to_string(&response).expect("a Value always serializes");
        if writeln!(out, "{}", text).and_then(|_| out.flush()).is_err() || done {
            break;
        }
    }
}
