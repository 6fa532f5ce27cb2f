//! `cupzero worker`: self-play for a run whose trainer is on another machine, through Redis.

use anyhow::{bail, Result};
use clap::Args;
use selfplay::distributed::{run_worker, RemoteError};
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Args, Debug)]
pub struct WorkerArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// The run's Redis: redis://[:PASSWORD@]HOST:PORT/DB.
    #[arg(long, value_name = "URL")]
    pub redis: String,
    /// The run's name, as given to `cupzero train --run`.
    #[arg(long, value_name = "NAME")]
    pub run: String,
    /// Self-play threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

static STOP: AtomicBool = AtomicBool::new(false);

pub fn run(args: WorkerArgs) -> Result<()> {
    // Ctrl-C (or SIGTERM) finishes and pushes the batch in play, then stops; a second one
    // stops at once.
    ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("stopping after this batch (Ctrl-C again to stop now)");
    })?;
    let result = dispatch!(args.game, G => run_worker::<G>(&args.redis, &args.run, args.threads, &STOP));
    match result {
        Ok(_) | Err(RemoteError::Stopped) => Ok(()),
        Err(RemoteError::Fatal(why)) => bail!(why),
    }
}
