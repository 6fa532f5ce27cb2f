//! The CodeCup referee pattern: each player gets its opening lines, then the moves alternate,
//! one action per line, each player with one thinking budget for the whole game; `Quit` ends it.
//! The game's last move is not relayed before `Quit` (the contest's likely behaviour; bots
//! must accept both).

use super::process::{Fault, FaultKind, PlayerProcess};
use super::{scaled, Referee, RefereeResult};
use bots::game::{ActionList, Game, Player};
use bots::rng::Rng;
use std::marker::PhantomData;
use std::time::Duration;

/// What differs between CodeCup games, referee side.
pub trait CodecupRules: Game {
    /// Milliseconds of thinking per player per game.
    const GAME_MS: u64;
    /// Lines a seat reads before play starts (e.g. `A`/`B`).
    fn intro(state: &Self, seat: Player) -> String;
    /// How a fault ends: `true` if the game goes on with the judge playing random moves for
    /// the faulty player, who scores 0 (6561); `false` if the faulty player simply loses.
    const RANDOM_TAKEOVER: bool;
    /// A note on the position for the game record (e.g. the largest piece), updated each move.
    fn note(_state: &Self, _previous: &str) -> String {
        String::new()
    }
    /// Points at the end, given the turn (1-based, counting both players' moves) at which each
    /// seat first claimed the win with `!`, if it did.
    fn final_scores(state: &Self, _claims: [Option<usize>; 2]) -> [f32; 2] {
        state.scores()
    }
}

pub struct CodecupReferee<G: CodecupRules>(pub PhantomData<G>);

impl<G: CodecupRules> Default for CodecupReferee<G> {
    fn default() -> Self {
        CodecupReferee(PhantomData)
    }
}

/// Reads an answer: the action and whether it carries a `!` win claim.
pub fn parse_answer<G: Game>(state: &G, line: &str) -> Result<(bots::game::Action, bool), Fault> {
    let text = line.trim_end_matches('\r');
    let (text, claim) = match text.strip_suffix('!') {
        Some(t) => (t, true),
        None => (text, false),
    };
    let action = G::parse_action(text).map_err(|e| Fault { kind: FaultKind::Garbled, detail: e.to_string() })?;
    if !state.is_legal(action) {
        return Err(Fault { kind: FaultKind::Illegal, detail: format!("{text} is not legal here") });
    }
    Ok((action, claim))
}

impl<G: CodecupRules> Referee for CodecupReferee<G> {
    fn suspends_programs(&self) -> bool {
        true
    }

    fn play(&self, players: &mut [PlayerProcess; 2], seed: u64, time_scale: f64) -> RefereeResult {
        let mut rng = Rng::new(seed);
        let mut state = G::new_game(&mut rng);
        for (seat, p) in players.iter_mut().enumerate() {
            p.send(&G::intro(&state, seat));
        }
        let budget = scaled(G::GAME_MS, time_scale);
        let mut used = [Duration::ZERO; 2];
        let mut faulted: [Option<Fault>; 2] = [None, None];
        let mut actions = Vec::new();
        let mut list = ActionList::new();
        let mut note = String::new();
        let mut claims: [Option<usize>; 2] = [None, None];
        while !state.is_terminal() {
            let seat = state.to_move();
            let action = if faulted[seat].is_some() {
                state.legal_actions(&mut list);
                list[rng.below(list.len())]
            } else {
                let limit = budget.saturating_sub(used[seat]);
                let before = players[seat].timing.total;
                let answer = players[seat].receive(limit).and_then(|line| parse_answer(&state, &line));
                used[seat] += players[seat].timing.total - before;
                match answer {
                    Ok((a, claim)) => {
                        if claim && claims[seat].is_none() {
                            claims[seat] = Some(actions.len() + 1);
                        }
                        a
                    }
                    Err(fault) => {
                        if !G::RANDOM_TAKEOVER {
                            let mut scores = [0.0; 2];
                            scores[1 - seat] = state.scores()[1 - seat].max(1.0);
                            return RefereeResult { actions, scores, end: format!("seat {seat} {:?}", fault.kind).to_lowercase(), fault: Some((seat, fault)) };
                        }
                        faulted[seat] = Some(fault);
                        continue;
                    }
                }
            };
            actions.push(G::format_action(action));
            state.apply(action);
            note = G::note(&state, &note);
            let other = 1 - seat;
            if !state.is_terminal() && faulted[other].is_none() {
                players[other].send(&format!("{}\n", G::format_action(action)));
            }
        }
        for p in players.iter_mut() {
            p.resume();
            p.send("Quit\n");
        }
        let mut scores = G::final_scores(&state, claims);
        let mut fault = None;
        for seat in 0..2 {
            if let Some(f) = faulted[seat].take() {
                scores[seat] = 0.0;
                fault.get_or_insert((seat, f));
            }
        }
        let claimed: String = (0..2).filter_map(|seat| claims[seat].map(|turn| format!(", seat {seat} claimed the win at turn {turn}"))).collect();
        let end = format!("game over after {} moves, scores {:?}{}{claimed}", actions.len(), state.scores(), note);
        RefereeResult { actions, scores, end, fault }
    }
}

impl CodecupRules for bots::blackhole::BlackHole {
    const GAME_MS: u64 = bots::blackhole::protocol::GAME_SECONDS * 1000;
    // "Your opponent will finish the game against a player controlled by the jury."
    const RANDOM_TAKEOVER: bool = true;
    fn intro(state: &Self, seat: Player) -> String {
        let mut text: String = state.brown_fields().iter().map(|&f| format!("{}\n", bots::blackhole::label(f))).collect();
        if seat == 0 {
            text.push_str("Start\n");
        }
        text
    }
}

impl CodecupRules for bots::zuniq::Zuniq {
    const GAME_MS: u64 = bots::zuniq::protocol::GAME_SECONDS * 1000;
    const RANDOM_TAKEOVER: bool = true;
    fn intro(_: &Self, seat: Player) -> String {
        if seat == 0 { "Start\n".into() } else { String::new() }
    }
    /// 100 / 50, plus the claim bonus: (39 - x) / 2 for White, (40 - x) / 2 for Black, at most
    /// 10 and not negative; a player who claimed and lost gets 0.
    fn final_scores(state: &Self, claims: [Option<usize>; 2]) -> [f32; 2] {
        let mut scores = state.scores();
        for (seat, claim) in claims.iter().enumerate() {
            if let Some(x) = *claim {
                if state.winner() == Some(seat) {
                    let base = if seat == 0 { 39.0 } else { 40.0 };
                    scores[seat] += ((base - x as f32) / 2.0).clamp(0.0, 10.0);
                } else {
                    scores[seat] = 0.0;
                }
            }
        }
        scores
    }
}

impl CodecupRules for bots::game6561::Game6561 {
    const GAME_MS: u64 = bots::game6561::protocol::GAME_SECONDS * 1000;
    const RANDOM_TAKEOVER: bool = true;
    fn intro(_: &Self, seat: Player) -> String {
        if seat == 0 { "A\n".into() } else { "B\n".into() }
    }
    /// The largest piece seen so far: `, largest piece 243`.
    fn note(state: &Self, previous: &str) -> String {
        let largest = state.largest_piece().max(previous.rsplit(' ').next().and_then(|v| v.parse().ok()).unwrap_or(0));
        format!(", largest piece {largest}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bots::zuniq::Zuniq;

    #[test]
    fn zuniq_claims_earn_a_bonus_or_cost_everything() {
        let game = "D1h E1h B2h D2v F4h A5v C1h B1h A5h A2h A4v C4v F1h B3h E3h C6v D3v B1v F3h D4h C3h A1v E5h A3h A6v B3v F2h E2h C2v D5h D1v B6v B4h E5v E1v A2v E4v D6v F5h";
        let mut z = Zuniq::new();
        bots::tools::apply_texts(&mut z, &game.split(' ').collect::<Vec<_>>()).unwrap();
        assert_eq!(z.winner(), Some(0));
        assert_eq!(Zuniq::final_scores(&z, [None, None]), [100.0, 50.0]);
        // White claims at turn 31: (39 - 31) / 2 = 4 extra.
        assert_eq!(Zuniq::final_scores(&z, [Some(31), None]), [104.0, 50.0]);
        // An early claim is capped at 10.
        assert_eq!(Zuniq::final_scores(&z, [Some(3), None]), [110.0, 50.0]);
        // Black claimed and lost: nothing.
        assert_eq!(Zuniq::final_scores(&z, [None, Some(20)]), [100.0, 0.0]);
    }
}
