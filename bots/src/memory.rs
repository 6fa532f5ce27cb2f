//! The bot's memory budget: the limit of the platform it plays on (set once by a bot's
//! `main`, from [`crate::bot::Profile`]), and the share of it one search tree may hold. Tools
//! and self-play set no limit.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The limit in MiB; 0: none.
static LIMIT_MB: AtomicUsize = AtomicUsize::new(0);

/// From now on, searches keep their trees within a share of `mb` MiB (0: no limit).
pub fn set_limit_mb(mb: usize) {
    LIMIT_MB.store(mb, Ordering::Relaxed);
}

/// The most bytes one search tree may hold: a quarter of the limit. A tree's arena keeps a
/// spare of its size for re-rooting, and growing moves it to one up to twice as large, so a
/// tree can hold two and a half times this at once; the net, the solvers' tables and the
/// program itself take the rest.
pub fn tree_bytes() -> usize {
    tree_share(LIMIT_MB.load(Ordering::Relaxed))
}

fn tree_share(limit_mb: usize) -> usize {
    match limit_mb {
        0 => usize::MAX,
        mb => mb.saturating_mul(1 << 20) / 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The global limit stays unset here: the other tests of this process build searches.
    #[test]
    fn a_limit_gives_trees_a_quarter_and_no_limit_none() {
        assert_eq!(tree_share(12), 3 << 20);
        assert_eq!(tree_share(0), usize::MAX);
        assert_eq!(tree_bytes(), usize::MAX);
    }
}
