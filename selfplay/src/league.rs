//! A league: a pool of players (built-in bots, nets, any contest program), games between them
//! kept in a results file that only grows, and ratings fitted over all its games.
//!
//! - The pool file (TOML) names the players; players can be added or marked `retired` (they
//!   play no more games, their games still count) in a league that already has games. A
//!   builtin or net plays on the clock, or at a budget of playouts a move; two budget players
//!   meet in-process (the caller plays those games).
//! - Results go to a JSON-lines file, one game a line, written and flushed as each game ends:
//!   a league killed at any moment loses at most the games in progress, and a line cut short
//!   by the kill is dropped (with one warning) and its game played again.
//! - Ratings: the logistic Elo model (Bradley-Terry, a draw counting half a win), fitted by
//!   maximum likelihood over every game (Hunter's MM iterations), centred on the pool's mean,
//!   with 95% intervals from the Fisher information, as BayesElo and Ordo report them. One
//!   virtual draw per pairing that has played keeps an unbeaten player's rating finite.
//! - A sequential test per pairing (`pairing_sprt`, the pentanomial SPRT of `judge`) takes a
//!   decided pairing off the schedule; it is worked out from the results file, so it resumes.

use crate::sprt::{Decision, PairedScores, Sprt};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One player of the pool file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlayerEntry {
    pub name: String,
    /// A built-in bot: `classic`, `uct`, `random`, or a player of the game's field.
    pub builtin: Option<String>,
    /// Its budget a move (playouts, or nodes for an alpha-beta classic bot); absent: the
    /// clock. Two players with budgets play each other in-process, without the referee.
    pub playouts: Option<u64>,
    /// A net (.czw): the exported bot's search on the clock, or at `playouts` a move.
    pub net: Option<PathBuf>,
    /// Any program speaking the contest protocol, run by the shell.
    pub command: Option<String>,
    /// Plays no more games; its games still count.
    #[serde(default)]
    pub retired: bool,
}

/// What a player is.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerKind {
    Builtin { engine: String, playouts: Option<u64> },
    Net { path: PathBuf, playouts: Option<u64> },
    Command(String),
}

impl PlayerKind {
    /// Playouts a move, for a player that plays at a budget instead of on the clock.
    pub fn budget(&self) -> Option<u64> {
        match self {
            PlayerKind::Builtin { playouts, .. } | PlayerKind::Net { playouts, .. } => *playouts,
            PlayerKind::Command(_) => None,
        }
    }
}

impl PlayerEntry {
    /// What the player is; `builtins` names the game's built-in players.
    pub fn kind(&self, builtins: &[&str]) -> Result<PlayerKind, String> {
        let who = &self.name;
        match (&self.builtin, &self.net, &self.command) {
            (Some(engine), None, None) => {
                if !builtins.contains(&engine.as_str()) {
                    let names: Vec<String> = builtins.iter().map(|b| format!("{b:?}")).collect();
                    return Err(format!("player {who:?}: builtin must be one of {}, not {engine:?}", names.join(", ")));
                }
                Ok(PlayerKind::Builtin { engine: engine.clone(), playouts: self.playouts })
            }
            _ if self.playouts == Some(0) => Err(format!("player {who:?}: playouts must be at least 1")),
            (None, Some(net), None) => Ok(PlayerKind::Net { path: net.clone(), playouts: self.playouts }),
            (None, None, Some(command)) if self.playouts.is_none() => Ok(PlayerKind::Command(command.clone())),
            (None, None, Some(_)) => Err(format!("player {who:?}: a program plays on the clock (playouts goes with builtin and net players)")),
            _ => Err(format!("player {who:?}: give exactly one of builtin, net or command")),
        }
    }
}

/// The pool file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pool {
    /// Games per pairing (in pairs: the same opening with the seats swapped).
    #[serde(default = "default_games")]
    pub games_per_pairing: usize,
    /// Random plies that open each game two players with budgets play in-process (the same for
    /// both games of a pair): players that search a fixed budget repeat one game otherwise.
    #[serde(default)]
    pub opening_plies: usize,
    #[serde(rename = "player")]
    pub players: Vec<PlayerEntry>,
}

fn default_games() -> usize {
    20
}

impl Pool {
    /// Reads and checks a pool file: names unique and plain, each player of one kind
    /// (`builtins` names the game's built-in players).
    pub fn parse(text: &str, builtins: &[&str]) -> Result<Pool, String> {
        let pool: Pool = toml::from_str(text).map_err(|e| e.message().trim().to_string())?;
        let mut names = BTreeSet::new();
        for p in &pool.players {
            if p.name.is_empty() || !p.name.chars().all(|c| c.is_alphanumeric() || "-_.".contains(c)) {
                return Err(format!("player name {:?}: use letters, digits, '-', '_' or '.'", p.name));
            }
            if !names.insert(p.name.clone()) {
                return Err(format!("player {:?} is named twice", p.name));
            }
            p.kind(builtins)?;
        }
        if pool.players.iter().filter(|p| !p.retired).count() < 2 {
            return Err("a league needs at least two players that are not retired".into());
        }
        if pool.games_per_pairing == 0 {
            return Err("games_per_pairing must be at least 1".into());
        }
        Ok(pool)
    }

    pub fn active(&self) -> impl Iterator<Item = &PlayerEntry> {
        self.players.iter().filter(|p| !p.retired)
    }

    /// The pairings still to play, in the pool's order: every active pair (round robin), or
    /// `gauntlet` against every other active player. With `with_self` (a cooperative game)
    /// every active player also partners itself (in a gauntlet: the gauntlet player and each
    /// partner), the figure each partner is measured against.
    pub fn pairings(&self, gauntlet: Option<&str>, with_self: bool) -> Result<Vec<(String, String)>, String> {
        let active: Vec<&str> = self.active().map(|p| p.name.as_str()).collect();
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        let mut pairings: Vec<(String, String)> = match gauntlet {
            Some(g) => {
                if !self.players.iter().any(|p| p.name == g) {
                    return Err(format!("no player {g:?} in the pool"));
                }
                if !active.contains(&g) {
                    return Err(format!("{g:?} is retired: it plays no gauntlet"));
                }
                active.iter().filter(|&&o| o != g).map(|o| pair(g, o)).collect()
            }
            None => (0..active.len()).flat_map(|i| (i + 1..active.len()).map(move |j| (i, j))).map(|(i, j)| pair(active[i], active[j])).collect(),
        };
        if with_self {
            pairings.extend(active.iter().map(|p| pair(p, p)));
        }
        Ok(pairings)
    }
}

/// One game of the league, as a line of the results file. `a` and `b` are the pairing's
/// players in pool order; game `game` of the pairing is pair `game / 2` (one seed), with `a`
/// in seat `game % 2`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LeagueGame {
    pub a: String,
    pub b: String,
    pub game: usize,
    pub seed: u64,
    /// Points of a and b.
    pub points: [f32; 2],
    pub end: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// Every action of the game (results written before they were kept have none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
}

impl LeagueGame {
    /// a's score: 1, 1/2 or 0.
    pub fn score(&self) -> f64 {
        crate::judge::score_from_points(self.points)
    }
}

/// The results file: every game so far, and the file appended to.
pub struct Results {
    pub path: PathBuf,
    pub games: Vec<LeagueGame>,
}

impl Results {
    /// Reads the results so far (none if the file does not exist). A last line cut short (a
    /// league killed while writing) is cut off the file and reported in `warning`; any other
    /// unreadable line is an error.
    pub fn open(path: &Path) -> Result<(Results, Option<String>), String> {
        let text = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let mut games = Vec::new();
        let mut warning = None;
        let mut good_len = 0;
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        for (i, line) in lines.iter().enumerate() {
            let complete = line.ends_with(b"\n");
            match std::str::from_utf8(line).ok().and_then(|l| serde_json::from_str::<LeagueGame>(l.trim()).ok()) {
                Some(game) if complete => {
                    games.push(game);
                    good_len += line.len();
                }
                _ if i + 1 == lines.len() => {
                    warning = Some(format!("{}: dropped a last line cut short (its game is played again)", path.display()));
                }
                _ => return Err(format!("{}: line {} is not a league game", path.display(), i + 1)),
            }
        }
        if warning.is_some() {
            let file = std::fs::OpenOptions::new().write(true).open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            file.set_len(good_len as u64).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok((Results { path: path.to_path_buf(), games }, warning))
    }

    /// Whether game `game` of pairing (`a`, `b`) was played.
    pub fn has(&self, a: &str, b: &str, game: usize) -> bool {
        self.games.iter().any(|g| g.a == a && g.b == b && g.game == game)
    }

    /// Appends one game, flushed to disk before it counts.
    pub fn append(&mut self, game: LeagueGame) -> Result<(), String> {
        let err = |e: std::io::Error| format!("{}: {e}", self.path.display());
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&self.path).map_err(err)?;
        let line = serde_json::to_string(&game).expect("games serialise");
        file.write_all(format!("{line}\n").as_bytes()).and_then(|_| file.sync_data()).map_err(err)?;
        self.games.push(game);
        Ok(())
    }
}

/// The next games to play: for the first pair index that some pairing lacks, the missing
/// games of every such pairing (so an interrupted league stays balanced). `None` when every
/// pairing has `games` games.
pub fn next_games(results: &Results, pairings: &[(String, String)], games: usize) -> Option<Vec<(String, String, usize)>> {
    let pairs = games.div_ceil(2);
    for pair in 0..pairs {
        let missing: Vec<(String, String, usize)> = pairings
            .iter()
            .flat_map(|(a, b)| (2 * pair..(2 * pair + 2).min(games)).filter(|&g| !results.has(a, b, g)).map(move |g| (a.clone(), b.clone(), g)))
            .collect();
        if !missing.is_empty() {
            return Some(missing);
        }
    }
    None
}

/// A pairing's sequential test: its pairs' mean scores (for `a`), the log-likelihood ratio and
/// the decision so far. Pairs are games 2k and 2k + 1 (one seed, seats swapped).
pub fn pairing_sprt(games: &[LeagueGame], a: &str, b: &str, test: &Sprt) -> (usize, f64, Option<Decision>) {
    let mut paired = PairedScores::default();
    for g in games.iter().filter(|g| g.a == a && g.b == b) {
        paired.add(g.game, g.score());
    }
    (paired.pairs.len(), test.llr(&paired.pairs), test.decide(&paired.pairs))
}

/// The pairings whose sequential test has not decided yet (all of them without a test).
pub fn undecided(results: &Results, pairings: &[(String, String)], test: Option<&Sprt>) -> Vec<(String, String)> {
    pairings.iter().filter(|(a, b)| test.is_none_or(|t| pairing_sprt(&results.games, a, b, t).2.is_none())).cloned().collect()
}

/// One line per pairing: the test's decision, pairs, and log-likelihood ratio.
pub fn sprt_report(games: &[LeagueGame], pairings: &[(String, String)], test: &Sprt) -> String {
    let mut out = String::new();
    for (a, b) in pairings {
        let (pairs, llr, decision) = pairing_sprt(games, a, b, test);
        out += &test.status_line(&format!(" {a} vs {b}"), a, pairs, llr, decision);
        out.push('\n');
    }
    out
}

/// A player's fitted rating.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    pub name: String,
    /// Elo, centred on the mean of the rated players.
    pub elo: f64,
    /// Half-width of the 95% interval.
    pub interval: f64,
    pub games: usize,
    /// Points per game, a win 1 and a draw 1/2.
    pub score: f64,
}

const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Maximum-likelihood ratings of every player named in `games`, best first.
pub fn fit_ratings(games: &[LeagueGame]) -> Vec<Rating> {
    let names: Vec<String> = games.iter().flat_map(|g| [g.a.clone(), g.b.clone()]).collect::<BTreeSet<_>>().into_iter().collect();
    let index = |n: &str| names.binary_search_by(|x| x.as_str().cmp(n)).unwrap();
    let n = names.len();
    // Score and games per ordered pair (i < j: i's score against j), plus one virtual draw.
    let mut played = vec![vec![0.0f64; n]; n];
    let mut won = vec![vec![0.0f64; n]; n];
    for g in games {
        let (i, j) = (index(&g.a), index(&g.b));
        played[i][j] += 1.0;
        played[j][i] += 1.0;
        won[i][j] += g.score();
        won[j][i] += 1.0 - g.score();
    }
    let real_games: Vec<usize> = (0..n).map(|i| played[i].iter().sum::<f64>() as usize).collect();
    let real_score: Vec<f64> = (0..n).map(|i| won[i].iter().sum::<f64>() / played[i].iter().sum::<f64>().max(1.0)).collect();
    for i in 0..n {
        for j in 0..n {
            if played[i][j] > 0.0 {
                played[i][j] += 1.0;
                won[i][j] += 0.5;
            }
        }
    }
    // Hunter's MM iterations for Bradley-Terry strengths gamma.
    let mut gamma = vec![1.0f64; n];
    for _ in 0..10_000 {
        let mut next = gamma.clone();
        let mut change: f64 = 0.0;
        for i in 0..n {
            let wins: f64 = won[i].iter().sum();
            let denominator: f64 = (0..n).filter(|&j| played[i][j] > 0.0).map(|j| played[i][j] / (gamma[i] + gamma[j])).sum();
            if denominator > 0.0 {
                next[i] = wins / denominator;
            }
        }
        let mean_log = next.iter().map(|g| g.ln()).sum::<f64>() / n as f64;
        for i in 0..n {
            next[i] = (next[i].ln() - mean_log).exp();
            change = change.max((next[i].ln() - gamma[i].ln()).abs());
        }
        gamma = next;
        if change < 1e-10 {
            break;
        }
    }
    let elo: Vec<f64> = gamma.iter().map(|g| g.ln() * ELO_PER_NAT).collect();
    // Fisher information in natural units; the covariance of centred ratings is
    // (I + J/n)^-1 - J/n (J all ones), the inverse on the space orthogonal to a common shift.
    let mut info = vec![vec![0.0f64; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i != j && played[i][j] > 0.0 {
                let p = gamma[i] / (gamma[i] + gamma[j]);
                let w = played[i][j] * p * (1.0 - p);
                info[i][j] -= w;
                info[i][i] += w;
            }
        }
    }
    for row in info.iter_mut() {
        for v in row.iter_mut() {
            *v += 1.0 / n as f64;
        }
    }
    let covariance = invert(info);
    let mut ratings: Vec<Rating> = (0..n)
        .map(|i| {
            let variance = covariance.as_ref().map_or(f64::INFINITY, |c| c[i][i] - 1.0 / n as f64);
            Rating { name: names[i].clone(), elo: elo[i], interval: 1.959_964 * variance.max(0.0).sqrt() * ELO_PER_NAT, games: real_games[i], score: real_score[i] }
        })
        .collect();
    ratings.sort_by(|x, y| y.elo.total_cmp(&x.elo));
    ratings
}

/// Gauss-Jordan inverse of a small matrix; `None` if singular (players in separate groups).
fn invert(mut m: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let mut inv: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        inv.swap(col, pivot);
        let p = m[col][col];
        for k in 0..n {
            m[col][k] /= p;
            inv[col][k] /= p;
        }
        for row in 0..n {
            if row != col {
                let f = m[row][col];
                if f != 0.0 {
                    for k in 0..n {
                        m[row][k] -= f * m[col][k];
                        inv[row][k] -= f * inv[col][k];
                    }
                }
            }
        }
    }
    Some(inv)
}

/// The league's report: `ratings` (fitted on `games`), the score matrix, then each pairing's
/// score and mean points.
pub fn report(ratings: &[Rating], games: &[LeagueGame], retired: &BTreeSet<String>) -> String {
    let mut text = format!("{:<4} {:<24} {:>7} {:>9} {:>6} {:>7}\n", "rank", "player", "Elo", "95% CI", "games", "score");
    for (k, r) in ratings.iter().enumerate() {
        let mark = if retired.contains(&r.name) { " (retired)" } else { "" };
        text.push_str(&format!("{:<4} {:<24} {:>+7.0} {:>9} {:>6} {:>6.1}%{mark}\n", k + 1, r.name, r.elo, format!("±{:.0}", r.interval), r.games, 100.0 * r.score));
    }
    // The matrix: the row player's score against the column player, best first.
    let order: Vec<&str> = ratings.iter().map(|r| r.name.as_str()).collect();
    let mut cell: BTreeMap<(&str, &str), (f64, usize)> = BTreeMap::new();
    for g in games {
        for (me, other, score) in [(g.a.as_str(), g.b.as_str(), g.score()), (g.b.as_str(), g.a.as_str(), 1.0 - g.score())] {
            let entry = cell.entry((me, other)).or_default();
            entry.0 += score;
            entry.1 += 1;
        }
    }
    let width = order.iter().map(|n| n.len()).max().unwrap_or(0).max(6);
    text.push_str(&format!("\n{:<width$}", "score of row vs column"));
    for name in &order {
        text.push_str(&format!(" {name:>width$}"));
    }
    text.push('\n');
    for me in &order {
        text.push_str(&format!("{me:<width$}"));
        for other in &order {
            let shown = match cell.get(&(*me, *other)) {
                Some((score, n)) => format!("{:.0}%/{n}", 100.0 * score / *n as f64),
                None => "-".to_string(),
            };
            text.push_str(&format!(" {shown:>width$}"));
        }
        text.push('\n');
    }
    text.push_str("\npairing (first named: its score, mean points of each)\n");
    let mut by_pairing: BTreeMap<(&str, &str), Vec<&LeagueGame>> = BTreeMap::new();
    for g in games {
        by_pairing.entry((g.a.as_str(), g.b.as_str())).or_default().push(g);
    }
    for ((a, b), list) in by_pairing {
        let n = list.len() as f64;
        let score = list.iter().map(|g| g.score()).sum::<f64>() / n;
        let (pa, pb) = (list.iter().map(|g| g.points[0] as f64).sum::<f64>() / n, list.iter().map(|g| g.points[1] as f64).sum::<f64>() / n);
        let faults = list.iter().filter(|g| g.fault.is_some()).count();
        text.push_str(&format!("{a} vs {b}: {} games, {:.1}%, points {pa:.2} vs {pb:.2}{}\n", list.len(), 100.0 * score, if faults > 0 { format!(", {faults} faults") } else { String::new() }));
    }
    text
}

/// A player's standing in a cooperative league: the shared scores it made, as CodeCup ranks a
/// cooperative game's programs (the sum, or mean, of the scores made with every partner met).
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub name: String,
    /// Games with partners other than itself, and its mean points in them with the half-width
    /// of the mean's 95% interval.
    pub games: usize,
    pub mean: f64,
    pub interval: f64,
    /// Games partnered with itself (counted once a game) and their mean.
    pub self_games: usize,
    pub self_mean: f64,
}

/// The standings of every player named in `games`, the highest mean with other partners first.
pub fn cooperative_standings(games: &[LeagueGame]) -> Vec<Standing> {
    let names: BTreeSet<&str> = games.iter().flat_map(|g| [g.a.as_str(), g.b.as_str()]).collect();
    let mut standings: Vec<Standing> = names
        .into_iter()
        .map(|name| {
            let with_others: Vec<f64> = games
                .iter()
                .filter(|g| g.a != g.b)
                .filter_map(|g| if g.a == name { Some(g.points[0]) } else if g.b == name { Some(g.points[1]) } else { None })
                .map(f64::from)
                .collect();
            let with_itself: Vec<f64> = games.iter().filter(|g| g.a == name && g.b == name).map(|g| g.points[0].max(g.points[1]) as f64).collect();
            let (mean, interval) = crate::judge::mean_with_half_interval(&with_others);
            let self_mean = with_itself.iter().sum::<f64>() / with_itself.len().max(1) as f64;
            Standing { name: name.to_string(), games: with_others.len(), mean, interval, self_games: with_itself.len(), self_mean }
        })
        .collect();
    standings.sort_by(|x, y| y.mean.total_cmp(&x.mean).then(x.name.cmp(&y.name)));
    standings
}

/// Mean shared points of each pairing, both ways round: `(row, column) -> (mean, games)`. The
/// diagonal is a player partnered with itself.
pub fn shared_matrix(games: &[LeagueGame]) -> BTreeMap<(String, String), (f64, usize)> {
    let mut cell: BTreeMap<(String, String), (f64, usize)> = BTreeMap::new();
    for g in games {
        let shared = g.points[0].max(g.points[1]) as f64;
        let mut add = |me: &str, other: &str| {
            let entry = cell.entry((me.to_string(), other.to_string())).or_default();
            entry.0 += shared;
            entry.1 += 1;
        };
        add(&g.a, &g.b);
        if g.a != g.b {
            add(&g.b, &g.a);
        }
    }
    for value in cell.values_mut() {
        value.0 /= value.1 as f64;
    }
    cell
}

/// A cooperative league's report: the standings, the matrix of mean shared scores (the row
/// player with the column player; the diagonal with itself), then each pairing by seat.
pub fn cooperative_report(standings: &[Standing], games: &[LeagueGame], retired: &BTreeSet<String>) -> String {
    let mut text = format!("{:<4} {:<24} {:>9} {:>9} {:>6} {:>12}\n", "rank", "player", "shared", "95% CI", "games", "with itself");
    for (k, s) in standings.iter().enumerate() {
        let mark = if retired.contains(&s.name) { " (retired)" } else { "" };
        let itself = if s.self_games > 0 { format!("{:.1}/{}", s.self_mean, s.self_games) } else { "-".to_string() };
        text.push_str(&format!("{:<4} {:<24} {:>9.1} {:>9} {:>6} {:>12}{mark}\n", k + 1, s.name, s.mean, format!("±{:.1}", s.interval), s.games, itself));
    }
    let cell = shared_matrix(games);
    let order: Vec<&str> = standings.iter().map(|s| s.name.as_str()).collect();
    let width = order.iter().map(|n| n.len()).max().unwrap_or(0).max(9);
    text.push_str(&format!("\n{:<width$}", "mean shared score, row with column"));
    for name in &order {
        text.push_str(&format!(" {name:>width$}"));
    }
    text.push('\n');
    for me in &order {
        text.push_str(&format!("{me:<width$}"));
        for other in &order {
            let shown = match cell.get(&(me.to_string(), other.to_string())) {
                Some((mean, n)) => format!("{mean:.0}/{n}"),
                None => "-".to_string(),
            };
            text.push_str(&format!(" {shown:>width$}"));
        }
        text.push('\n');
    }
    text.push_str("\npairing (mean shared score; by the first named player's seat)\n");
    let mut by_pairing: BTreeMap<(&str, &str), Vec<&LeagueGame>> = BTreeMap::new();
    for g in games {
        by_pairing.entry((g.a.as_str(), g.b.as_str())).or_default().push(g);
    }
    for ((a, b), list) in by_pairing {
        let shared: Vec<f64> = list.iter().map(|g| g.points[0].max(g.points[1]) as f64).collect();
        let (mean, half) = crate::judge::mean_with_half_interval(&shared);
        let seat = |s: usize| {
            let v: Vec<f64> = list.iter().filter(|g| g.game % 2 == s).map(|g| g.points[0].max(g.points[1]) as f64).collect();
            if v.is_empty() { "-".to_string() } else { format!("{:.1}", v.iter().sum::<f64>() / v.len() as f64) }
        };
        let faults = list.iter().filter(|g| g.fault.is_some()).count();
        text.push_str(&format!(
            "{a} with {b}: {} games, mean {mean:.1} (95% CI {:.1}..{:.1}); {a} as A {}, as B {}{}\n",
            list.len(),
            mean - half,
            mean + half,
            seat(0),
            seat(1),
            if faults > 0 { format!(", {faults} faults") } else { String::new() }
        ));
    }
    text
}

/// The ratings as an SVG chart: a dot and its 95% interval per player, best on top.
pub fn ratings_svg(ratings: &[Rating]) -> String {
    let (width, row, left, right) = (640.0, 28.0, 170.0, 40.0);
    let height = row * (ratings.len() as f64 + 1.5);
    let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
    let lo = ratings.iter().map(|r| finite(r.elo - r.interval.min(1000.0))).fold(0.0, f64::min) - 20.0;
    let hi = ratings.iter().map(|r| finite(r.elo + r.interval.min(1000.0))).fold(0.0, f64::max) + 20.0;
    let x = |elo: f64| left + (finite(elo).clamp(lo, hi) - lo) / (hi - lo) * (width - left - right);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<line x1=\"{0:.1}\" y1=\"10\" x2=\"{0:.1}\" y2=\"{1:.1}\" stroke=\"#bbb\"/>\n",
        x(0.0),
        height - 20.0
    );
    for (k, r) in ratings.iter().enumerate() {
        let y = row * (k as f64 + 1.0);
        let (a, b) = (x(r.elo - r.interval), x(r.elo + r.interval));
        svg.push_str(&format!(
            "<text x=\"8\" y=\"{:.1}\">{}</text>\n<line x1=\"{a:.1}\" y1=\"{y:.1}\" x2=\"{b:.1}\" y2=\"{y:.1}\" stroke=\"#36c\" stroke-width=\"2\"/>\n<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"#036\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#555\">{:+.0}</text>\n",
            y + 4.0,
            r.name.replace('&', "&amp;").replace('<', "&lt;"),
            x(r.elo),
            x(r.elo) + 6.0,
            y - 6.0,
            r.elo
        ));
    }
    svg.push_str(&format!("<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#555\">Elo (95% interval), 0 = the mean</text>\n</svg>\n", left, height - 4.0));
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use bots::rng::Rng;

    fn game(a: &str, b: &str, game: usize, score: f64) -> LeagueGame {
        let points = if score == 1.0 { [1.0, 0.0] } else if score == 0.0 { [0.0, 1.0] } else { [0.5, 0.5] };
        LeagueGame { a: a.into(), b: b.into(), game, seed: 0, points, end: String::new(), fault: None, actions: Vec::new() }
    }

    /// Ratings fitted on games drawn from known strengths recover them within their intervals.
    #[test]
    fn ratings_recover_known_strengths() {
        let truth = [("a", 0.0), ("b", 60.0), ("c", 120.0), ("d", 250.0)];
        let mean = truth.iter().map(|t| t.1).sum::<f64>() / 4.0;
        let mut rng = Rng::new(11);
        let mut games = Vec::new();
        for i in 0..4 {
            for j in i + 1..4 {
                let p = 1.0 / (1.0 + 10f64.powf((truth[j].1 - truth[i].1) / 400.0));
                for k in 0..300 {
                    // 20% draws, the rest won by the expected share.
                    let u = rng.unit_f32() as f64;
                    let score = if u < 0.2 { 0.5 } else if rng.unit_f32() as f64 * 0.8 < (p - 0.1).clamp(0.0, 0.8) { 1.0 } else { 0.0 };
                    games.push(game(truth[i].0, truth[j].0, k, score));
                }
            }
        }
        let ratings = fit_ratings(&games);
        assert_eq!(ratings.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["d", "c", "b", "a"]);
        for r in &ratings {
            let expected = truth.iter().find(|t| t.0 == r.name).unwrap().1 - mean;
            assert!(r.interval > 5.0 && r.interval < 40.0, "{r:?}");
            assert!((r.elo - expected).abs() <= 1.5 * r.interval, "{}: {:.1} against {expected:.1} ± {:.1}", r.name, r.elo, r.interval);
        }
        assert!(ratings.iter().map(|r| r.elo).sum::<f64>().abs() < 1e-6, "centred on the mean");
    }

    #[test]
    fn an_unbeaten_player_gets_a_finite_rating() {
        let games: Vec<LeagueGame> = (0..10).map(|k| game("x", "y", k, 1.0)).collect();
        let ratings = fit_ratings(&games);
        assert_eq!(ratings[0].name, "x");
        assert!(ratings[0].elo.is_finite() && ratings[0].elo > 100.0 && ratings[0].interval.is_finite(), "{ratings:?}");
    }

    /// The built-in players every game has.
    const BUILTINS: &[&str] = &["classic", "uct", "random"];

    #[test]
    fn pool_files_are_checked() {
        let ok = "games_per_pairing = 4\n[[player]]\nname = \"net\"\nnet = \"x.czw\"\n[[player]]\nname = \"uct\"\nbuiltin = \"uct\"\nplayouts = 100\n[[player]]\nname = \"old\"\ncommand = \"./old\"\nretired = true\n";
        let pool = Pool::parse(ok, BUILTINS).unwrap();
        assert_eq!(pool.players[0].kind(BUILTINS).unwrap().budget(), None, "a net without playouts plays on the clock");
        assert_eq!(pool.players[1].kind(BUILTINS).unwrap().budget(), Some(100));
        let budget_net = Pool::parse(&ok.replace("x.czw\"", "x.czw\"\nplayouts = 800"), BUILTINS).unwrap();
        assert_eq!(budget_net.players[0].kind(BUILTINS).unwrap(), PlayerKind::Net { path: "x.czw".into(), playouts: Some(800) });
        assert_eq!(pool.pairings(None, false).unwrap(), vec![("net".to_string(), "uct".to_string())]);
        assert_eq!(pool.pairings(Some("uct"), false).unwrap(), vec![("uct".to_string(), "net".to_string())]);
        assert!(pool.pairings(Some("nobody"), false).unwrap_err().contains("no player"));
        assert!(pool.pairings(Some("old"), false).unwrap_err().contains("retired"));
        // A cooperative league partners every active player with itself too.
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(pool.pairings(None, true).unwrap(), vec![pair("net", "uct"), pair("net", "net"), pair("uct", "uct")]);
        assert_eq!(pool.pairings(Some("uct"), true).unwrap(), vec![pair("uct", "net"), pair("net", "net"), pair("uct", "uct")]);
        for (bad, why) in [
            ("[[player]]\nname = \"a\"\nbuiltin = \"uct\"\n", "at least two"),
            ("[[player]]\nname = \"a\"\nbuiltin = \"best\"\n[[player]]\nname = \"b\"\nbuiltin = \"uct\"\n", "builtin must be"),
            ("[[player]]\nname = \"a\"\nbuiltin = \"uct\"\n[[player]]\nname = \"a\"\nbuiltin = \"uct\"\n", "named twice"),
            ("[[player]]\nname = \"a\"\nbuiltin = \"uct\"\nnet = \"x\"\n[[player]]\nname = \"b\"\nbuiltin = \"uct\"\n", "exactly one"),
            ("[[player]]\nname = \"a\"\nbuiltin = \"uct\"\ncolour = 1\n", "unknown field"),
            ("[[player]]\nname = \"a b\"\nbuiltin = \"uct\"\n", "player name"),
            ("[[player]]\nname = \"a\"\ncommand = \"./a\"\nplayouts = 5\n[[player]]\nname = \"b\"\nbuiltin = \"uct\"\n", "plays on the clock"),
            ("[[player]]\nname = \"a\"\nnet = \"a.czw\"\nplayouts = 0\n[[player]]\nname = \"b\"\nbuiltin = \"uct\"\n", "at least 1"),
        ] {
            let err = Pool::parse(bad, BUILTINS).unwrap_err();
            assert!(err.contains(why) && !err.contains('\n'), "{bad}: {err}");
        }
        // A game's field names more built-in players.
        let field = "[[player]]\nname = \"a\"\nbuiltin = \"greedy\"\n[[player]]\nname = \"b\"\nbuiltin = \"uct\"\n";
        assert!(Pool::parse(field, BUILTINS).unwrap_err().contains("\"greedy\""));
        assert!(Pool::parse(field, &["classic", "uct", "random", "greedy"]).is_ok());
    }

    /// The schedule fills the first pair of every pairing before the second of any.
    #[test]
    fn the_schedule_is_balanced_and_skips_played_games() {
        let dir = std::env::temp_dir().join(format!("cupzero-league-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("results.jsonl");
        let _ = std::fs::remove_file(&path);
        let (mut results, warning) = Results::open(&path).unwrap();
        assert!(warning.is_none() && results.games.is_empty());
        let pairings = vec![("a".to_string(), "b".to_string()), ("a".to_string(), "c".to_string())];
        results.append(game("a", "b", 0, 1.0)).unwrap();
        let next = next_games(&results, &pairings, 4).unwrap();
        assert_eq!(next, vec![("a".into(), "b".into(), 1), ("a".into(), "c".into(), 0), ("a".into(), "c".into(), 1)]);
        // A line cut short by a kill is dropped and its game comes back.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"a\":\"a\",\"b\":\"b\",\"ga");
        std::fs::write(&path, &text).unwrap();
        let (results, warning) = Results::open(&path).unwrap();
        assert!(warning.unwrap().contains("cut short"));
        assert_eq!(results.games.len(), 1);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 1, "the torn line is cut off the file");
        std::fs::write(&path, "garbage\n{}\n").unwrap();
        assert!(Results::open(&path).err().unwrap().contains("line 1"));
    }

    /// A pairing's test decides from its own games only, and a decided pairing leaves the schedule.
    #[test]
    fn a_decided_pairing_stops_and_the_others_play_on() {
        let test = Sprt { elo0: 0.0, elo1: 100.0, alpha: 0.05, beta: 0.05 };
        let mut games: Vec<LeagueGame> = (0..40).map(|g| game("new", "weak", g, 1.0)).collect();
        // Against "even", pairs alternate won and lost: no decision after 4 pairs.
        games.extend((0..8).map(|g| game("new", "even", g, if (g / 2) % 2 == 0 { 1.0 } else { 0.0 })));
        let (pairs, llr, decision) = pairing_sprt(&games, "new", "weak", &test);
        assert_eq!((pairs, decision), (20, Some(Decision::H1)), "LLR {llr}");
        assert_eq!(pairing_sprt(&games, "new", "even", &test).2, None);
        let results = Results { path: PathBuf::from("unused"), games };
        let pairings = vec![("new".to_string(), "weak".to_string()), ("new".to_string(), "even".to_string())];
        assert_eq!(undecided(&results, &pairings, Some(&test)), vec![("new".to_string(), "even".to_string())]);
        assert_eq!(undecided(&results, &pairings, None), pairings);
        let text = sprt_report(&results.games, &pairings, &test);
        assert!(text.contains("new vs weak: H1 accepted") && text.contains("new vs even: no decision yet"), "{text}");
    }
}
