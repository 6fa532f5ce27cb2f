//! CodinGame's Ultimate Tic-Tac-Toe protocol, player side: CodinGame's usual turn
//! ([`crate::codingame`]). No opening lines. Every turn: `opponentRow opponentCol` (`-1 -1` on
//! the first player's first turn), `validActionCount`, and that many `row col` lines in any
//! order (CodinGame shuffles them); we answer one line, `row col`.

use super::Uttt;
use crate::agent::{Agent, SearchAgent};
use crate::bot::{Contest, Platform};
use crate::codingame::CodinGame;
use crate::game::Action;
use crate::mcts::MctsConfig;
use crate::net_eval::NetEvaluator;
use crate::nn::Mlp;
use crate::protocol::ProtocolError;
use crate::rollout::MixedEvaluator;
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};
use std::sync::Arc;

/// The weight of a decisive playout's result in the net bot's value, beside the net's (0: the
/// net alone). Judged on the clock: BENCHMARKS.md, Ultimate tic-tac-toe.
pub const ROLLOUT_WEIGHT: f32 = 0.25;

impl Contest for Uttt {
    const PLATFORM: Platform = Platform::CodinGame;

    fn bot_agent(net: Arc<Mlp>, config: MctsConfig, playouts: Option<u64>) -> Box<dyn Agent<Self>> {
        let evaluator = MixedEvaluator::new(NetEvaluator::new(net), crate::rollout::playout_seed(playouts), ROLLOUT_WEIGHT);
        Box::new(SearchAgent::new(Uttt::new(), config, evaluator, playouts))
    }

    fn clock(time_scale: f64) -> Clock {
        crate::codingame::clock(time_scale)
    }

    fn run_protocol<R: BufRead, W: Write>(input: R, output: W, agent: &mut dyn Agent<Self>, time: &mut TimeManager, log: &mut dyn Write) -> Result<(), ProtocolError> {
        crate::codingame::run(input, output, agent, time, log)
    }
}

impl CodinGame for Uttt {
    const MOVE_WORDS: usize = 2;

    fn move_text(action: Action) -> String {
        format!("{} {}", action / 9, action % 9)
    }

    fn read_move(words: &[&str]) -> Result<Option<Action>, String> {
        match words.iter().map(|w| w.parse::<i64>()).collect::<Result<Vec<_>, _>>().as_deref() {
            Ok([-1, -1]) => Ok(None),
            Ok([r, c]) if (0..9).contains(r) && (0..9).contains(c) => Ok(Some((9 * r + c) as Action)),
            _ => Err("row and column 0..8".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::tools::run_protocol_on;

    fn all_cells() -> String {
        (0..81).map(|a| format!("{}\n", Uttt::move_text(a))).collect()
    }

    #[test]
    fn the_first_player_answers_one_legal_cell() {
        let (result, out) = run_protocol_on::<Uttt>(&format!("-1 -1\n81\n{}", all_cells()), 1);
        result.unwrap();
        assert_eq!(out.lines().count(), 1);
        let action = Uttt::parse_action(out.trim()).unwrap();
        assert!(action < 81);
    }

    #[test]
    fn the_second_player_follows_the_sent_to_board_in_any_order() {
        // X played the centre: O must answer in the centre board, listed shuffled.
        let input = "4 4\n9\n5 5\n3 3\n3 4\n3 5\n4 3\n5 3\n4 5\n5 4\n4 4\n";
        let (result, out) = run_protocol_on::<Uttt>(input, 2);
        assert!(result.unwrap_err().to_string().contains("do not match"), "4 4 is taken, so the list is wrong");
        assert!(out.is_empty());
        let input = "4 4\n8\n5 5\n3 3\n3 4\n3 5\n4 3\n5 3\n4 5\n5 4\n";
        let (result, out) = run_protocol_on::<Uttt>(input, 2);
        result.unwrap();
        let action = Uttt::parse_action(out.trim()).unwrap() as usize;
        assert!((3..6).contains(&(action / 9)) && (3..6).contains(&(action % 9)), "{out}");
    }

    #[test]
    fn garbage_gets_one_error_with_its_line() {
        for (input, says) in [("hello\n", "the opponent's last action"), ("-1 -1\n0\n", "out of range"), ("9 9\n", "row and column"), ("-1 -1\n81\n0 0\n", "input ended")] {
            let (result, out) = run_protocol_on::<Uttt>(input, 1);
            let err = result.unwrap_err().to_string();
            assert!(err.contains(says) && !err.contains('\n'), "{input:?}: {err}");
            assert!(out.is_empty());
        }
        // A move that is not legal: 4 4 twice.
        let (result, _) = run_protocol_on::<Uttt>(&format!("-1 -1\n81\n{}4 4\n", all_cells()), 1);
        let err = result.unwrap_err().to_string();
        assert!(err.contains("not legal") || err.contains("not our turn") || err.contains("validActionCount"), "{err}");
    }
}
