//! The classic bot: what the strong CodinGame bots of this game were described as, MCTS with
//! random playouts (UCT), an MCTS-solver for proven wins and losses, and the tree kept between
//! turns ([`uct_classic`]). Its playouts are the game's own ([`crate::rollout::Playout`]):
//! they take a move that wins the game whenever they have one ("decisive moves", F. Teytaud
//! and O. Teytaud, "On the huge benefit of decisive moves in Monte-Carlo Tree Search
//! algorithms", IEEE CIG 2010), which the board's masks tell at the cost of a few lookups.

use super::Uttt;
use crate::agent::Agent;
use crate::classic::{uct_classic, Classic, Teacher};

/// UCT's exploration constant: 0.7 beat 1.0 (the `uct` bot's) in `bots/examples`-style
/// matches at equal playouts (BENCHMARKS.md, Ultimate tic-tac-toe).
pub const UCT_C: f32 = 0.7;

impl Classic for Uttt {
    fn classic_agent(seed: u64, budget: Option<u64>) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(uct_classic::<Uttt>(seed, budget, UCT_C)))
    }

    fn classic_teacher(seed: u64, budget: Option<u64>) -> Option<Box<dyn Teacher<Self>>> {
        Some(Box::new(uct_classic::<Uttt>(seed, budget, UCT_C)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rng::Rng;
    use crate::rollout::Playout;
    use crate::tools::after_random_actions;

    #[test]
    fn playouts_end_the_game_and_take_a_winning_move() {
        let mut rng = Rng::new(3);
        for seed in 0..200 {
            let start: Uttt = after_random_actions(seed, (seed % 30) as usize);
            if start.is_terminal() {
                continue;
            }
            let end = crate::rollout::decisive_playout(start.clone(), &mut rng, Uttt::winning_action);
            assert!(end.is_terminal());
            if let Some(win) = start.winning_action() {
                let mut next = start.clone();
                next.apply(win);
                assert_eq!(next.line_winner(), Some(start.to_move()));
                let v = start.playout_utilities(&mut rng);
                assert_eq!(v[start.to_move()], 1.0, "a decisive move is always taken");
            }
        }
    }

    #[test]
    fn the_classic_bot_takes_a_win_in_one() {
        // Play random games until a position where the mover can win at once.
        for seed in 0..500 {
            let s: Uttt = after_random_actions(seed, 40);
            if s.is_terminal() || s.winning_action().is_none() {
                continue;
            }
            let mut agent = uct_classic::<Uttt>(1, Some(2_000), UCT_C);
            let a = agent.choose(&s, None);
            let mut next = s.clone();
            next.apply(a);
            assert_eq!(next.line_winner(), Some(s.to_move()), "seed {seed}");
            assert!(agent.root_statistics().is_some());
            return;
        }
        panic!("no position with a win in one");
    }
}
