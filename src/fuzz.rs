//! `cupzero fuzz`: the mutation loop of `selfplay::fuzz` over one reader or all of them.

use anyhow::{bail, Result};
use clap::Args;
use selfplay::fuzz::{fuzz, targets};

#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// Targets to run (`protocol-zuniq`, `referee-qttt`, `weights`, `weights-text`, `book`,
    /// `config`, ...); default: every one.
    pub targets: Vec<String>,
    /// Inputs per target.
    #[arg(long, default_value_t = 1_000_000)]
    pub inputs: u64,
    /// Seed of the mutation loop (the same seed replays the same inputs).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(args: FuzzArgs) -> Result<()> {
    let all = targets();
    let names: Vec<String> = all.iter().map(|t| t.name()).collect();
    if let Some(unknown) = args.targets.iter().find(|t| !names.contains(t)) {
        bail!("no fuzz target {unknown:?}; the targets are {}", names.join(", "));
    }
    if args.inputs == 0 {
        bail!("--inputs must be at least 1");
    }
    // Panics are what the loop looks for: count them, don't print each one.
    std::panic::set_hook(Box::new(|_| {}));
    let mut failed = 0;
    for target in all.iter().filter(|t| args.targets.is_empty() || args.targets.contains(&t.name())) {
        let report = fuzz(&**target, args.inputs, args.seed);
        println!(
            "{:<18} {:>11} inputs in {:>7.1} s ({:>8.0}/s), slowest {:>4} ms, {} failures",
            target.name(),
            report.inputs,
            report.elapsed.as_secs_f64(),
            report.inputs_per_second(),
            report.slowest.as_millis(),
            report.failures
        );
        for example in &report.examples {
            println!("    {example}");
        }
        failed += report.failures;
    }
    if failed > 0 {
        bail!("{failed} inputs failed");
    }
    Ok(())
}
