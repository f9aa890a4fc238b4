//! The workspace's layering, checked from its source and held to the graphs written in
//! docs/ARCHITECTURE.md:
//!
//! - the crate graph (which workspace crate depends on which), read from `cargo metadata`, must
//!   equal the one written under `<!-- crate graph -->`;
//! - the library's module graph, derived from every `crate::`, `super::` and `self::` path and
//!   every `use` of a child module (an edge from the file that writes it to the file of the
//!   module it names), must equal the one written under `<!-- module graph -->`, and must have
//!   no cycle between files or modules and no import up the layer order:
//!
//! util, core, fs, storage < notation, pgn, xqf < book, tablebase < engine < tune.
//!
//! `src/lib.rs` (the root, which re-exports) is not checked itself; a path through its
//! re-exports (`crate::Rng`) counts as one to the file that defines the item. A file's `#[cfg(test)] mod` block
//! (its unit tests, at its end) is skipped: unit tests may use anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// File-level cycles tolerated for now, each with the reason. Keep this empty.
const KNOWN_FILE_CYCLES: &[(&str, &str)] = &[];

/// A top-level module's layer; `None` for a module this test does not know, which `may_use` refuses
/// (Renju and the C API are crates of their own now, held to the crate graph instead).
fn layer(module: &str) -> Option<u32> {
    match module {
        "util" | "core" | "fs" | "storage" => Some(0),
        "notation" | "pgn" | "xqf" => Some(1),
        "book" | "tablebase" => Some(2),
        "engine" => Some(3),
        "tune" => Some(4),
        _ => None,
    }
}

/// Whether top-level module `from` may use `to`.
fn may_use(from: &str, to: &str) -> bool {
    if from == to {
        return true;
    }
    match (layer(from), layer(to)) {
        (Some(a), Some(b)) => b <= a,
        // A module this test does not know yet: add it to `layer` with its place.
        _ => false,
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/` except `lib.rs` and `bin/`, as paths relative to `src/`.
fn files() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read src").map(|e| e.expect("entry").path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let rel = p.strip_prefix(root).expect("under src").to_string_lossy().replace('\\', "/");
                if rel != "lib.rs" && !rel.starts_with("bin/") {
                    out.push(rel);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&src(), &src(), &mut out);
    out
}

/// The module path of a file: `engine/uci.rs` -> [engine, uci]; `engine/mod.rs` -> [engine].
fn module_of(file: &str) -> Vec<String> {
    let stem = file.trim_end_matches(".rs");
    let mut parts: Vec<String> = stem.split('/').map(String::from).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The file defining module path `m`, if any.
fn file_of(m: &[String], known: &BTreeSet<String>) -> Option<String> {
    let base = m.join("/");
    [format!("{base}.rs"), format!("{base}/mod.rs")].into_iter().find(|f| known.contains(f))
}

/// The code of a file without comments (so that doc links such as [`crate::book`] are not
/// edges), without string literals, and without anything from its first `#[cfg(test)]` on.
fn code(text: &str) -> String {
    // Only a `#[cfg(test)] mod ...` block is cut (unit tests sit at the end of their file); any
    // other `#[cfg(test)]` item is kept and checked.
    let cut = text
        .match_indices("#[cfg(test)]")
        .map(|(i, _)| i)
        .find(|&i| text[i + "#[cfg(test)]".len()..].trim_start().starts_with("mod "));
    let text = match cut {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::new();
    for line in text.lines() {
        let mut kept = String::new();
        let mut in_str = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if in_str {
                if c == '\\' {
                    chars.next();
                } else if c == '"' {
                    in_str = false;
                }
                continue;
            }
            if c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' {
                in_str = true;
                continue;
            }
            kept.push(c);
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// Expands a `use` tree such as `super::{eval::{self, Weights}, time::Limits}` into paths.
fn expand(tree: &str) -> Vec<String> {
    // Drop aliases (`x as y`) first, while the words are still apart.
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut kept = String::new();
    let mut i = 0;
    while i < words.len() {
        if words[i] == "as" && i + 1 < words.len() {
            // The alias may carry the following `,` or `}`.
            kept.extend(words[i + 1].chars().filter(|c| matches!(c, ',' | '}')));
            i += 2;
        } else {
            kept.push_str(words[i]);
            i += 1;
        }
    }
    let tree = kept;
    let Some(open) = tree.find('{') else { return vec![tree] };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.len().saturating_sub(1)];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| {
            expand(p).into_iter().map(move |e| {
                if e == "self" {
                    prefix.trim_end_matches("::").to_string()
                } else {
                    format!("{prefix}{e}")
                }
            })
        })
        .collect()
}

/// A file's imports: `use` paths and `crate::`/`super::`/`self::` paths in code (edges), and its
/// `pub use` re-exports (not edges: a facade does not make the module's code depend on what it
/// re-exports; paths through it are followed to the defining file instead).
struct Imports {
    paths: Vec<String>,
    reexports: Vec<String>,
}

fn imports(code: &str) -> Imports {
    let mut paths = Vec::new();
    let mut reexports = Vec::new();
    let mut rest_code = String::new();
    let mut rest = code;
    // `use` statements (with their braces), cut out of the code.
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            rest_code.push_str(&rest[..i + 4]);
            rest = &rest[i + 4..];
            continue;
        }
        let head = rest[..i].trim_end();
        let public = head.ends_with("pub") || head.ends_with(')') && head.contains("pub(");
        let after = &rest[i + 4..];
        let Some(end) = after.find(';') else { break };
        rest_code.push_str(&rest[..i]);
        rest = &after[end + 1..];
        let expanded = expand(&after[..end]);
        if public {
            reexports.extend(expanded);
        } else {
            paths.extend(expanded);
        }
    }
    rest_code.push_str(rest);
    // Paths in expressions and types.
    let s = rest_code;
    for anchor in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = s[from..].find(anchor) {
            let at = from + i;
            from = at + anchor.len();
            let prev = s[..at].chars().last();
            if prev.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = s[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            paths.push(path.trim_end_matches(':').to_string());
        }
    }
    Imports { paths, reexports }
}

/// Re-exported names per module file: file -> (name -> path as written there).
type Reexports = BTreeMap<String, BTreeMap<String, String>>;

/// Resolves a path written in `file` to the file of the deepest module it names, following a
/// module's `pub use` of the item named next to the file that defines it.
fn resolve(file: &str, path: &str, known: &BTreeSet<String>, reexports: &Reexports) -> Option<String> {
    resolve_depth(file, path, known, reexports, 0)
}

fn resolve_depth(
    file: &str,
    path: &str,
    known: &BTreeSet<String>,
    reexports: &Reexports,
    depth: u32,
) -> Option<String> {
    let here = module_of(file);
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (mut base, rest): (Vec<String>, &[&str]) = match segs.first().copied() {
        Some("crate") => (Vec::new(), &segs[1..]),
        Some("self") => (here.clone(), &segs[1..]),
        Some("super") => {
            let mut b = here.clone();
            let mut n = 0;
            while segs.get(n) == Some(&"super") {
                b.pop();
                n += 1;
            }
            (b, &segs[n..])
        }
        // A relative `use child::...` from a module file to one of its children.
        Some(first) => {
            let mut child = here.clone();
            child.push(first.to_string());
            file_of(&child, known)?;
            (here.clone(), &segs[..])
        }
        None => return None,
    };
    let mut best = file_of(&base, known);
    // The module whose items the next segment names: the crate root's are `lib.rs`'s re-exports
    // (`crate::Rng`), which are followed though the root itself is no node of the graph.
    let mut owner = if base.is_empty() { Some(ROOT.to_string()) } else { best.clone() };
    for s in rest {
        base.push(s.to_string());
        match file_of(&base, known) {
            Some(f) => {
                best = Some(f);
                owner = best.clone();
            }
            None => {
                // An item of the module `owner`: if that module re-exports it, follow.
                let via = owner.as_ref().and_then(|m| reexports.get(m).and_then(|r| r.get(*s)).map(|p| (m.clone(), p)));
                if let Some((m, p)) = via.filter(|_| depth < 8) {
                    return resolve_depth(&m, p, known, reexports, depth + 1).or(best);
                }
                break;
            }
        }
    }
    best
}

fn top(file: &str) -> String {
    module_of(file).first().cloned().unwrap_or_default()
}

/// The crate root: not a node of the graph, but its re-exports are followed.
const ROOT: &str = "lib.rs";

/// file -> files it imports (itself excluded).
fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let all = files();
    let known: BTreeSet<String> = all.iter().cloned().collect();
    let mut found = BTreeMap::new();
    let mut reexports: Reexports = BTreeMap::new();
    let root = std::fs::read_to_string(src().join(ROOT)).expect("read lib.rs");
    let names = reexports.entry(ROOT.to_string()).or_default();
    for p in imports(&code(&root)).reexports {
        if let Some(name) = p.rsplit("::").next().filter(|n| *n != "*") {
            names.insert(name.to_string(), p.clone());
        }
    }
    for f in &all {
        let text = std::fs::read_to_string(src().join(f)).expect("read source file");
        let imports = imports(&code(&text));
        let names = reexports.entry(f.clone()).or_default();
        for p in &imports.reexports {
            if let Some(name) = p.rsplit("::").next().filter(|n| *n != "*") {
                names.insert(name.to_string(), p.clone());
            }
        }
        found.insert(f.clone(), (imports.paths, imports.reexports));
    }
    let mut graph = BTreeMap::new();
    for (f, (paths, public)) in &found {
        let mut targets: BTreeSet<String> =
            paths.iter().filter_map(|p| resolve(f, p, &known, &reexports)).filter(|t| t != f).collect();
        // A re-export from another top-level module is a dependency too (`fs` re-exports
        // `util`'s file helpers); one within the module (a `mod.rs` re-exporting its children)
        // is not, since importers are followed through it to the defining file.
        targets.extend(
            public.iter().filter_map(|p| resolve(f, p, &known, &reexports)).filter(|t| t != f && top(t) != top(f)),
        );
        graph.insert(f.clone(), targets);
    }
    graph
}

/// Every strongly connected component with more than one node (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(st: &mut State<'a>, v: &'a str) {
        st.index.insert(v, st.next);
        st.low.insert(v, st.next);
        st.next += 1;
        st.stack.push(v);
        st.on_stack.insert(v);
        let graph = st.graph;
        for w in graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !st.index.contains_key(w) {
                visit(st, w);
                let lw = st.low[w];
                let lv = st.low[v];
                st.low.insert(v, lv.min(lw));
            } else if st.on_stack.contains(w) {
                let iw = st.index[w];
                let lv = st.low[v];
                st.low.insert(v, lv.min(iw));
            }
        }
        if st.low[v] == st.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = st.stack.pop() {
                st.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                st.out.push(comp);
            }
        }
    }
    let mut st = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !st.index.contains_key(v.as_str()) {
            visit(&mut st, v);
        }
    }
    st.out
}

fn listing(graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    graph.iter().map(|(f, ts)| format!("  {f} -> {}\n", ts.iter().cloned().collect::<Vec<_>>().join(", "))).collect()
}

#[test]
fn no_file_level_import_cycles() {
    let mut graph = edges();
    for (a, b) in KNOWN_FILE_CYCLES {
        // Tolerate exactly the listed pair by dropping one direction of it.
        if let Some(t) = graph.get_mut(*b) {
            t.remove(*a);
        }
    }
    let found = cycles(&graph);
    assert!(found.is_empty(), "import cycles between files: {found:?}\nedges:\n{}", listing(&graph));
}

#[test]
fn no_module_level_cycles_and_no_upward_imports() {
    let graph = edges();
    let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut upward = Vec::new();
    for (f, targets) in &graph {
        let from = top(f);
        let entry = modules.entry(from.clone()).or_default();
        for t in targets {
            let to = top(t);
            if to != from {
                entry.insert(to.clone());
                if !may_use(&from, &to) {
                    upward.push(format!("{f} -> {t}"));
                }
            }
        }
    }
    // The module graph, for docs/ARCHITECTURE.md (`cargo test --test qiku architecture:: -- --nocapture`).
    eprintln!("module edges:\n{}", listing(&modules));
    assert!(upward.is_empty(), "imports against the layer order: {upward:?}");
    let found = cycles(&modules);
    assert!(found.is_empty(), "cycles between modules: {found:?}\nmodule edges:\n{}", listing(&modules));
}

/// The checker itself: it must see the kinds of edge the source uses.
#[test]
fn checker_sees_edges() {
    let graph = edges();
    let of = |f: &str| graph.get(f).cloned().unwrap_or_default();
    // `use super::eval::{self, Weights}` and `use crate::notation::iccs`.
    assert!(of("engine/uci.rs").contains("engine/eval.rs"), "{:?}", of("engine/uci.rs"));
    assert!(of("engine/uci.rs").contains("notation/iccs.rs"), "{:?}", of("engine/uci.rs"));
    // A relative `use collect::...` or `mod` item's path in a module file.
    assert!(of("tune/mod.rs").contains("engine/eval.rs"), "{:?}", of("tune/mod.rs"));
    // `crate::core::Position` is followed through core's re-export to the defining file.
    assert!(of("engine/mod.rs").contains("core/position.rs"), "{:?}", of("engine/mod.rs"));
    // The cycle finder finds a two-file cycle and ignores a chain.
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("a".into(), ["b".to_string()].into());
    g.insert("b".into(), ["a".to_string()].into());
    g.insert("c".into(), ["a".to_string()].into());
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".to_string()]]);
    assert!(!may_use("core", "engine") && may_use("tune", "core") && !may_use("book", "engine"));
    assert_eq!(
        expand("super::{eval::{self, Weights}, time::Limits as L}"),
        ["super::eval", "super::eval::Weights", "super::time::Limits"]
    );
    assert_eq!(expand("crate::tablebase::{self as tb, Wdl}"), ["crate::tablebase", "crate::tablebase::Wdl"]);
}

/// The graph written in docs/ARCHITECTURE.md in the fenced block after the line `marker`:
/// lines `name -> a, b` (or `name -> (nothing)`), comments after `#` ignored.
fn written_graph(marker: &str) -> BTreeMap<String, BTreeSet<String>> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md"))
        .expect("read docs/ARCHITECTURE.md");
    let after = doc.split_once(marker).unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no {marker:?}")).1;
    let block = after.split("```").nth(1).expect("a fenced block after the marker");
    let mut graph = BTreeMap::new();
    for line in block.lines().skip(1) {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (from, to) = line.split_once("->").unwrap_or_else(|| panic!("not `a -> b, c`: {line:?}"));
        let to: BTreeSet<String> =
            to.split(',').map(|t| t.trim().to_string()).filter(|t| !t.is_empty() && t != "(nothing)").collect();
        graph.insert(from.trim().to_string(), to);
    }
    graph
}

/// The library's module graph from the source: top-level module -> modules it uses.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (f, targets) in &edges() {
        let from = top(f);
        let entry = modules.entry(from.clone()).or_default();
        entry.extend(targets.iter().map(|t| top(t)).filter(|t| *t != from));
    }
    modules
}

/// A readable difference of two graphs.
fn graph_diff(written: &BTreeMap<String, BTreeSet<String>>, code: &BTreeMap<String, BTreeSet<String>>) -> String {
    let mut out = String::new();
    for name in written.keys().chain(code.keys()).collect::<BTreeSet<_>>() {
        let (w, c) = (written.get(name).cloned().unwrap_or_default(), code.get(name).cloned().unwrap_or_default());
        for extra in w.difference(&c) {
            out += &format!("  written but not in the code: {name} -> {extra}\n");
        }
        for missing in c.difference(&w) {
            out += &format!("  in the code but not written: {name} -> {missing}\n");
        }
        if !written.contains_key(name) {
            out += &format!("  not written at all: {name}\n");
        } else if !code.contains_key(name) {
            out += &format!("  written but no such module or crate: {name}\n");
        }
    }
    out
}

#[test]
fn written_module_graph_matches_the_code() {
    let (written, code) = (written_graph("<!-- module graph -->"), module_graph());
    assert!(
        written == code,
        "docs/ARCHITECTURE.md's module graph and the code disagree:\n{}the code's graph:\n{}",
        graph_diff(&written, &code),
        listing(&code)
    );
}

/// The workspace's crates and, for each, the workspace crates among its normal dependencies,
/// from `cargo metadata`.
fn crate_graph() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = packages.iter().map(|p| p["name"].as_str().expect("name").to_string()).collect();
    let mut graph = BTreeMap::new();
    for p in packages {
        let deps = p["dependencies"].as_array().expect("dependencies");
        let uses: BTreeSet<String> = deps
            .iter()
            .filter(|d| d["kind"].is_null())
            .map(|d| d["name"].as_str().expect("dependency name").to_string())
            .filter(|n| names.contains(n))
            .collect();
        graph.insert(p["name"].as_str().expect("name").to_string(), uses);
    }
    graph
}

#[test]
fn written_crate_graph_matches_cargo() {
    let (written, code) = (written_graph("<!-- crate graph -->"), crate_graph());
    assert!(
        written == code,
        "docs/ARCHITECTURE.md's crate graph and Cargo.toml disagree:\n{}cargo's graph:\n{}",
        graph_diff(&written, &code),
        listing(&code)
    );
    // Renju is its own game: it depends on no qiku crate.
    assert!(code["qiku-renju"].is_empty(), "qiku-renju depends on {:?}", code["qiku-renju"]);
}

/// The server and the Python bindings name the library in one adapter module each (the other
/// files use what it re-exports), so that a move of the library's paths is answered there alone.
#[test]
fn server_and_bindings_name_the_library_only_in_their_adapter() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for krate in ["crates/qiku-serve/src", "crates/qiku-python/src"] {
        let mut files = 0;
        for entry in std::fs::read_dir(root.join(krate)).expect("read crate sources") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            files += 1;
            let text = code(&std::fs::read_to_string(&path).expect("read source file"));
            let named = text.contains("qiku::") || text.contains("use qiku;");
            let adapter = path.file_name().is_some_and(|n| n == "adapter.rs");
            assert_eq!(named, adapter, "{}: the library is named outside the adapter (or not in it)", path.display());
        }
        assert!(files > 3, "{krate}: {files} files");
    }
}
