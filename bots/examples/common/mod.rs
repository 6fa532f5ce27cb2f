//! Shared by the examples: reading a judge's records file (`judge --records`, one JSON object
//! per line) without a JSON dependency, since `bots` has none.

/// The items of the list `"name":[...]` on one record line, quotes removed.
pub fn list<'a>(line: &'a str, name: &str) -> Result<Vec<&'a str>, String> {
    let key = format!("\"{name}\":[");
    let start = line.find(&key).ok_or(format!("no {name} in {line:.60}"))? + key.len();
    let len = line[start..].find(']').ok_or(format!("unclosed {name}"))?;
    Ok(line[start..start + len].split(',').map(|s| s.trim_matches('"')).collect())
}
