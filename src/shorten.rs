//! Shortens the names a bundle declares itself (functions, types, fields, constants, locals,
//! parameters, modules) to one or two characters, the way JavaScript minifiers do, so that a
//! size-limited submission (CodinGame's 100,000 bytes) spends its bytes on weights.
//!
//! A name is renamed everywhere it occurs as a token, and inside `{name}` / `{name:…}` of
//! format strings, so every use follows its declaration whatever the scope: the mapping is
//! one-to-one and the new names appear nowhere in the code before. Names the standard library
//! also uses (`new`, `len`, `fmt`, ...: methods we declare and call on std types alike, or std
//! trait items we implement) stay as they are: see [`KEPT`]. Every game's exported bot is
//! compiled by the tests, so a name missing there shows up as a compile error.

use std::collections::{HashMap, HashSet};

/// Rust keywords and primitive types: never renamed, never produced.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop",
    "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "union", "bool",
    "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "main",
];

/// Names the bundle declares that the standard library uses too: methods we call on std types
/// under the same name (`Vec::new`, `.len()`), std trait items we implement (`fmt`, `next`,
/// `Item`), and words the compiler reads (`expr` in macro rules).
const KEPT: &[&str] = &[
    "new", "len", "is_empty", "push", "pop", "clear", "get", "get_mut", "insert", "remove", "contains", "iter", "iter_mut", "next", "fmt", "clone",
    "default", "eq", "ne", "cmp", "partial_cmp", "hash", "from", "into", "drop", "index", "index_mut", "deref", "deref_mut", "write", "flush",
    "read", "from_str", "to_string", "as_str", "as_slice", "min", "max", "sum", "Output", "Item", "Err", "Target", "Error", "source", "Ok",
    "Some", "None", "expr", "ident", "tt", "ty", "swap", "take", "replace", "sort", "first", "last", "extend", "truncate", "resize", "fill",
    "split", "lines", "parse", "trim", "sqrt", "ln", "exp", "abs", "signum", "count", "position", "find", "map", "filter", "zip", "rev",
    "capacity", "with_capacity", "as_ptr", "copy_from_slice", "chunks", "retain", "drain", "dedup", "reverse", "now", "elapsed", "from_millis",
    "as_secs_f64", "id", "line", "message", "seed", "write_str", "kind", "value", "key", "entry", "keys", "values", "step", "shuffle",
    "to_vec", "unwrap", "expect", "and_then", "ok", "err", "is_some", "is_none", "cloned", "copied", "total_cmp", "max_by", "min_by",
    "clamp", "floor", "ceil", "round", "powi", "powf", "tanh", "mul_f64", "saturating_sub", "checked_sub", "wrapping_add", "wrapping_mul",
    "wrapping_sub", "wrapping_neg", "count_ones", "trailing_zeros", "leading_zeros", "rotate_left", "to_bits", "from_bits", "start", "end",
    "bytes", "chars", "stdin", "stdout", "stderr", "sink", "lock", "read_line", "as_bytes", "starts_with", "ends_with", "write_all",
    "enumerate", "windows", "join", "fold", "any", "all", "skip", "chain", "collect", "then", "exit", "args", "sleep", "spawn", "load",
    "store", "from_le_bytes", "to_le_bytes", "as_millis", "as_secs", "as_nanos",
];

/// Short names of std methods and traits: never produced, so that no renamed method of ours
/// can meet one of them in method resolution (an inherent method would win silently).
const STD_SHORT: &[&str] = &[
    "ln", "eq", "ne", "lt", "le", "gt", "ge", "or", "is", "to", "id", "ok", "cmp", "max", "min", "abs", "pow", "exp", "sin", "cos", "tan", "log",
    "map", "zip", "rev", "all", "any", "sum", "get", "len", "nth", "err", "and", "xor", "not", "neg", "add", "sub", "mul", "div", "rem", "shl",
    "shr", "fmt", "by", "io", "fs", "mem", "ptr", "ops", "Ok", "Err", "Box", "Vec", "Fn", "As",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Style {
    /// Types, traits, enum variants: `Ab`.
    Type,
    /// Constants and statics: `AB`.
    Constant,
    /// Functions, fields, locals, parameters, modules: `ab`.
    Value,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    /// A string or char literal, as written.
    Literal(String),
    /// Anything else, one character at a time (lifetimes and numbers whole).
    Other(String),
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn tokens(chars: &[char], literal: &[bool]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        if literal[i] {
            while i < chars.len() && literal[i] {
                i += 1;
            }
            out.push(Token::Literal(chars[start..i].iter().collect()));
        } else if is_ident_char(chars[i]) {
            while i < chars.len() && !literal[i] && is_ident_char(chars[i]) {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let lifetime = start > 0 && chars[start - 1] == '\'' && !literal[start - 1];
            let number = chars[start].is_ascii_digit();
            out.push(if lifetime || number { Token::Other(text) } else { Token::Ident(text) });
        } else {
            i += 1;
            out.push(Token::Other(chars[start].to_string()));
        }
    }
    out
}

/// The names the code declares, with the style their new names take.
fn declared(tokens: &[Token]) -> HashMap<String, Style> {
    // Indices of the tokens that are not white space.
    let code: Vec<&Token> = tokens.iter().filter(|t| !matches!(t, Token::Other(s) if s.trim().is_empty())).collect();
    let ident = |k: usize| match code.get(k) {
        Some(Token::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let other = |k: usize, what: &str| matches!(code.get(k), Some(Token::Other(s)) if s == what);
    // `name:` but not `name::`.
    let typed = |k: usize| other(k + 1, ":") && !other(k + 2, ":") && !other(k, ":");
    let mut names = HashMap::new();
    let mut add = |name: &str, style: Style| {
        names.entry(name.to_string()).or_insert(style);
    };
    for k in 0..code.len() {
        let Some(word) = ident(k) else { continue };
        match word {
            "fn" | "mod" | "let" | "for" => {
                let mut n = k + 1;
                if ident(n) == Some("mut") {
                    n += 1;
                }
                if let Some(name) = ident(n) {
                    add(name, Style::Value);
                }
                if word == "fn" {
                    // Parameters: `name: Type` at the first level of the parentheses.
                    let Some(open) = (n..code.len()).find(|&j| other(j, "(")) else { continue };
                    let mut depth = 0;
                    for j in open..code.len() {
                        if other(j, "(") || other(j, "<") || other(j, "[") {
                            depth += 1;
                        } else if other(j, ")") || other(j, ">") || other(j, "]") {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        } else if depth == 1 && typed(j) {
                            if let Some(name) = ident(j) {
                                add(name, Style::Value);
                            }
                        }
                    }
                }
            }
            "const" | "static" => {
                if let Some(name) = ident(k + 1).filter(|&n| n != "fn" && n != "mut") {
                    add(name, Style::Constant);
                }
            }
            "struct" | "enum" | "trait" | "type" => {
                let Some(name) = ident(k + 1) else { continue };
                add(name, Style::Type);
                if word != "struct" && word != "enum" {
                    continue;
                }
                // The body: fields `name: Type` (struct, struct-like variants) and variants.
                let Some(open) = (k + 2..code.len()).find(|&j| other(j, "{") || other(j, ";") || other(j, "(")) else { continue };
                if !other(open, "{") {
                    continue;
                }
                let mut depth = 0;
                let mut expect_variant = true;
                for j in open..code.len() {
                    if other(j, "{") || other(j, "(") || other(j, "[") {
                        depth += 1;
                    } else if other(j, "}") || other(j, ")") || other(j, "]") {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    } else if depth == 1 && other(j, ",") {
                        expect_variant = true;
                    } else if let Some(name) = ident(j) {
                        if word == "enum" && depth == 1 && expect_variant && name != "pub" {
                            add(name, Style::Type);
                            expect_variant = false;
                        } else if typed(j) && name != "pub" {
                            add(name, Style::Value);
                        }
                    } else if other(j, "#") && depth == 1 {
                        // An attribute before a variant: `#[default]`.
                        continue;
                    }
                }
            }
            _ => {}
        }
    }
    names
}

/// Every name in a path from `std` (`std::time::Instant`, `use std::io::{BufRead, Write}`) or
/// from a primitive type (`f32::INFINITY`): modules, types, functions and constants of the
/// standard library keep their names even where the bundle declares the same one (its own
/// `time` module, its own `INFINITY`).
fn std_path_names(tokens: &[Token]) -> HashSet<String> {
    let code: Vec<&Token> = tokens.iter().filter(|t| !matches!(t, Token::Other(s) if s.trim().is_empty())).collect();
    let mut names = HashSet::new();
    for k in 0..code.len() {
        let root = |s: &str| s == "std" || s == "core" || KEYWORDS.iter().skip_while(|&&w| w != "bool").any(|&w| w == s);
        if !matches!(code[k], Token::Ident(s) if root(s)) {
            continue;
        }
        // Through `::`, names and `{ , }` groups after `::`, until anything else outside them.
        let rest = &code[k + 1..];
        let is = |j: usize, c: &str| matches!(rest.get(j), Some(Token::Other(s)) if s == c);
        if !(is(0, ":") && is(1, ":")) {
            continue;
        }
        let mut depth = 0;
        for (j, t) in rest.iter().enumerate() {
            match t {
                Token::Ident(name) => {
                    names.insert(name.clone());
                    // A path's last name ends it (`impl std::error::Error for Ours`: `Ours` is not
                    // std's), unless a `{ , }` group goes on.
                    if depth == 0 && !(is(j + 1, ":") && is(j + 2, ":")) {
                        break;
                    }
                }
                Token::Other(c) if c == ":" || c == "*" || c == "," && depth > 0 => {}
                Token::Other(c) if c == "{" && j > 0 && is(j - 1, ":") => depth += 1,
                Token::Other(c) if c == "}" && depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => break,
            }
        }
    }
    names
}

/// Short names in `style`, shortest first: `a`, `b`, ... `aa`, `ab`, ...
fn candidates(style: Style) -> impl Iterator<Item = String> {
    let lower: Vec<char> = ('a'..='z').collect();
    let upper: Vec<char> = ('A'..='Z').collect();
    let digits_and: Vec<char> = ('a'..='z').chain('0'..='9').collect();
    let (first, rest) = match style {
        Style::Value => (lower, digits_and),
        Style::Type => (upper, ('a'..='z').chain('0'..='9').collect()),
        Style::Constant => (upper.clone(), upper.into_iter().chain('0'..='9').collect()),
    };
    let singles: Vec<String> = first.iter().map(|c| c.to_string()).collect();
    let pairs: Vec<String> = first.iter().flat_map(|a| rest.iter().map(move |b| format!("{a}{b}"))).collect();
    let triples: Vec<String> = pairs.iter().flat_map(|p| rest.iter().map(move |b| format!("{p}{b}"))).collect();
    singles.into_iter().chain(pairs).chain(triples)
}

/// `{name}` and `{name:spec}` arguments inside a format string literal, renamed.
fn rename_format_args(literal: &str, map: &HashMap<String, String>) -> String {
    if !literal.starts_with('"') {
        return literal.to_string();
    }
    let chars: Vec<char> = literal.chars().collect();
    let mut out = String::with_capacity(literal.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '{' && chars.get(i + 1) == Some(&'{') {
            out.push_str("{{");
            i += 2;
            continue;
        }
        if chars[i] == '{' {
            let end = (i + 1..chars.len()).find(|&j| !is_ident_char(chars[j])).unwrap_or(chars.len());
            let name: String = chars[i + 1..end].iter().collect();
            if matches!(chars.get(end), Some('}') | Some(':')) {
                if let Some(short) = map.get(&name) {
                    out.push('{');
                    out.push_str(short);
                    i = end;
                    continue;
                }
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The code with its own long names shortened; literals (but for format arguments), comments
/// already gone, white space and every other character as they were.
pub(crate) fn shorten_names(chars: &[char], literal: &[bool]) -> (Vec<char>, Vec<bool>) {
    let tokens = tokens(chars, literal);
    let kept: HashSet<&str> = KEYWORDS.iter().chain(KEPT).copied().collect();
    let mut used: HashSet<String> = HashSet::new();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in &tokens {
        match t {
            Token::Ident(s) => {
                used.insert(s.clone());
                *counts.entry(s.as_str()).or_default() += 1;
            }
            // Words inside literals are taken too: a new name never equals one of them.
            Token::Literal(s) => used.extend(s.split(|c: char| !is_ident_char(c)).filter(|w| !w.is_empty()).map(String::from)),
            Token::Other(_) => {}
        }
    }
    used.extend(KEYWORDS.iter().chain(STD_SHORT).map(|s| s.to_string()));
    let std_names = std_path_names(&tokens);
    let mut names: Vec<(String, Style)> = declared(&tokens).into_iter().filter(|(name, _)| !kept.contains(name.as_str()) && !std_names.contains(name)).collect();
    // The most characters saved first get the shortest names.
    names.sort_by(|a, b| {
        let weight = |n: &(String, Style)| counts.get(n.0.as_str()).copied().unwrap_or(0) * n.0.len();
        weight(b).cmp(&weight(a)).then(a.0.cmp(&b.0))
    });
    let mut pools: HashMap<Style, Box<dyn Iterator<Item = String>>> = HashMap::new();
    let mut map: HashMap<String, String> = HashMap::new();
    for (name, style) in names {
        let pool = pools.entry(style).or_insert_with(|| Box::new(candidates(style)));
        let short = pool.by_ref().find(|c| !used.contains(c)).expect("enough short names");
        if short.len() < name.len() {
            used.insert(short.clone());
            map.insert(name, short);
        }
    }
    let mut out_chars = Vec::with_capacity(chars.len());
    let mut out_literal = Vec::with_capacity(chars.len());
    for t in &tokens {
        let (text, is_literal) = match t {
            Token::Ident(s) => (map.get(s).cloned().unwrap_or_else(|| s.clone()), false),
            Token::Literal(s) => (rename_format_args(s, &map), true),
            Token::Other(s) => (s.clone(), false),
        };
        for c in text.chars() {
            out_chars.push(c);
            out_literal.push(is_literal);
        }
    }
    (out_chars, out_literal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shortened(src: &str) -> String {
        let chars: Vec<char> = src.chars().collect();
        // Literals marked as the bundler's lexer marks them: string and char literals.
        let mut literal = vec![false; chars.len()];
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == '"' {
                let start = i;
                i += 1;
                while chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                literal[start..=i].iter_mut().for_each(|l| *l = true);
            }
            i += 1;
        }
        shorten_names(&chars, &literal).0.into_iter().collect()
    }

    #[test]
    fn declared_names_shrink_and_everything_else_stays() {
        let src = "struct Position { mine: u64, mask: u64 }\nconst LIMIT: usize = 3;\nfn evaluate(position: &Position, weight: i32) -> i32 { let total = position.mine + position.mask; println!(\"{total} {weight:>4} {{position}} {}\", LIMIT); total.len() as i32 }\nfn keep<'long>(x: &'long str) -> Vec<u8> { Vec::new() }";
        let out = shortened(src);
        for gone in ["Position", "mine", "mask", "LIMIT", "evaluate", "weight", "total"] {
            let words: Vec<&str> = out.split(|c: char| !is_ident_char(c)).collect();
            assert!(!words.contains(&gone), "{gone} renamed: {out}");
        }
        // std names, keywords, lifetimes and escaped braces as they were.
        for kept in ["println!", ".len()", "Vec::new()", "'long", "{{position}}", "usize", "u64"] {
            assert!(out.contains(kept), "{kept} kept: {out}");
        }
        // Format arguments follow their variables.
        let total = out.split("let ").nth(1).unwrap().split('=').next().unwrap().trim();
        assert!(out.contains(&format!("\"{{{total}}} {{")), "{out}");
        assert!(out.contains(":>4}"), "{out}");
    }

    #[test]
    fn std_paths_keep_their_names_even_where_the_code_declares_them() {
        let out = shortened("mod time { pub const INFINITY: i32 = 9; }\nuse std::time::Instant;\nfn f() -> f32 { f32::INFINITY + time::INFINITY as f32 }");
        assert!(out.contains("std::time::Instant") && out.contains("mod time") && out.contains("f32::INFINITY"), "{out}");
        // The type after a std trait's path is ours: it is renamed.
        let out = shortened("#[derive(Debug)]\npub struct LongError;\nimpl std::fmt::Display for LongError { fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { Ok(()) } }\nimpl std::error::Error for LongError {}");
        assert!(!out.contains("LongError") && out.contains("std::error::Error for") && out.contains("std::fmt::Formatter"), "{out}");
    }

    #[test]
    fn new_names_are_fresh_and_keep_their_style() {
        let src = "struct LongTypeName; const LONG_CONSTANT: u8 = 1; fn long_function(long_parameter: u8) -> u8 { let a = 2; long_parameter + a + LONG_CONSTANT }";
        let out = shortened(src);
        let words: Vec<&str> = out.split(|c: char| !is_ident_char(c)).filter(|w| !w.is_empty()).collect();
        let struct_name = words[words.iter().position(|&w| w == "struct").unwrap() + 1];
        let const_name = words[words.iter().position(|&w| w == "const").unwrap() + 1];
        let fn_name = words[words.iter().position(|&w| w == "fn").unwrap() + 1];
        assert!(struct_name.starts_with(char::is_uppercase) && struct_name.len() == 1, "{out}");
        assert!(const_name.chars().all(|c| c.is_ascii_uppercase()) && const_name != struct_name, "{out}");
        assert!(fn_name.starts_with(char::is_lowercase) && fn_name != "a", "`a` is taken by the code: {out}");
    }
}
