//! The house drawn from the imports has no circle: within each crate, the top-level modules
//! that refer to one another (`crate::module`, `use crate::{a, b}`) form no cycle. Test code
//! (from a file's `#[cfg(test)]` on) and comments don't count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CRATES: [&str; 4] = ["src", "bots/src", "model/src", "selfplay/src"];

/// The top-level modules of a crate: `name.rs` and `name/` beside its root file.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            found.insert(name, rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") && name != "lib" && name != "main" {
            found.entry(name).or_insert_with(Vec::new).push(path);
        }
    }
    found
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The first path segment of every `crate::` reference in `code`, braces expanded.
fn referenced(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` and `other_crate::` are not ours.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut segment_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => segment_start = true,
                    c if segment_start && !c.is_whitespace() => {
                        names.insert(ident(&group[i..]));
                        segment_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            names.insert(ident(rest));
        }
    }
    names
}

/// Production code of a file: no comment lines, nothing from `#[cfg(test)]` on.
fn production_code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().take_while(|l| l.trim() != "#[cfg(test)]").filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The cycles of a graph: its strongly connected components of more than one module.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reaches = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|m| (m, reaches(m))).collect();
    let mut found: Vec<BTreeSet<String>> = Vec::new();
    for m in graph.keys() {
        if !reach[m].contains(m) || found.iter().any(|c| c.contains(m)) {
            continue;
        }
        found.push(graph.keys().filter(|other| reach[m].contains(*other) && reach[*other].contains(m)).cloned().collect());
    }
    found
}

fn import_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules(src);
    let mut graph = BTreeMap::new();
    for (name, files) in &modules {
        let uses: BTreeSet<String> = files.iter().flat_map(|f| referenced(&production_code(f))).filter(|m| m != name && modules.contains_key(m)).collect();
        graph.insert(name.clone(), uses);
    }
    graph
}

#[test]
fn no_crate_has_an_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut report = Vec::new();
    for krate in CRATES {
        let graph = import_graph(&root.join(krate));
        for cycle in cycles(&graph) {
            let edges: Vec<String> = cycle.iter().flat_map(|m| graph[m].iter().filter(|n| cycle.contains(*n)).map(move |n| format!("{m} -> {n}"))).collect();
            report.push(format!("{krate}: {}", edges.join(", ")));
        }
    }
    assert!(report.is_empty(), "import circles:\n{}", report.join("\n"));
}

#[test]
fn the_checker_sees_grouped_imports_and_finds_a_circle() {
    let code = "use crate::{config::{A, B}, worker::C};\nfn f() { crate::plot::draw(); other_crate::x(); }";
    assert_eq!(referenced(code), ["config", "plot", "worker"].map(String::from).into_iter().collect());
    let graph: BTreeMap<String, BTreeSet<String>> = [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec!["a"])]
        .into_iter()
        .map(|(m, uses)| (m.to_string(), uses.into_iter().map(String::from).collect()))
        .collect();
    assert_eq!(cycles(&graph), vec![["a", "b", "c"].map(String::from).into_iter().collect::<BTreeSet<_>>()]);
}
