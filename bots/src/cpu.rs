//! Which vector instructions the bot's kernels use: the best the CPU has, found at run time,
//! at most what the export allows (`export --cpu`, to judge a slower machine's bot on this one).
//!
//! - **Baseline**: SSE2, which every x86-64 CPU has (or plain code off x86-64).
//! - **Avx**: AVX, SSE4.1/4.2 and POPCNT: Sandy Bridge on (CodeCup's server of 2024 has no
//!   more). Integer kernels stay 128 bits wide; float loops run 8 lanes.
//! - **Avx2**: Haswell on (CodinGame's judges): 256-bit integer kernels.

use std::sync::atomic::{AtomicU8, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cpu {
    Baseline = 1,
    Avx = 2,
    Avx2 = 3,
}

impl Cpu {
    #[cfg(not(bundle))]
    pub const ALL: [Cpu; 3] = [Cpu::Baseline, Cpu::Avx, Cpu::Avx2];

    #[cfg(not(bundle))]
    pub fn name(self) -> &'static str {
        match self {
            Cpu::Baseline => "baseline",
            Cpu::Avx => "avx",
            Cpu::Avx2 => "avx2",
        }
    }

    fn from_u8(v: u8) -> Cpu {
        match v {
            1 => Cpu::Baseline,
            2 => Cpu::Avx,
            _ => Cpu::Avx2,
        }
    }
}

/// The most the kernels may use (set once by a bot's `main`, or by a benchmark).
static CAP: AtomicU8 = AtomicU8::new(Cpu::Avx2 as u8);
/// What they use: the CPU's best up to the cap; 0 until first asked.
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// Lets the kernels use at most `cap` from now on.
pub fn set_cap(cap: Cpu) {
    CAP.store(cap as u8, Ordering::Relaxed);
    LEVEL.store(0, Ordering::Relaxed);
}

/// What the CPU has (whatever the cap).
pub fn detected() -> Cpu {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            return Cpu::Avx2;
        }
        // A bot for AVX2's platforms runs plain code without it (no 128-bit kernels in it).
        #[cfg(not(avx2_platform))]
        if std::is_x86_feature_detected!("avx") && std::is_x86_feature_detected!("sse4.2") && std::is_x86_feature_detected!("popcnt") {
            return Cpu::Avx;
        }
    }
    Cpu::Baseline
}

/// What the kernels use: one relaxed load once known.
#[inline]
pub fn level() -> Cpu {
    let known = LEVEL.load(Ordering::Relaxed);
    if known != 0 {
        return Cpu::from_u8(known);
    }
    let level = detected().min(Cpu::from_u8(CAP.load(Ordering::Relaxed)));
    LEVEL.store(level as u8, Ordering::Relaxed);
    level
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_bounds_the_level_and_lifts_again() {
        let found = detected();
        set_cap(Cpu::Baseline);
        assert_eq!(level(), Cpu::Baseline);
        set_cap(Cpu::Avx2);
        assert_eq!(level(), found);
        assert_eq!(Cpu::ALL.iter().map(|c| c.name()).collect::<Vec<_>>(), ["baseline", "avx", "avx2"]);
    }
}
