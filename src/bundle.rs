//! A small bundler: one game's modules of the `bots` crate, with tests and comments removed,
//! inlined into a single source file that plain `rustc` compiles.

use std::collections::HashMap;

include!(concat!(env!("OUT_DIR"), "/bots_sources.rs"));

/// Source characters, each marked as inside a string/char literal or not, comments removed.
struct Lexed {
    chars: Vec<char>,
    literal: Vec<bool>,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Removes comments (doc comments too), keeping literals verbatim and marked.
fn lex(src: &str) -> Result<Lexed, String> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Lexed { chars: Vec::with_capacity(s.len()), literal: Vec::with_capacity(s.len()) };
    let push = |out: &mut Lexed, c: char, lit: bool| {
        out.chars.push(c);
        out.literal.push(lit);
    };
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let prev_ident = i > 0 && is_ident(s[i - 1]);
        if c == '/' && at(i + 1) == '/' {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= s.len() {
                    return Err("unterminated block comment".into());
                }
                if s[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            push(&mut out, ' ', false);
        } else if c == 'r' && (at(i + 1) == '"' || at(i + 1) == '#') && (!prev_ident || (s[i - 1] == 'b' && !(i > 1 && is_ident(s[i - 2])))) {
            // Raw string r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            if at(j) != '"' {
                push(&mut out, c, false);
                i += 1;
                continue;
            }
            let closing: Vec<char> = std::iter::once('"').chain(std::iter::repeat('#').take(hashes)).collect();
            let mut end = j + 1;
            while end < s.len() && s[end..].iter().take(closing.len()).ne(closing.iter()) {
                end += 1;
            }
            if end >= s.len() {
                return Err("unterminated raw string".into());
            }
            for &ch in &s[i..end + closing.len()] {
                push(&mut out, ch, true);
            }
            i = end + closing.len();
        } else if c == '"' {
            push(&mut out, c, true);
            i += 1;
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' {
                    push(&mut out, s[i], true);
                    i += 1;
                }
                push(&mut out, s[i], true);
                i += 1;
            }
            if i >= s.len() {
                return Err("unterminated string".into());
            }
            push(&mut out, '"', true);
            i += 1;
        } else if c == '\'' && (at(i + 1) == '\\' || at(i + 2) == '\'') {
            // A char literal; anything else after a quote is a lifetime.
            push(&mut out, c, true);
            i += 1;
            if s[i] == '\\' {
                push(&mut out, s[i], true);
                i += 1;
            }
            push(&mut out, s[i], true);
            i += 1;
            while i < s.len() && s[i] != '\'' {
                push(&mut out, s[i], true);
                i += 1;
            }
            push(&mut out, '\'', true);
            i += 1;
        } else {
            push(&mut out, c, false);
            i += 1;
        }
    }
    Ok(out)
}

/// Drops every item marked `#[cfg(test)]`, and every item marked `#[cfg(not(bundle))]`: what
/// the library's tools need (a book's text reader, say) and no exported bot does. In a cargo
/// build `bundle` is never set, so those items are always there; in a bundle they are not.
fn strip_tests(l: &mut Lexed) -> Result<(), String> {
    strip_marked(l, "#[cfg(test)]")?;
    strip_marked(l, "#[cfg(not(bundle))]")
}

fn strip_marked(l: &mut Lexed, marker: &str) -> Result<(), String> {
    let marker: Vec<char> = marker.chars().collect();
    loop {
        let found = (0..l.chars.len().saturating_sub(marker.len())).find(|&i| !l.literal[i] && l.chars[i..i + marker.len()] == marker[..]);
        let Some(start) = found else { return Ok(()) };
        let mut i = start + marker.len();
        // Braces, and brackets or parentheses: a `;` inside `[f32; 2]` ends nothing.
        let (mut depth, mut nested) = (0usize, 0usize);
        let end = loop {
            if i >= l.chars.len() {
                return Err(format!("unterminated {} item", marker.iter().collect::<String>()));
            }
            if !l.literal[i] {
                match l.chars[i] {
                    ';' if depth == 0 && nested == 0 => break i,
                    '[' | '(' => nested += 1,
                    ']' | ')' => nested = nested.saturating_sub(1),
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break i;
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
        };
        l.chars.drain(start..=end);
        l.literal.drain(start..=end);
    }
}

/// Drops every `debug_assert!(..);` statement (`_eq`, `_ne` too): an exported bot is built
/// with `rustc -O`, where they compile to nothing, and Connect 4's 100,000 bytes are tight.
fn strip_debug_asserts(l: &mut Lexed) {
    let marker: Vec<char> = "debug_assert".chars().collect();
    let mut from = 0;
    while let Some(start) = (from..l.chars.len().saturating_sub(marker.len())).find(|&i| {
        !l.literal[i] && l.chars[i..i + marker.len()] == marker[..] && (i == 0 || l.literal[i - 1] || !is_ident(l.chars[i - 1]))
    }) {
        from = start + 1;
        // The macro's name ends at `!(`; then the matching `)` and the statement's `;`.
        let mut i = start + marker.len();
        while i < l.chars.len() && is_ident(l.chars[i]) {
            i += 1;
        }
        if l.chars.get(i..i + 2) != Some(&['!', '('][..]) {
            continue;
        }
        let mut depth = 0usize;
        let close = (i + 1..l.chars.len()).find(|&k| {
            if l.literal[k] {
                return false;
            }
            match l.chars[k] {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            depth == 0
        });
        let Some(close) = close else { return };
        let mut end = close + 1;
        while end < l.chars.len() && l.chars[end].is_whitespace() {
            end += 1;
        }
        if l.chars.get(end) != Some(&';') || l.literal[end] {
            continue;
        }
        l.chars.drain(start..=end);
        l.literal.drain(start..=end);
        from = start;
    }
}

/// Drops the message of every `assert!`, `assert_eq!` and `assert_ne!` (from the first
/// argument that is a string literal on): a bot that breaks one stops all the same, and the
/// messages cost a CodinGame bot characters its weights need.
fn strip_assert_messages(l: &mut Lexed) {
    let mut i = 0;
    while i < l.chars.len() {
        let starts_name = !l.literal[i] && l.chars[i] == 'a' && (i == 0 || l.literal[i - 1] || !is_ident(l.chars[i - 1]));
        // The macro, and how many arguments come before its message.
        let found = starts_name
            .then(|| [("assert!(", 1), ("assert_eq!(", 2), ("assert_ne!(", 2)].iter().map(|&(m, n)| (m.chars().collect::<Vec<char>>(), n)).find(|(m, _)| l.chars.get(i..i + m.len()) == Some(&m[..])).map(|(m, n)| (i + m.len(), n)))
            .flatten();
        let Some((open, operands)) = found else {
            i += 1;
            continue;
        };
        // The argument list up to its closing `)`, and the first top-level comma after the
        // operands that a string literal follows.
        let (mut depth, mut k, mut commas, mut message) = (0usize, open, 0, None);
        while k < l.chars.len() {
            if !l.literal[k] {
                match l.chars[k] {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' if depth == 0 => break,
                    ')' | ']' | '}' => depth -= 1,
                    ',' if depth == 0 => {
                        commas += 1;
                        let next = (k + 1..l.chars.len()).find(|&j| l.literal[j] || !l.chars[j].is_whitespace());
                        if message.is_none() && commas >= operands && next.map_or(false, |j| l.literal[j] && l.chars[j] == '"') {
                            message = Some(k);
                        }
                    }
                    _ => {}
                }
            }
            k += 1;
        }
        if let Some(comma) = message.filter(|_| k < l.chars.len()) {
            l.chars.drain(comma..k);
            l.literal.drain(comma..k);
        }
        i = open;
    }
}

/// Two-character tokens: a space between their halves must stay, or the meaning changes.
const TOKEN_PAIRS: [&str; 24] = [
    "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "..", "//", "/*", "*/", "<-",
];

/// Whether the space between `b` and `a` can go without changing how the code lexes.
fn can_join(b: char, a: char) -> bool {
    let word = |c: char| is_ident(c);
    // Identifier next to identifier, or an identifier touching a literal (Rust 2021 reserves
    // `ident"..."`, `ident'...'` and `ident#`; `"..."ident` would read as a literal suffix).
    if (word(b) && word(a)) || (word(b) && "\"'#".contains(a)) || ("\"'".contains(b) && word(a)) {
        return false;
    }
    !TOKEN_PAIRS.iter().any(|t| t.starts_with(b) && t.ends_with(a) && t.len() == 2)
}

/// Removes indentation, line breaks and every space that separates nothing; literals are
/// untouched. A needed separator that spanned lines stays a line break.
fn minify(l: &Lexed) -> String {
    let mut out = String::with_capacity(l.chars.len());
    let mut i = 0;
    while i < l.chars.len() {
        let c = l.chars[i];
        if l.literal[i] || !c.is_whitespace() {
            out.push(c);
            i += 1;
            continue;
        }
        let mut newline = false;
        while i < l.chars.len() && !l.literal[i] && l.chars[i].is_whitespace() {
            newline |= l.chars[i] == '\n';
            i += 1;
        }
        match (out.chars().last(), l.chars.get(i).copied()) {
            (None, _) | (_, None) | (Some('\n'), _) => {}
            (Some(b), Some(a)) if can_join(b, a) => {}
            _ => out.push(if newline { '\n' } else { ' ' }),
        }
    }
    out
}

fn module_source<'a>(sources: &HashMap<&str, &'a str>, dir: &str, name: &str) -> Result<(String, &'a str), String> {
    for candidate in [format!("{dir}{name}.rs"), format!("{dir}{name}/mod.rs")] {
        if let Some(text) = sources.get(candidate.as_str()) {
            return Ok((candidate, text));
        }
    }
    Err(format!("module {dir}{name} not found in the bots sources"))
}

/// The text of module file `path` with its `mod x;` lines replaced by the modules' contents;
/// a module whose path (`mcts`, `connect4/classic`) `keep` refuses is left out.
fn expand(sources: &HashMap<&str, &str>, path: &str, text: &str, keep: &dyn Fn(&str) -> bool, left_out: &[&str]) -> Result<String, String> {
    let mut lexed = lex(text).map_err(|e| format!("{path}: {e}"))?;
    strip_tests(&mut lexed).map_err(|e| format!("{path}: {e}"))?;
    for marker in left_out {
        strip_marked(&mut lexed, marker).map_err(|e| format!("{path}: {e}"))?;
    }
    strip_debug_asserts(&mut lexed);
    strip_assert_messages(&mut lexed);
    let code: String = lexed.chars.iter().collect();
    // Where its `mod x;` files lie: beside a `mod.rs`, in the folder named after any other file.
    let dir = match path.rsplit_once('/') {
        _ if path == "lib.rs" => String::new(),
        Some((d, "mod.rs")) => format!("{d}/"),
        _ => format!("{}/", path.trim_end_matches(".rs")),
    };
    let mut out = String::with_capacity(code.len());
    for line in code.lines() {
        let t = line.trim();
        let declaration = t.strip_prefix("pub ").unwrap_or(t).strip_prefix("mod ").and_then(|r| r.strip_suffix(';'));
        match declaration {
            Some(name) if name.chars().all(is_ident) => {
                if !keep(&format!("{dir}{name}")) {
                    continue;
                }
                let (child_path, child) = module_source(sources, &dir, name)?;
                out.push_str(&format!("pub mod {name} {{\n{}\n}}\n", expand(sources, &child_path, child, keep, left_out)?));
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// All source text of top-level module `name` (its file, or its folder).
fn module_text(sources: &HashMap<&str, &str>, name: &str) -> String {
    let folder = format!("{name}/");
    sources
        .iter()
        .filter(|(path, _)| **path == format!("{name}.rs") || path.starts_with(&folder))
        .map(|(_, text)| *text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Top-level modules reached from `roots` through `crate::name` paths (tests excluded).
fn reachable_modules(sources: &HashMap<&str, &str>, roots: &[&str]) -> Result<Vec<String>, String> {
    let mut keep: Vec<String> = roots.iter().map(|r| r.to_string()).collect();
    let mut k = 0;
    while k < keep.len() {
        let mut lexed = lex(&module_text(sources, &keep[k]))?;
        strip_tests(&mut lexed)?;
        let code: String = lexed.chars.iter().collect();
        for (at, _) in code.match_indices("crate::") {
            let name: String = code[at + 7..].chars().take_while(|&c| is_ident(c)).collect();
            if !name.is_empty() && !keep.contains(&name) {
                keep.push(name);
            }
        }
        k += 1;
    }
    Ok(keep)
}

/// The module a source file holds: `connect4/search.rs` and `connect4/search/mod.rs` both hold
/// `connect4/search`.
fn module_path(file: &str) -> String {
    file.trim_end_matches(".rs").trim_end_matches("/mod").to_string()
}

/// Submodules of a game that only the tools use (the judge's rules, the trainer's side, the viewer's pictures):
/// no bundle carries them.
const TOOL_SUBMODULES: [&str; 3] = ["referee", "training", "view"];

/// The submodules of game module `game` (`connect4/protocol`, ...) a bundle for `engine`
/// carries. The classic bot's carries them all but the tools' ([`TOOL_SUBMODULES`]). The net
/// bot's carries `protocol` (the contest side: the game's `Contest` impl, found by trait, never
/// named by path) and those named by path (`search::`, `endgame::`) from the game's module or
/// another carried submodule, never from `classic`: so a submodule only the classic bot needs
/// stays out of a net bot.
fn game_submodules(sources: &HashMap<&str, &str>, game: &str, engine: BundledEngine) -> Result<Vec<String>, String> {
    let folder = format!("{game}/");
    // Direct submodules only: `connect4/search`, not what a submodule holds.
    let mut all: Vec<String> = sources
        .keys()
        .filter(|path| path.starts_with(&folder))
        .map(|path| module_path(path))
        .filter(|module| module.matches('/').count() == 1)
        .filter(|module| !TOOL_SUBMODULES.iter().any(|tool| module.ends_with(&format!("/{tool}"))))
        .collect();
    all.sort();
    all.dedup();
    if engine == BundledEngine::Classic {
        return Ok(all);
    }
    let code_of = |path: &str| -> Result<String, String> {
        let text = sources.get(format!("{path}.rs").as_str()).or_else(|| sources.get(format!("{path}/mod.rs").as_str()));
        let mut lexed = lex(text.ok_or(format!("module {path} not found in the bots sources"))?)?;
        strip_tests(&mut lexed)?;
        Ok(lexed.chars.iter().collect())
    };
    let names = |text: &str, name: &str| {
        text.match_indices(&format!("{name}::")).any(|(at, _)| !text[..at].ends_with(is_ident))
    };
    let mut kept = vec![format!("{game}/protocol")];
    let mut texts = vec![code_of(game)?];
    let mut k = 0;
    loop {
        while k < kept.len() {
            texts.push(code_of(&kept[k])?);
            k += 1;
        }
        let named: Vec<String> = all
            .iter()
            .filter(|p| !kept.contains(p) && !p.ends_with("/classic"))
            .filter(|p| texts.iter().any(|t| names(t, p.rsplit('/').next().unwrap_or(p))))
            .cloned()
            .collect();
        if named.is_empty() {
            return Ok(kept);
        }
        kept.extend(named);
    }
}

/// Which bot a bundle carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BundledEngine {
    /// The net bot: the game's `classic` submodule is left out, so a submission carries no
    /// code it never runs (Connect 4's net bot fills CodinGame's 100,000 bytes).
    Net,
    /// The classic bot: the `classic` module and the game's own `classic` submodule.
    Classic,
}

/// Marks what only CPUs without AVX2 run (the 128-bit kernels): a bundle for a platform whose
/// CPUs all have AVX2 leaves those items out (such a bot runs the plain code there). Cargo
/// never sets the cfg, nor the others below.
pub const AVX2_ONLY_MARKER: &str = "#[cfg(not(avx2_platform))]";

/// Marks the lines of the tree search that only a game listing some of a node's actions runs
/// (`Contest::KEPT_CANDIDATES`): a bundle for a game whose nodes list every action, or for a
/// classic bot, leaves them out (Connect 4's 100,000 characters are tight).
pub const EVERY_ACTION_LISTED_MARKER: &str = "#[cfg(not(every_action_listed))]";

/// Marks the reader of one weight storage (`bots::nn`): a bundle whose weights use none of
/// it leaves it out.
pub const WEIGHT_READER_MARKERS: [(bots::nn::StorageKind, &str); 4] = [
    (bots::nn::StorageKind::F32, "#[cfg(not(no_f32_weights))]"),
    (bots::nn::StorageKind::F16, "#[cfg(not(no_f16_weights))]"),
    (bots::nn::StorageKind::Int, "#[cfg(not(no_int_weights))]"),
    (bots::nn::StorageKind::Coded, "#[cfg(not(no_coded_weights))]"),
];

/// Marks the reading of one text alphabet (`bots::text`): a bundle whose text is written in the
/// other leaves it out.
pub const TEXT_READER_MARKERS: [(bots::text::Alphabet, &str); 2] = [(bots::text::Alphabet::Ascii, "#[cfg(not(no_ascii_text))]"), (bots::text::Alphabet::Wide, "#[cfg(not(no_wide_text))]")];

/// Bundles the modules of `bots` that the bot program and game module `game_module` need,
/// followed by `main_text`. Returns the code, minified. Items marked with one of `left_out`
/// ([`AVX2_ONLY_MARKER`], [`WEIGHT_READER_MARKERS`], [`TEXT_READER_MARKERS`]) stay out.
pub fn bundle_bots(game_module: &str, main_text: &str, engine: BundledEngine, left_out: &[&str]) -> Result<String, String> {
    let mut sources: HashMap<&str, &str> = BOTS_SOURCES.iter().copied().collect();
    if !sources.contains_key(format!("{game_module}/mod.rs").as_str()) {
        return Err(format!("no game module {game_module} in bots"));
    }
    // The game's files the bundle leaves out do not count for what the rest needs either.
    let game_parts = game_submodules(&sources, game_module, engine)?;
    let folder = format!("{game_module}/");
    sources.retain(|path, _| {
        let module = module_path(path);
        !path.starts_with(&folder) || module == game_module || game_parts.iter().any(|p| module == *p || module.starts_with(&format!("{p}/")))
    });
    let mut roots: Vec<&str> = match engine {
        BundledEngine::Net => vec!["bot", game_module],
        BundledEngine::Classic => vec!["bot", "classic", game_module],
    };
    // And whatever top-level module `main` calls into (`book::` for a bot with a book).
    let names: Vec<&str> = sources.keys().filter_map(|path| path.strip_suffix(".rs")).filter(|name| !name.contains('/')).collect();
    for name in names {
        if main_text.contains(&format!("{name}::")) && !roots.contains(&name) {
            roots.push(name);
        }
    }
    let needed = reachable_modules(&sources, &roots)?;
    // A game's submodules as `game_submodules` chose them; another module's go with it.
    let keep = |path: &str| match path.split_once('/') {
        None => needed.iter().any(|n| n == path),
        Some((top, _)) if top == game_module => game_parts.iter().any(|p| p == path),
        Some((top, _)) => needed.iter().any(|n| n == top),
    };
    let lib = sources.get("lib.rs").ok_or("bots/src/lib.rs missing")?;
    let code = expand(&sources, "lib.rs", &lib_with_games(lib)?, &keep, left_out)?;
    let lexed = lex(&format!("{code}\n{main_text}"))?;
    Ok(minify(&lexed))
}

/// `lib.rs` with its registry of games (`registry::games! { connect4::Connect4, ... }`) turned
/// into a `pub mod` line per game, and its module lines in one fixed order: byte by byte
/// the order `lib.rs` listed its modules in before the registry (ASCII, where a name's end
/// sorts after digits and before `_` and letters: `game6561`, `game`, `nn`, `nn_write`), so
/// that a bundle does not depend on where a module is declared.
fn lib_with_games(lib: &str) -> Result<String, String> {
    const REGISTRY: &str = "registry::games!";
    let mut lexed = lex(lib)?;
    strip_tests(&mut lexed)?;
    let code: String = lexed.chars.iter().collect();
    let start = code.find(REGISTRY).ok_or("bots/src/lib.rs has no registry of games")?;
    let open = start + code[start..].find('{').ok_or("the registry of games has no list")?;
    let close = open + code[open..].find('}').ok_or("the registry of games is not closed")?;
    let mut modules = Vec::new();
    for entry in code[open + 1..close].split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (module, _) = entry.split_once("::").ok_or_else(|| format!("registry entry {entry:?} is not module::Type"))?;
        modules.push(module.trim().to_string());
    }
    let rest = format!("{}{}", &code[..start], &code[close + 1..]);
    let mut other_lines = Vec::new();
    for line in rest.lines() {
        match line.trim().strip_prefix("pub mod ").and_then(|r| r.strip_suffix(';')) {
            Some(name) => modules.push(name.to_string()),
            None => other_lines.push(line.to_string()),
        }
    }
    let key = |name: &str| format!("{name}:");
    modules.sort_by_key(|m| key(m));
    let mut out = other_lines.join("\n");
    for module in modules {
        out.push_str(&format!("\npub mod {module};"));
    }
    out.push('\n');
    Ok(out)
}

/// `code` (a bundle) with the names it declares shortened ([`crate::shorten`]), minified.
pub fn shorten(code: &str) -> Result<String, String> {
    let lexed = lex(code)?;
    let (chars, literal) = crate::shorten::shorten_names(&lexed.chars, &lexed.literal);
    Ok(minify(&Lexed { chars, literal }))
}

/// `code` (a minified bundle, `extra` the items it is completed with, such as the weights) with
/// the functions and constants it never uses taken out, as `rustc`'s dead-code analysis finds
/// them: a bundle holds a whole module where a bot needs a few of its functions, and
/// CodinGame's 100,000 characters are shared with the weights. Only free functions, functions
/// of inherent impls and constants go (never a trait's items); rounds repeat while one
/// removes something. Without a `rustc` to ask, `code` comes back as it was.
pub fn prune_unused(code: &str, extra: &str) -> String {
    let original = code.to_string();
    let mut code = code.to_string();
    // First only names written once; then, where shortening gave an unused item the name of
    // another (a method `b7` beside a module `b7`), every item rustc finds dead, a round kept
    // only when the rest still builds.
    let mut names_written_once = true;
    for _ in 0..12 {
        let Some(dead) = dead_items(&code, extra) else { break };
        let Ok(lexed) = lex(&code) else { break };
        let mut cuts: Vec<(usize, usize)> = dead.iter().filter(|&&at| !names_written_once || named_once(&lexed, at)).filter_map(|&at| item_extent(&lexed, at)).collect();
        cuts.sort_unstable();
        cuts.dedup_by(|b, a| b.0 < a.1);
        if cuts.is_empty() {
            if names_written_once {
                names_written_once = false;
                continue;
            }
            break;
        }
        let chars: Vec<char> = code.chars().collect();
        let mut kept = String::with_capacity(code.len());
        let mut from = 0;
        for (start, end) in cuts {
            kept.extend(&chars[from..start]);
            from = end;
        }
        kept.extend(&chars[from..]);
        if !names_written_once && dead_items(&kept, extra).is_none() {
            break;
        }
        code = kept;
    }
    // What is left must still build; otherwise the bundle stays whole.
    if code != original && dead_items(&code, extra).is_none() {
        return original;
    }
    code
}

/// Whether the identifier starting at `at` appears nowhere else in the code (outside literals).
fn named_once(l: &Lexed, at: usize) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let end = (at..l.chars.len()).find(|&i| !is_ident(l.chars[i])).unwrap_or(l.chars.len());
    let name = &l.chars[at..end];
    let mut count = 0;
    let mut i = 0;
    while i + name.len() <= l.chars.len() {
        if !l.literal[i] && l.chars[i..i + name.len()] == *name && (i == 0 || !is_ident(l.chars[i - 1])) && l.chars.get(i + name.len()).map_or(true, |&c| !is_ident(c)) {
            count += 1;
            if count > 1 {
                return false;
            }
            i += name.len();
        } else {
            i += 1;
        }
    }
    count == 1
}

/// `code` (a minified bundle, completed by `extra`) with `Debug` taken out of every derive
/// whose type no code prints or unwraps: `rustc` names the types that still need it, which
/// keep it. Unchanged where it does not build otherwise, or without a `rustc`.
pub fn drop_unused_debug(code: &str, extra: &str) -> String {
    let mut keep: Vec<String> = Vec::new();
    for _ in 0..3 {
        let candidate = without_debug(code, &keep);
        if candidate == code {
            return candidate;
        }
        let Some((built, stderr)) = rustc_check(&candidate, extra) else { return code.to_string() };
        if built {
            return candidate;
        }
        let before = keep.len();
        for message in stderr.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()).filter_map(|d| d["message"].as_str().map(str::to_string)) {
            // "`Ab` doesn't implement `Debug`", "`Ab` doesn't implement `std::fmt::Debug`"
            if let Some(name) = message.strip_prefix('`').and_then(|m| m.split('`').next()).filter(|_| message.contains("implement") && message.contains("Debug")) {
                let name = name.split('<').next().unwrap_or(name).to_string();
                if !keep.contains(&name) {
                    keep.push(name);
                }
            }
        }
        if keep.len() == before {
            break;
        }
    }
    code.to_string()
}

/// `code` with `Debug` out of the derives of every type but `keep`'s (a derive left empty goes).
fn without_debug(code: &str, keep: &[String]) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[derive(") {
        out.push_str(&rest[..at]);
        let Some(close) = rest[at..].find(")]").map(|c| at + c) else { break };
        let list: Vec<&str> = rest[at + 9..close].split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
        // The derived type: after any further attributes, `pub`, then `struct` or `enum`.
        let after = &rest[close + 2..];
        let name = after.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).skip_while(|w| !matches!(*w, "struct" | "enum")).nth(1).unwrap_or("");
        let kept: Vec<&str> = list.iter().copied().filter(|&t| t != "Debug" || keep.iter().any(|k| k == name)).collect();
        if !kept.is_empty() {
            out.push_str(&format!("#[derive({})]", kept.join(",")));
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Compiles `code` + `extra` for analysis (`--emit=metadata`, its modules made private so that
/// the analysis sees the whole bot): whether it built, and rustc's JSON diagnostics; `None`
/// without a `rustc`.
fn rustc_check(code: &str, extra: &str) -> Option<(bool, String)> {
    let dir = std::env::temp_dir().join(format!("cupzero-prune-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join("bot.rs");
    // Same length: offsets in the analysed text are offsets in `code`.
    let private = code.replace("pub mod ", "    mod ");
    std::fs::write(&file, format!("{private}{extra}")).ok()?;
    let output = std::process::Command::new("rustc")
        .args(["--edition", "2021", "--crate-type", "bin", "--emit=metadata", "--error-format=json", "-W", "dead_code", "-o"])
        .arg(dir.join("bot.rmeta"))
        .arg(&file)
        .output()
        .ok();
    let _ = std::fs::remove_dir_all(&dir);
    let output = output?;
    Some((output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned()))
}

/// Where (char offsets of their names) `rustc` finds unused items in `code` + `extra`; `None`
/// where it does not build, or without a `rustc`.
fn dead_items(code: &str, extra: &str) -> Option<Vec<usize>> {
    let (built, stderr) = rustc_check(code, extra)?;
    if !built {
        return None;
    }
    let private = code.replace("pub mod ", "    mod ");
    // Byte offsets to char offsets.
    let char_at: Vec<usize> = {
        let mut map = vec![0; private.len() + 1];
        for (n, (byte, _)) in private.char_indices().enumerate() {
            map[byte] = n;
        }
        map[private.len()] = private.chars().count();
        map
    };
    let mut found = Vec::new();
    for line in stderr.lines() {
        let Ok(diagnostic) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if diagnostic["code"]["code"] != "dead_code" {
            continue;
        }
        for span in diagnostic["spans"].as_array().into_iter().flatten() {
            if let Some(start) = span["byte_start"].as_u64().map(|b| b as usize).filter(|&b| b < private.len()) {
                found.push(char_at[start]);
            }
        }
    }
    Some(found)
}

/// The extent of the free function, inherent function or constant whose name starts at
/// `name`, its attributes and `pub` included; `None` for anything else (a trait's items, a
/// struct, a field).
fn item_extent(l: &Lexed, name: usize) -> Option<(usize, usize)> {
    let text: String = l.chars[..name].iter().collect();
    let before = text.trim_end();
    let kind = if before.ends_with("fn") { "fn" } else if before.ends_with("const") && !before.ends_with("const fn") { "const" } else { return None };
    let mut start = before.len() - kind.len();
    // Qualifiers and attributes before the keyword.
    loop {
        let head = text[..start].trim_end();
        let trimmed = ["pub(crate)", "pub", "unsafe", "const", "extern \"C\""].iter().find(|q| head.ends_with(*q)).map(|q| head.len() - q.len());
        if let Some(at) = trimmed {
            start = at;
            continue;
        }
        if head.ends_with(']') {
            // An attribute: back to its `#[`.
            match head.rfind("#[") {
                Some(at) => {
                    start = at;
                    continue;
                }
                None => return None,
            }
        }
        break;
    }
    // The item's block: not a trait or a trait impl.
    let mut depth = 0i32;
    let mut i = start;
    while i > 0 {
        i -= 1;
        if l.literal[i] {
            continue;
        }
        match l.chars[i] {
            '}' => depth += 1,
            '{' if depth == 0 => {
                let header: String = l.chars[..i].iter().rev().take_while(|&&c| c != '}' && c != ';' && c != '{').collect::<Vec<_>>().into_iter().rev().collect();
                let header = header.trim();
                if header.contains("trait ") || (header.starts_with("impl") && header.contains(" for ")) {
                    return None;
                }
                break;
            }
            '{' => depth -= 1,
            _ => {}
        }
    }
    // The end: a body's closing brace, or a constant's `;`.
    let mut depth = 0i32;
    let mut i = name;
    while i < l.chars.len() {
        if !l.literal[i] {
            match l.chars[i] {
                ';' if depth == 0 && kind == "const" => return Some((start, i + 1)),
                ';' if depth == 0 => return None,
                '{' | '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 && kind == "fn" {
                        return Some((start, i + 1));
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(src: &str) -> String {
        let mut l = lex(src).unwrap();
        strip_tests(&mut l).unwrap();
        minify(&l)
    }

    #[test]
    fn comments_go_literals_stay() {
        let src = "/// doc\nfn a() -> &'static str { // tail\n    let c = '\"'; let d = '\\''; /* block /* nested */ */\n    \"// not a comment { \\\" \"\n}\n";
        let out = clean(src);
        assert!(!out.contains("doc") && !out.contains("tail") && !out.contains("nested"), "{out}");
        assert!(out.contains("\"// not a comment { \\\" \""), "{out}");
        assert!(out.contains("'\"'") && out.contains("'\\''") && out.contains("&'static str"), "{out}");
    }

    #[test]
    fn debug_assert_statements_go_everything_else_stays() {
        let src = "fn f(a: &[u8]) -> u8 {\n    debug_assert!(a.len() > 1, \"short ( {}\", a.len());\n    debug_assert_eq!(a[0], (a[1]));\n    let my_debug_assert = 1;\n    assert!(a[0] < 9, \"debug_assert!(x);\");\n    a[0]\n}\nfn g() -> bool { debug_assert!(true) }\n";
        let mut l = lex(src).unwrap();
        strip_debug_asserts(&mut l);
        let out = minify(&l);
        assert!(!out.contains("debug_assert!(a.len") && !out.contains("debug_assert_eq!"), "{out}");
        assert!(out.contains("let my_debug_assert=1;") && out.contains("assert!(a[0]<9,\"debug_assert!(x);\");a[0]}"), "{out}");
        assert!(out.contains("{debug_assert!(true)}"), "a tail expression stays: {out}");
    }

    #[test]
    fn test_items_are_removed_whatever_their_braces() {
        let src = "fn keep() {}\n#[cfg(test)]\nmod tests {\n    fn f() { let s = \"}\"; let c = '{'; }\n}\nfn also_keep() {}\n#[cfg(test)]\nuse x::y;\n";
        let out = clean(src);
        assert!(out.contains("fn keep()") && out.contains("fn also_keep()"), "{out}");
        assert!(!out.contains("tests") && !out.contains("x::y"), "{out}");
    }

    #[test]
    fn items_only_the_tools_need_are_removed() {
        let src = "impl Book {\n    #[cfg(not(bundle))]\n    pub fn parse(t: &str) -> Book { let b = \"}\"; Book }\n    pub fn lookup(&self) {}\n}\n#[cfg(not(bundle))]\nimpl Default for Book { fn default() -> Self { Book } }\n#[cfg(not(bundled))]\nfn other_cfg_stays() {}\n";
        let out = clean(src);
        assert!(!out.contains("parse") && !out.contains("Default"), "{out}");
        assert!(out.contains("pub fn lookup(&self){}") && out.contains("fn other_cfg_stays()"), "{out}");
    }

    #[test]
    fn raw_strings_are_literals() {
        let src = "let a = r#\"// { \" }\"#; let b = br\"/*\";";
        let out = clean(src);
        assert!(out.contains("r#\"// { \" }\"#") && out.contains("br\"/*\""), "{out}");
    }

    #[test]
    fn spaces_go_only_where_tokens_stay_apart() {
        let out = clean("let x: Vec<u8> = a >> 1;\nif a & &b == c { return \"s\"; }\nlet r = 0 .. 3;\nfn f<'a>(x: &'a str) {}\n");
        assert_eq!(out, "let x:Vec<u8> =a>>1;if a& &b==c{return \"s\";}let r=0..3;fn f<'a>(x:&'a str){}");
    }

    #[test]
    fn bundle_keeps_only_the_asked_game_and_has_no_tests() {
        let code = bundle_bots("connect4", "fn main() {}", BundledEngine::Net, &[]).unwrap();
        assert!(code.contains("pub mod connect4{"), "connect4 inlined");
        assert!(!code.contains("pub mod classic{"), "the net bot carries no classic code");
        assert!(code.contains("pub mod mcts{"));
        assert!(!code.contains("pub mod nn_write"), "the weight writer is not reachable from the bot");
        assert!(!code.contains("#[cfg(test)]") && !code.contains("#[test]"));
        assert!(!code.contains("mod connect4;"), "every mod declaration expanded");
        assert!(bundle_bots("chess", "", BundledEngine::Net, &[]).is_err());
        let classic = bundle_bots("connect4", "fn main() {}", BundledEngine::Classic, &[]).unwrap();
        assert!(classic.matches("pub mod classic{").count() == 2, "the classic trait and Connect 4's classic bot");
        // A game submodule only the classic bot names stays out of the net bot; one the net
        // bot's code names goes in.
        assert!(!code.contains("pub mod search{") && classic.contains("pub mod search{"), "Connect 4's alpha-beta");
        assert!(!code.contains("pub mod solver{"), "nor what only that module needs");
        let black_hole = bundle_bots("blackhole", "fn main() {}", BundledEngine::Net, &[]).unwrap();
        assert!(black_hole.contains("pub mod endgame{") && black_hole.contains("pub mod protocol{"), "Black Hole's net bot plays its endgame exactly");
        assert!(!classic.contains("pub mod zuniq{") && !classic.contains("pub mod blackhole{"));
        let avx2 = bundle_bots("connect4", "fn main() {}", BundledEngine::Net, &[AVX2_ONLY_MARKER]).unwrap();
        let kernels = |code: &str| ["sse", "avx", "avx2"].map(|set| code.contains(&format!("pub mod {set}{{")));
        assert_eq!((kernels(&code), kernels(&avx2)), ([true; 3], [false, false, true]), "a bundle for AVX2 platforms carries AVX2's kernels alone");
        let f16_alone: Vec<&str> = WEIGHT_READER_MARKERS.iter().filter(|(kind, _)| *kind != bots::nn::StorageKind::F16).map(|&(_, m)| m).collect();
        let f16 = bundle_bots("connect4", "fn main() {}", BundledEngine::Net, &f16_alone).unwrap();
        assert!(code.contains("RangeDecoder::new") && !f16.contains("RangeDecoder::new") && f16.contains("f16_to_f32(u16"), "a bundle reads only its weights' storages");
    }

    #[test]
    fn debug_goes_from_derives_but_those_named() {
        let code = "#[derive(Clone,Debug)]pub struct Ab{x:u8}#[derive(Debug)]#[repr(u8)]enum Bc{X}#[derive(Debug,Copy,Clone)]pub enum Cd{Y}";
        assert_eq!(without_debug(code, &[]), "#[derive(Clone)]pub struct Ab{x:u8}#[repr(u8)]enum Bc{X}#[derive(Copy,Clone)]pub enum Cd{Y}");
        assert_eq!(without_debug(code, &["Bc".to_string()]), "#[derive(Clone)]pub struct Ab{x:u8}#[derive(Debug)]#[repr(u8)]enum Bc{X}#[derive(Copy,Clone)]pub enum Cd{Y}");
    }

    #[test]
    fn assert_messages_go_and_conditions_stay() {
        let mut l = lex("assert!(a(x, \",\"), \"at {}\", k); assert_eq!(v, [1, 2], \"x\"); assert_ne!(f(|a, b| a), \"s\"); assert_eq!(t, \"s\", \"m {}\", 1); assert!(ok);").unwrap();
        strip_assert_messages(&mut l);
        assert_eq!(l.chars.iter().collect::<String>(), "assert!(a(x, \",\")); assert_eq!(v, [1, 2]); assert_ne!(f(|a, b| a), \"s\"); assert_eq!(t, \"s\"); assert!(ok);");
    }

    #[test]
    fn a_marked_item_goes_whole_whatever_its_signature_holds() {
        let mut l = lex("#[cfg(not(avx2_platform))]\n#[inline]\nfn f(a: [u8; 2]) -> [f32; 3] { g(); }\nfn h() {}").unwrap();
        strip_marked(&mut l, AVX2_ONLY_MARKER).unwrap();
        assert_eq!(l.chars.iter().collect::<String>().trim(), "fn h() {}");
    }
}
