//! Which bot a command builds from: the net or the classic bot (`export`, `book`).

use clap::ValueEnum;

/// Which bot goes into the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportEngine {
    /// The net-guided search with the weights of --checkpoint.
    Net,
    /// The game's net-free classic bot (no weights).
    Classic,
}
