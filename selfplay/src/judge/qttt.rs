//! The quantum tic-tac-toe referee: a line may hold a collapse and a move (`CAD`); the judge
//! adds `!` to a relayed line whose move closed a cycle, so the reader collapses first. A fault
//! scores 0 and the judge plays the first legal actions for the faulty player; the other player
//! then gets at least a win (20 plus its bonus).

use super::process::{Fault, FaultKind, PlayerProcess};
use super::{scaled, Referee, RefereeResult};
use bots::game::{ActionList, Game};
use bots::qttt::protocol::{parse_line, GAME_SECONDS};
use bots::qttt::Qttt;
use bots::rng::Rng;
use std::time::Duration;

pub struct QtttReferee;

impl Referee for QtttReferee {
    fn suspends_programs(&self) -> bool {
        true
    }

    fn play(&self, players: &mut [PlayerProcess; 2], seed: u64, time_scale: f64) -> RefereeResult {
        let mut state = Qttt::new_game(&mut Rng::new(seed));
        players[0].send("Start\n");
        let budget = scaled(GAME_SECONDS * 1000, time_scale);
        let mut used = [Duration::ZERO; 2];
        let mut faulted: [Option<Fault>; 2] = [None, None];
        let mut actions = Vec::new();
        let mut list = ActionList::new();
        while !state.is_terminal() {
            let seat = state.to_move();
            let turn: Vec<_> = if faulted[seat].is_some() {
                // The jury plays the first legal actions: a collapse if due, then a move.
                let mut s = state.clone();
                let mut taken = Vec::new();
                loop {
                    s.legal_actions(&mut list);
                    let a = list[0];
                    let collapse = s.collapse_pending();
                    s.apply(a);
                    taken.push(a);
                    if !collapse || s.is_terminal() {
                        break;
                    }
                }
                taken
            } else {
                let before = players[seat].timing.total;
                let answer = players[seat].receive(budget.saturating_sub(used[seat]));
                used[seat] += players[seat].timing.total - before;
                match answer.and_then(|line| {
                    parse_line(&state, line.trim_end_matches('\r')).map_err(|e| Fault { kind: FaultKind::Illegal, detail: e })
                }) {
                    Ok(taken) => taken,
                    Err(fault) => {
                        faulted[seat] = Some(fault);
                        continue;
                    }
                }
            };
            let text: String = turn.iter().map(|&a| Qttt::format_action(a)).collect();
            for a in &turn {
                actions.push(Qttt::format_action(*a));
                state.apply(*a);
            }
            let other = 1 - seat;
            if !state.is_terminal() && faulted[other].is_none() {
                let mark = if state.collapse_pending() { "!" } else { "" };
                players[other].send(&format!("{text}{mark}\n"));
            }
        }
        for p in players.iter_mut() {
            p.resume();
            p.send("Quit\n");
        }
        let mut scores = state.scores();
        let bonus = state.bonus();
        let mut fault = None;
        for seat in 0..2 {
            if let Some(f) = faulted[seat].take() {
                scores[seat] = 0.0;
                scores[1 - seat] = scores[1 - seat].max(20.0 + bonus[1 - seat] as f32);
                fault.get_or_insert((seat, f));
            }
        }
        let end = format!("game over after {} actions, scores {:?}", actions.len(), state.scores());
        RefereeResult { actions, scores, end, fault }
    }
}
