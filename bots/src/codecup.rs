//! The CodeCup protocol pattern: after a game's own opening lines, the players alternate one
//! action per line until `Quit`. CodinGame bots never need this module.

use crate::agent::Agent;
use crate::game::{Action, Game, ParseActionError, Player};
use crate::protocol::{LineReader, ProtocolError};
use crate::time::TimeManager;
use std::io::{BufRead, Write};

/// Whether our moves carry a `!` win claim once the search has proven the win (Zuniq).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claims {
    Never,
    WhenProven,
}

/// How one game uses the CodeCup pattern.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Codecup {
    pub claims: Claims,
    /// Actions of both players the clock is split over: the game's length when it is fixed,
    /// a typical one when it is not.
    pub planned_length: usize,
    /// Own moves always budgeted beyond the plan, so a game longer than planned keeps time.
    pub reserve_moves: u32,
}

impl Codecup {
    /// A game of exactly `length` actions, without claims.
    pub fn fixed_length(length: usize) -> Self {
        Codecup { claims: Claims::Never, planned_length: length, reserve_moves: 0 }
    }
}

/// The opening shared by several CodeCup games: the next line is `Start` when we move first
/// (seat 0); otherwise it is the opponent's first turn, and we are seat 1.
pub fn codecup_start_or_reply<G: Game, R: BufRead, W: Write>(
    reader: &mut LineReader<R>,
    output: W,
    agent: &mut dyn Agent<G>,
    time: &mut TimeManager,
    log: &mut dyn Write,
    mut state: G,
    play: Codecup,
) -> Result<(), ProtocolError> {
    let first = reader.expect_line("Start or the opponent's first move")?.trim().to_string();
    if first == "Start" {
        return codecup_alternate(reader, output, agent, time, log, state, 0, play);
    }
    read_turn(&mut state, &first, agent).map_err(|e| reader.error(format!("expected Start or a move: {e}")))?;
    codecup_alternate(reader, output, agent, time, log, state, 1, play)
}

/// Why the text of a turn does not play from a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnError {
    Unreadable(ParseActionError),
    NotLegal,
    NotWhole,
}

/// The actions of the turn written as `text` ([`Game::parse_turn`]), checked from `state`:
/// each legal in turn, and the turn whole (its mover no longer to move after it, unless the
/// game ended). The bot's reading of a move and the referee's of an answer.
pub fn checked_turn<G: Game>(state: &G, text: &str) -> Result<Vec<Action>, TurnError> {
    let actions = state.parse_turn(text).map_err(TurnError::Unreadable)?;
    let mut after = state.clone();
    for &action in &actions {
        if after.is_terminal() || !after.is_legal(action) {
            return Err(TurnError::NotLegal);
        }
        after.apply(action);
    }
    if !after.is_terminal() && after.to_move() == state.to_move() {
        return Err(TurnError::NotWhole);
    }
    Ok(actions)
}

/// Plays the opponent's turn written on `line` (a trailing `!`, a win claim in some games, is
/// ignored), telling the agent; returns the actions played.
fn read_turn<G: Game>(state: &mut G, line: &str, agent: &mut dyn Agent<G>) -> Result<usize, String> {
    let actions = checked_turn(state, line.strip_suffix('!').unwrap_or(line)).map_err(|e| match e {
        TurnError::Unreadable(e) => e.to_string(),
        TurnError::NotLegal => format!("the opponent's move {line:?} is not legal here"),
        TurnError::NotWhole => format!("the opponent's move {line:?} is not a whole turn"),
    })?;
    for &action in &actions {
        agent.observe(action);
        state.apply(action);
    }
    Ok(actions.len())
}

/// The CodeCup pattern shared by its games: after the game's own opening lines, the players
/// alternate, one turn per line, until `Quit`. We move when `state` says it is our seat's
/// turn and read the opponent's turn otherwise; after the game ends we only wait for `Quit`
/// (whether the last move is relayed first varies: both are accepted). A trailing `!` on an
/// input move (a win claim in some games) is ignored.
///
/// A turn is every action our seat takes before the other seat moves, written as one line
/// ([`Game::turn_text`]): one action in most games, a whole setup in some. The clock treats
/// each action as a move of its own (its share of the clock, the agent's pace), and the line
/// goes out when the turn is complete.
pub fn codecup_alternate<G: Game, R: BufRead, W: Write>(
    reader: &mut LineReader<R>,
    mut output: W,
    agent: &mut dyn Agent<G>,
    time: &mut TimeManager,
    log: &mut dyn Write,
    mut state: G,
    me: Player,
    play: Codecup,
) -> Result<(), ProtocolError> {
    // Actions applied since the start of the game (for time planning).
    let mut played = 0usize;
    let mut claimed = false;
    // Our turn so far, and the position it started from.
    let mut turn = Vec::new();
    let mut turn_start = state.clone();
    let mut turn_took = std::time::Duration::ZERO;
    let mut turn_claim = false;
    loop {
        if !state.is_terminal() && state.to_move() == me {
            let start = std::time::Instant::now();
            // Our own moves left in the planned game (the agent's plan, or the protocol's), plus
            // the reserve.
            let (length, reserve) = agent.planned_game().unwrap_or((play.planned_length, play.reserve_moves));
            let own_left = ((length.saturating_sub(played) + 1) / 2) as u32 + reserve;
            // The agent's pace for this move: weight `w` takes `w` shares of `own_left - 1 + w`.
            let weight = agent.pace(&state);
            let shares = (own_left.max(1) as f64 - 1.0 + weight) / weight;
            let action = agent.choose(&state, Some(time.deadline(start, shares)));
            // Claim once, on the first move after which the win is proven.
            let claim = play.claims == Claims::WhenProven && !claimed && agent.proved_win();
            claimed |= claim;
            turn_claim |= claim;
            // The clock stops before the move goes out (see `TimeManager::finish_move`).
            turn_took += time.finish_move(start);
            if turn.is_empty() {
                turn_start = state.clone();
            }
            turn.push(action);
            agent.observe(action);
            state.apply(action);
            played += 1;
            if !state.is_terminal() && state.to_move() == me {
                continue;
            }
            let text = turn_start.turn_text(&turn);
            writeln!(output, "{}{}", text, if turn_claim { "!" } else { "" })
                .and_then(|_| output.flush())
                .map_err(|e| ProtocolError { line: 0, message: format!("cannot write the move: {e}") })?;
            let _ = writeln!(log, "play {} ({} ms, {} ms used) {}", text, turn_took.as_millis(), time.used().as_millis(), agent.last_report());
            turn.clear();
            turn_took = std::time::Duration::ZERO;
            turn_claim = false;
            continue;
        }
        let line = match reader.next_line()? {
            None => return Ok(()),
            Some(text) => text.trim().to_string(),
        };
        if line == "Quit" {
            return Ok(());
        }
        if state.is_terminal() {
            // The judge may relay the game's last move before Quit; nothing else may come.
            return Err(reader.error(format!("expected Quit after the end of the game, got {line:?}")));
        }
        played += read_turn(&mut state, &line, agent).map_err(|e| reader.error(e))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::ActionList;
    use crate::time::{Clock, Safety};
    use crate::zuniq::Zuniq;
    use std::time::{Duration, Instant};

    /// Plays the first legal action and remembers how long it was given; asks for `pace`
    /// shares of the clock.
    struct Timed {
        pace: f64,
        plan: Option<(usize, u32)>,
        budgets: Vec<Duration>,
    }

    impl Agent<Zuniq> for Timed {
        fn choose(&mut self, state: &Zuniq, deadline: Option<Instant>) -> Action {
            self.budgets.push(deadline.expect("a clocked move").saturating_duration_since(Instant::now()));
            let mut legal = ActionList::new();
            state.legal_actions(&mut legal);
            legal[0]
        }
        fn pace(&self, _state: &Zuniq) -> f64 {
            self.pace
        }
        fn planned_game(&self) -> Option<(usize, u32)> {
            self.plan
        }
    }

    /// The time given to White's first move of a 30 s game under `play`, for an agent asking
    /// for `pace` shares.
    fn first_move_budget(play: Codecup, pace: f64) -> f64 {
        first_move_budget_planned(play, pace, None)
    }

    fn first_move_budget_planned(play: Codecup, pace: f64, plan: Option<(usize, u32)>) -> f64 {
        let mut agent = Timed { pace, plan, budgets: Vec::new() };
        let mut time = TimeManager::new(Clock::per_game(30, 1.0), Safety::new(0.1, 15));
        let mut out = Vec::new();
        codecup_start_or_reply(&mut LineReader::new("Start\nQuit\n".as_bytes()), &mut out, &mut agent, &mut time, &mut std::io::sink(), Zuniq::new(), play)
            .unwrap();
        assert_eq!(agent.budgets.len(), 1);
        agent.budgets[0].as_secs_f64()
    }

    #[test]
    fn the_clock_is_split_over_the_planned_length_plus_the_reserve() {
        // 27 s usable (10% kept, minus 15 ms) over 30 own moves, or over 20 + 3.
        let full_length = first_move_budget(Codecup::fixed_length(60), 1.0);
        let planned = first_move_budget(Codecup { claims: Claims::Never, planned_length: 40, reserve_moves: 3 }, 1.0);
        assert!((full_length - 26.985 / 30.0).abs() < 0.01, "{full_length}");
        assert!((planned - 26.985 / 23.0).abs() < 0.01, "{planned}");
    }

    #[test]
    fn an_agent_may_plan_its_own_game_length() {
        // The agent's 32 actions + 2 reserve (18 own moves) replace the protocol's 40 + 3 (23).
        let play = Codecup { claims: Claims::Never, planned_length: 40, reserve_moves: 3 };
        let own = first_move_budget_planned(play, 1.0, Some((32, 2)));
        assert!((own - 26.985 / 18.0).abs() < 0.01, "{own}");
    }

    /// Output whose every flush stalls, as a program does when the judge suspends it the
    /// moment its move arrives.
    struct StallingOutput(Duration);

    impl Write for StallingOutput {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            std::thread::sleep(self.0);
            Ok(())
        }
    }

    #[test]
    fn time_spent_after_the_move_is_written_is_not_booked() {
        // Three moves of ours, each followed by a 300 ms stall in the write: the agent answers
        // at once, so the booked time stays far below one stall.
        let mut agent = Timed { pace: 1.0, plan: None, budgets: Vec::new() };
        let mut time = TimeManager::new(Clock::per_game(30, 1.0), Safety::new(0.1, 15));
        let mut state = Zuniq::new();
        let mut input = String::from("Start\n");
        let mut list = ActionList::new();
        for _ in 0..3 {
            state.legal_actions(&mut list);
            state.apply(list[0]);
            state.legal_actions(&mut list);
            input.push_str(&format!("{}\n", Zuniq::format_action(list[0])));
            state.apply(list[0]);
        }
        input.push_str("Quit\n");
        let play = Codecup { claims: Claims::Never, planned_length: 40, reserve_moves: 3 };
        let output = StallingOutput(Duration::from_millis(300));
        codecup_start_or_reply(&mut LineReader::new(input.as_bytes()), output, &mut agent, &mut time, &mut std::io::sink(), Zuniq::new(), play).unwrap();
        assert_eq!(agent.budgets.len(), 4);
        assert!(time.used() < Duration::from_millis(150), "booked {:?} for four instant moves", time.used());
    }

    #[test]
    fn the_agent_paces_its_moves() {
        // Weight w takes w shares of 23 - 1 + w.
        let play = Codecup { claims: Claims::Never, planned_length: 40, reserve_moves: 3 };
        for (pace, shares) in [(0.5, 22.5 / 0.5), (3.0, 25.0 / 3.0)] {
            let budget = first_move_budget(play, pace);
            assert!((budget - 26.985 / shares).abs() < 0.01, "pace {pace}: {budget}");
        }
    }
}
