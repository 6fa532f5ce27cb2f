//! Embeds every source file of the `bots` crate in the binary, so `cupzero export` can bundle
//! a submission from anywhere, always from the code this binary was built with.

use std::path::{Path, PathBuf};

fn collect(dir: &Path, root: &Path, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("bots/src is readable").filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, root, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((relative, path));
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/src");
    println!("cargo:rerun-if-changed=bots/src");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut code = String::from("/// Every `.rs` file of `bots/src`, by path relative to it.\npub const BOTS_SOURCES: &[(&str, &str)] = &[\n");
    for (relative, path) in files {
        code.push_str(&format!("    ({relative:?}, include_str!({:?})),\n", path.to_string_lossy()));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("bots_sources.rs");
    std::fs::write(out, code).expect("write bots_sources.rs");
}
