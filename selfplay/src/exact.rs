//! Which exact endgame search each game's self-play can hand its endgames to. It lives here,
//! not in `bots`, so that a submission bundles a solver only when its own bot plays with one
//! (the Connect 4 export has a few hundred bytes to spare).

use bots::blackhole::endgame::EndgameSolver;
use bots::blackhole::BlackHole;
use bots::connect4::classic::classic_search;
use bots::connect4::Connect4;
use bots::game::Game;
use bots::game6561::Game6561;
use bots::qttt::Qttt;
use bots::solver::{ExactPlay, Solver};
use bots::zuniq::Zuniq;

/// The exact endgame search a game offers, if any: the win/loss [`Solver`] for games decided
/// by win or loss; a score game brings its own (Black Hole's margin search) or has none.
pub trait ExactEndgame: Game {
    fn exact_player() -> Option<Box<dyn ExactPlay<Self>>> {
        Self::WIN_OR_LOSS.then(|| Box::new(Solver::new()) as Box<dyn ExactPlay<Self>>)
    }
}

/// Connect 4 has draws, so the win/loss solver does not apply: the classic bot's alpha-beta
/// searched to the end of the game plays its endgames (from
/// [`bots::connect4::search::EXACT_EMPTIES`] empty cells).
impl ExactEndgame for Connect4 {
    fn exact_player() -> Option<Box<dyn ExactPlay<Self>>> {
        Some(Box::new(classic_search(None)))
    }
}
impl ExactEndgame for Game6561 {}
impl ExactEndgame for Qttt {}
impl ExactEndgame for Zuniq {}

impl ExactEndgame for BlackHole {
    fn exact_player() -> Option<Box<dyn ExactPlay<Self>>> {
        Some(Box::new(EndgameSolver::new()))
    }
}
