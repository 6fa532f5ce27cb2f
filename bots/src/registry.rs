//! The registry of games. `lib.rs` names every game once, in one `games!` list; the command
//! line, the judge, the trainer, the fuzz targets, the exporter and the benches find every game
//! through it, and everything else a game does is declared by traits in its own folder:
//!
//! | trait | what it declares | where |
//! |---|---|---|
//! | [`crate::game::Game`] | the rules | `mod.rs` |
//! | [`crate::encode::Encode`] | the net's features | `mod.rs` |
//! | [`crate::bot::Contest`] | the platform, clock and protocol of the bot | `protocol.rs` |
//! | [`crate::classic::Classic`] | the net-free classic bot (none by default) | `classic.rs` |
//! | [`crate::referee::RefereeRules`] | the contest's referee | `referee.rs` |
//! | [`crate::training::Training`] | training defaults, auxiliary targets, exact endgames | `training.rs` |
//!
//! The exporter never bundles a game's `referee` and `training` modules into a bot.

/// One game of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEntry {
    /// The name on the command line and in file names (`Game::NAME`).
    pub name: &'static str,
    /// The game and its contest in a few words, for `--help` (`RefereeRules::TITLE`).
    pub title: &'static str,
    /// The game's module in this crate (`connect4`): what the exporter bundles.
    pub module: &'static str,
    /// The game's type in that module (`Connect4`).
    pub type_name: &'static str,
}

impl GameEntry {
    /// The type's path from the crate root, as an exported bot's `main` names it.
    pub fn type_path(&self) -> String {
        format!("{}::{}", self.module, self.type_name)
    }
}

/// The game of this name, if the registry has it.
pub fn find_game(name: &str) -> Option<&'static GameEntry> {
    crate::GAMES.iter().find(|g| g.name == name)
}

/// Declares the games: `games! { connect4::Connect4, ... }` in `lib.rs` declares each module,
/// lists them in [`crate::GAMES`] and defines `with_game!`, which runs an expression with a
/// type alias bound to the game of a given name:
///
/// ```ignore
/// bots::with_game!(name, G => train::<G>(&args))  // Some(result), or None for no such game
/// ```
macro_rules! games {
    ($($module:ident :: $game:ident),+ $(,)?) => {
        $(pub mod $module;)+

        /// Every game, in the registry's order.
        pub const GAMES: &[$crate::registry::GameEntry] = &[$($crate::registry::GameEntry {
            name: <$module::$game as $crate::game::Game>::NAME,
            title: <$module::$game as $crate::referee::RefereeRules>::TITLE,
            module: stringify!($module),
            type_name: stringify!($game),
        }),+];

        $crate::registry::games!(@dispatch ($) $($module::$game),+);
    };
    // `$d` is a `$` for the macro defined inside.
    (@dispatch ($d:tt) $($module:ident :: $game:ident),+) => {
        /// Runs `$body` with `$G` an alias of the game named `$name` (a `&str`): `Some` of its
        /// value, or `None` when no game has that name.
        #[macro_export]
        macro_rules! with_game {
            ($d name:expr, $d G:ident => $d body:expr) => {{
                let name: &str = $d name;
                $(if name == <$d crate::$module::$game as $d crate::game::Game>::NAME {
                    #[allow(dead_code)]
                    type $d G = $d crate::$module::$game;
                    Some($d body)
                } else)+ {
                    None
                }
            }};
        }
    };
}
pub(crate) use games;
