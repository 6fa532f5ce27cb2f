//! `cupzero compare`: two matches played on the same seeds (judge or arena records), game by
//! game: the paired difference in A's margin and score, with its 95% interval. Pairing
//! removes what the seeds decide (Black Hole's brown stones, the seat), so a small gain shows
//! with far fewer games than two separate intervals would need. Games pair by seed, not by
//! number, so a match of 100 games pairs with two of 50 played from its 1st and 51st seeds
//! (their records concatenated), or with a match stopped early.

use anyhow::{bail, Context, Result};
use clap::Args;
use selfplay::judge::mean_with_half_interval;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Records of the first match (`judge --records` or `arena --records`, JSONL).
    pub first: PathBuf,
    /// Records of the second match, played on the same seeds (one run, or several concatenated).
    pub second: PathBuf,
}

/// One game of either record format, from player A's side.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Played {
    a_seat: usize,
    points: [f64; 2],
}

/// The games of a record file by seed (a game's seed decides its brown stones or opening).
fn read(path: &Path) -> Result<HashMap<u64, Played>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut games = HashMap::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let where_ = || format!("{} line {}", path.display(), i + 1);
        let v: serde_json::Value = serde_json::from_str(line).with_context(where_)?;
        let number = |key: &str| v[key].as_u64().with_context(|| format!("{}: no {key:?}", where_()));
        // Judge records name the seats ("A"/"B"); arena records give A's seat.
        let a_seat = match (v["a_seat"].as_u64(), v["seats"][0].as_str()) {
            (Some(seat), _) => seat as usize,
            (None, Some(first)) => (first != "A") as usize,
            _ => bail!("{}: neither \"a_seat\" nor \"seats\"", where_()),
        };
        let points = [0, 1].map(|k| v["points"][k].as_f64());
        let [Some(a), Some(b)] = points else { bail!("{}: no \"points\" of A and B", where_()) };
        let seed = number("seed")?;
        if games.insert(seed, Played { a_seat, points: [a, b] }).is_some() {
            bail!("{}: seed {seed} appears twice (records of two matches on the same seeds?)", where_());
        }
    }
    Ok(games)
}

fn score(p: &Played) -> f64 {
    match p.points[0].partial_cmp(&p.points[1]) {
        Some(std::cmp::Ordering::Greater) => 1.0,
        Some(std::cmp::Ordering::Less) => 0.0,
        _ => 0.5,
    }
}

pub fn run(args: CompareArgs) -> Result<()> {
    let (first, second) = (read(&args.first)?, read(&args.second)?);
    let mut keys: Vec<_> = first.keys().filter(|k| second.contains_key(k)).copied().collect();
    keys.sort();
    if keys.is_empty() {
        bail!("no game is in both files: play both matches with the same --seed");
    }
    if let Some(k) = keys.iter().find(|k| first[k].a_seat != second[k].a_seat) {
        bail!("the game of seed {k} has A in seat {} in the first file and {} in the second (a run started at an odd offset of the other's seeds?)", first[k].a_seat, second[k].a_seat);
    }
    let margin = |p: &Played| p.points[0] - p.points[1];
    let (margins, scores): (Vec<f64>, Vec<f64>) = keys.iter().map(|k| (margin(&first[k]) - margin(&second[k]), score(&first[k]) - score(&second[k]))).unzip();
    let points: Vec<f64> = keys.iter().map(|k| first[k].points[0] - second[k].points[0]).collect();
    let (dp, hp) = mean_with_half_interval(&points);
    let mean_of = |files: &HashMap<u64, Played>, f: &dyn Fn(&Played) -> f64| keys.iter().map(|k| f(&files[k])).sum::<f64>() / keys.len() as f64;
    let (dm, hm) = mean_with_half_interval(&margins);
    let (ds, hs) = mean_with_half_interval(&scores);
    println!("paired games: {} (only in the first: {}, only in the second: {})", keys.len(), first.len() - keys.len(), second.len() - keys.len());
    for (name, files) in [("first", &first), ("second", &second)] {
        println!("{name}: A's mean points {:.2}, margin A-B {:+.2}, score {:.1}%", mean_of(files, &|p| p.points[0]), mean_of(files, &margin), 100.0 * mean_of(files, &score));
    }
    println!("first - second: A's points {dp:+.2} a game (95% CI {:+.2}..{:+.2})", dp - hp, dp + hp);
    println!("first - second: margin {dm:+.2} a game (95% CI {:+.2}..{:+.2}), score {:+.1} points % (95% CI {:+.1}..{:+.1})", dm - hm, dm + hm, 100.0 * ds, 100.0 * (ds - hs), 100.0 * (ds + hs));
    Ok(())
}
