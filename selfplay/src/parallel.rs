//! Runs numbered games on worker threads and hands results back in completion order; shared
//! by the judge and the arena.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Plays games `0..games` with `play` on `parallel` threads. `on_result` sees each result as it
/// arrives and returns `true` to stop early: no game starts after that, and the few already
/// running (at most one per thread) still finish and are delivered.
pub fn run_games<R: Send>(
    games: usize,
    parallel: usize,
    play: impl Fn(usize) -> R + Sync,
    mut on_result: impl FnMut(R) -> bool,
) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // A rendezvous channel: a worker starts its next game only once its result was taken, so
    // an early stop is seen before more than one game per thread is under way.
    let (tx, rx) = mpsc::sync_channel(0);
    std::thread::scope(|scope| {
        for _ in 0..parallel.max(1).min(games.max(1)) {
            let tx = tx.clone();
            let (next, stop, play) = (&next, &stop, &play);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let game = next.fetch_add(1, Ordering::Relaxed);
                    if game >= games || tx.send(play(game)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for result in rx {
            if on_result(result) {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_once_and_early_stop() {
        let mut seen = Vec::new();
        run_games(50, 3, |g| g, |g| {
            seen.push(g);
            false
        });
        seen.sort();
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
        let mut count = 0;
        run_games(1000, 2, |g| g, |_| {
            count += 1;
            count >= 10
        });
        assert!((10..=12).contains(&count), "{count}");
    }
}
