//! The contest referee of every game, on its platform's pattern, from the rules the game
//! declares in its own folder ([`bots::referee::RefereeRules`]): what each program reads, how
//! its answer is read, how a fault ends the game and how the points are counted.

use super::process::{Fault, FaultKind, PlayerProcess};
use super::{Referee, RefereeResult};
use bots::bot::Platform;
use bots::game::{Action, NUM_PLAYERS};
use bots::referee::{Answer, Misplay, RefereeRules};
use bots::rng::Rng;
use bots::time::Clock;
use std::marker::PhantomData;
use std::time::Duration;

/// The referee of game `G`.
pub struct GameReferee<G: RefereeRules>(PhantomData<G>);

/// The referee of game `G`, for the judge and the league.
pub fn referee_of<G: RefereeRules>() -> &'static dyn Referee {
    &GameReferee::<G>(PhantomData)
}

/// Reads an answer as `G`'s referee does; a misplay becomes the fault it is.
pub fn read_answer<G: RefereeRules>(state: &G, line: &str) -> Result<Answer, Fault> {
    state.parse_answer(line).map_err(|m| match m {
        Misplay::Garbled(detail) => Fault { kind: FaultKind::Garbled, detail },
        Misplay::Illegal(detail) => Fault { kind: FaultKind::Illegal, detail },
    })
}

impl<G: RefereeRules> Referee for GameReferee<G> {
    /// CodeCup's judge stops each program while it is not its turn; CodinGame's times each
    /// turn from its input and needs no suspension.
    fn suspends_programs(&self) -> bool {
        G::PLATFORM == Platform::CodeCup
    }

    fn game(&self) -> &'static str {
        G::NAME
    }

    fn any_start(&self) -> bool {
        G::ANY_START
    }

    fn parse_opening(&self, texts: &[String]) -> Result<Vec<Action>, String> {
        let mut state = G::new_game(&mut Rng::new(0));
        let actions = bots::tools::apply_texts(&mut state, &texts.iter().map(String::as_str).collect::<Vec<_>>())?;
        if state.is_terminal() {
            return Err("the opening ends the game".into());
        }
        Ok(actions)
    }

    fn play(&self, players: &mut [PlayerProcess; 2], seed: u64, fixed: &[Action], opening: usize, time_scale: f64) -> RefereeResult {
        let codecup = G::PLATFORM == Platform::CodeCup;
        let mut rng = Rng::new(seed);
        let mut state = G::new_game(&mut rng);
        assert!(opening == 0 && fixed.is_empty() || G::ANY_START, "{} cannot start from an opening", G::NAME);
        // The opening: the fixed actions, then random legal ones, none of them ending the game.
        let mut actions = Vec::new();
        let mut previous: Option<Action> = None;
        for &action in fixed {
            actions.push(G::format_action(action));
            state.apply(action);
            previous = Some(action);
        }
        let mut legal = bots::game::ActionList::new();
        for _ in 0..opening {
            state.legal_actions(&mut legal);
            let lasting: Vec<Action> = legal.iter().copied().filter(|&a| !{ let mut s = state.clone(); s.apply(a); s.is_terminal() }).collect();
            let Some(&action) = lasting.get(rng.below(lasting.len().max(1))) else { break };
            actions.push(G::format_action(action));
            state.apply(action);
            previous = Some(action);
        }
        for (seat, p) in players.iter_mut().enumerate() {
            let intro = state.intro(seat);
            if !intro.is_empty() {
                p.send(&intro);
            }
        }
        let clock = G::clock(time_scale);
        let mut used = [Duration::ZERO; NUM_PLAYERS];
        let mut has_played = [false; NUM_PLAYERS];
        let mut faulted: [Option<Fault>; NUM_PLAYERS] = [None, None];
        let mut claims: [Option<usize>; NUM_PLAYERS] = [None, None];
        let mut note = String::new();
        while !state.is_terminal() {
            let seat = state.to_move();
            let turn = if faulted[seat].is_some() {
                state.takeover(&mut rng)
            } else {
                if !codecup {
                    players[seat].send(&state.turn_input(!has_played[seat], previous));
                }
                let limit = match clock {
                    Clock::PerTurn { first, rest } => if has_played[seat] { rest } else { first },
                    Clock::PerGame { total } => total.saturating_sub(used[seat]),
                };
                let before = players[seat].timing.total;
                let answer = players[seat].receive(limit).and_then(|line| read_answer(&state, &line));
                used[seat] += players[seat].timing.total - before;
                match answer {
                    Ok(Answer { actions: turn, claim }) => {
                        if claim && claims[seat].is_none() {
                            claims[seat] = Some(actions.len() + 1);
                        }
                        turn
                    }
                    Err(fault) => {
                        if G::fault_ends_game() {
                            let end = format!("seat {seat} {:?}", fault.kind).to_lowercase();
                            return RefereeResult { actions, scores: state.forfeit_scores(seat), end, fault: Some((seat, fault)) };
                        }
                        faulted[seat] = Some(fault);
                        continue;
                    }
                }
            };
            has_played[seat] = true;
            for &a in &turn {
                actions.push(G::format_action(a));
                state.apply(a);
                note = state.note(&note);
                previous = Some(a);
            }
            let other = 1 - seat;
            if codecup && !state.is_terminal() && faulted[other].is_none() {
                players[other].send(&state.relay(&turn));
            }
        }
        if codecup {
            for p in players.iter_mut() {
                p.resume();
                p.send("Quit\n");
            }
        }
        let mut scores = state.final_scores(claims);
        let mut fault = None;
        for seat in 0..NUM_PLAYERS {
            if let Some(f) = faulted[seat].take() {
                scores = state.scores_after_fault(scores, seat);
                fault.get_or_insert((seat, f));
            }
        }
        let claimed: String = (0..NUM_PLAYERS).filter_map(|seat| claims[seat].map(|turn| format!(", seat {seat} claimed the win at turn {turn}"))).collect();
        let end = format!("{}{note}{claimed}", state.end_text(actions.len()));
        RefereeResult { actions, scores, end, fault }
    }
}
