//! A game's rules as its contest's referee applies them: what each program reads, how an
//! answer is read, how a fault ends the game and how the points are counted. Each game
//! implements [`RefereeRules`] in its own `referee.rs`; the judge (`selfplay::judge`) drives the
//! programs through it, on the platform's pattern:
//!
//! - **CodinGame**: before every turn the player to move reads [`RefereeRules::turn_input`] and
//!   answers within the turn's limit (1000 ms on its first turn, 100 ms after, from
//!   [`Contest::clock`]); a fault loses the game.
//! - **CodeCup**: each program reads its [`RefereeRules::intro`], then every turn's actions are
//!   relayed to the other program ([`RefereeRules::relay`]), each program has one thinking budget
//!   for the whole game, and `Quit` ends it; after a fault the jury plays on for the faulty
//!   program ([`RefereeRules::takeover`]), which scores 0.
//!
//! Every item but the title has a default that fits the platform's usual game. The exporter
//! never bundles this module or a game's `referee.rs` into a bot.

use crate::bot::{Contest, Platform};
use crate::codecup::{checked_turn, TurnError};
use crate::codingame::CodinGame;
use crate::game::{Action, ActionList, Game, Player, NUM_PLAYERS};
use crate::rng::{splitmix64, Rng};

/// What a program answered, read: the actions of its turn, and whether it claimed the win
/// (a `!` after the move, CodeCup's Zuniq).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub actions: Vec<Action>,
    pub claim: bool,
}

impl Answer {
    /// One action, no claim.
    pub fn single(action: Action) -> Self {
        Answer { actions: vec![action], claim: false }
    }
}

/// Why an answer is not a move: unreadable, or readable but not legal here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Misplay {
    Garbled(String),
    Illegal(String),
}

impl Misplay {
    pub fn detail(&self) -> &str {
        match self {
            Misplay::Garbled(d) | Misplay::Illegal(d) => d,
        }
    }
}

/// The referee's side of a game. See the module documentation.
pub trait RefereeRules: Contest {
    /// The game and its contest in a few words (`--help`).
    const TITLE: &'static str;
    /// Whether every turn's input tells the whole position, so that a judge may start a game
    /// from any position it reached (a random opening: games between two programs that always
    /// answer alike otherwise repeat).
    const ANY_START: bool = false;
    /// Whether the players share one score and the contest ranks a program by the scores it
    /// makes with the partners it meets (6561): a league then pairs every player with itself
    /// too and reports mean shared scores instead of ratings.
    const COOPERATIVE: bool = false;

    /// Lines `seat` reads before play starts. Default: CodeCup's `Start` to the first player.
    fn intro(&self, seat: Player) -> String {
        if Self::PLATFORM == Platform::CodeCup && seat == 0 { "Start\n".into() } else { String::new() }
    }

    /// CodinGame: everything the player to move reads this turn; `first_turn` is its first
    /// turn of the game, `previous` the last action played. A CodinGame game must write it;
    /// CodeCup games relay moves instead.
    fn turn_input(&self, _first_turn: bool, _previous: Option<Action>) -> String {
        assert!(Self::PLATFORM == Platform::CodeCup, "{}: a CodinGame game's referee must write each turn's input (RefereeRules::turn_input)", Self::NAME);
        String::new()
    }

    /// Reads one answer line (without its `\n`). Default: one turn in the game's notation
    /// ([`Game::parse_turn`]: one action in most games), every action legal in turn and the
    /// turn whole; a trailing `!` is a win claim, a `\r` at the end ignored.
    fn parse_answer(&self, line: &str) -> Result<Answer, Misplay> {
        let line = line.trim_end_matches('\r');
        let (text, claim) = match line.strip_suffix('!') {
            Some(t) => (t, true),
            None => (line, false),
        };
        let actions = checked_turn(self, text).map_err(|e| match e {
            TurnError::Unreadable(e) => Misplay::Garbled(e.to_string()),
            TurnError::NotLegal => Misplay::Illegal(format!("{text} is not legal here")),
            TurnError::NotWhole => Misplay::Illegal(format!("{text} is not a whole turn")),
        })?;
        Ok(Answer { actions, claim })
    }

    /// The answer that plays `action` here (the fuzzer's valid answers, the viewer's moves).
    /// Default: the action as the mover writes it ([`Game::turn_text`]).
    fn answer(&self, action: Action) -> String {
        self.turn_text(&[action])
    }

    /// CodeCup: the line the other program reads after a turn of `actions` (`self` is the
    /// position after them). Default: each action's text on a line of its own.
    fn relay(&self, actions: &[Action]) -> String {
        actions.iter().map(|&a| format!("{}\n", Self::format_action(a))).collect()
    }

    /// Whether a fault (timeout, crash, unreadable or illegal answer) ends the game at once.
    /// Default: on CodinGame it does; on CodeCup the jury plays on for the faulty program.
    fn fault_ends_game() -> bool {
        Self::PLATFORM == Platform::CodinGame
    }

    /// The points when `faulty`'s fault ended the game here. Default: nothing for the faulty
    /// seat, the other's points so far and at least 1.
    fn forfeit_scores(&self, faulty: Player) -> [f32; NUM_PLAYERS] {
        let mut scores = [0.0; NUM_PLAYERS];
        scores[1 - faulty] = self.scores()[1 - faulty].max(1.0);
        scores
    }

    /// The jury's turn for a faulty program that plays on. Default: one uniformly random legal
    /// action.
    fn takeover(&self, rng: &mut Rng) -> Vec<Action> {
        let mut list = ActionList::new();
        self.legal_actions(&mut list);
        vec![list[rng.below(list.len())]]
    }

    /// The final points when `faulty` had a fault and the jury played on for it. Default:
    /// the faulty seat scores 0.
    fn scores_after_fault(&self, mut scores: [f32; NUM_PLAYERS], faulty: Player) -> [f32; NUM_PLAYERS] {
        scores[faulty] = 0.0;
        scores
    }

    /// The points at the end, given the turn (1-based, counting both players' moves) at
    /// which each seat first claimed the win. Default: the game's scores.
    fn final_scores(&self, _claims: [Option<usize>; NUM_PLAYERS]) -> [f32; NUM_PLAYERS] {
        self.scores()
    }

    /// A note on the position for the game's record, updated after every action (e.g.
    /// `, largest piece 243`). Default: none.
    fn note(&self, _previous: &str) -> String {
        String::new()
    }

    /// How the game ended, in words, after `actions` actions.
    fn end_text(&self, actions: usize) -> String {
        format!("game over after {actions} moves, scores {:?}", self.scores())
    }

    /// Judge transcripts of one game (`judge --transcripts`, a file per seat) that the
    /// fuzzer mutates to test the bot's protocol reader. Default: none.
    fn transcripts() -> &'static [&'static str] {
        &[]
    }
}

/// A CodinGame answer as its referees read it: the move's words at the start of the line (no
/// space before them), then optionally a space and a message. A move the notation reads but
/// the rules refuse, or numbers off the board, are illegal; anything else is garbled.
pub fn codingame_answer<G: CodinGame>(state: &G, line: &str) -> Result<Answer, Misplay> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let words: Vec<&str> = line.split_whitespace().take(G::MOVE_WORDS).collect();
    if line.starts_with(char::is_whitespace) || words.len() < G::MOVE_WORDS {
        return Err(Misplay::Garbled(format!("expected a move of {} words at the start of the line: {line:?}", G::MOVE_WORDS)));
    }
    let text = words.join(" ");
    match G::read_move(&words) {
        Ok(Some(action)) if state.is_legal(action) => Ok(Answer::single(action)),
        Ok(Some(_)) => Err(Misplay::Illegal(format!("{text} is not a valid action here"))),
        Ok(None) => Err(Misplay::Illegal(format!("{text} is no move"))),
        Err(why) if words.iter().all(|w| w.parse::<i64>().is_ok()) => Err(Misplay::Illegal(format!("{text} is off the board ({why})"))),
        Err(why) => Err(Misplay::Garbled(format!("not a move ({why}): {line:?}"))),
    }
}

/// CodinGame's list of valid actions as its referees write it: the count, then each action as
/// `text` writes it, a line each, in an order drawn from the position when `shuffled` (as
/// CodinGame shuffles them: a bot must not rely on any order), else in the rules' order.
pub fn codingame_valid_actions<G: Game>(state: &G, shuffled: bool, text: impl Fn(Action) -> String) -> String {
    let mut list = ActionList::new();
    state.legal_actions(&mut list);
    let mut valid: Vec<Action> = list.to_vec();
    if shuffled {
        valid.sort_by_key(|&a| splitmix64(state.hash() ^ a as u64).1);
    }
    let mut out = format!("{}\n", valid.len());
    for a in valid {
        out.push_str(&text(a));
        out.push('\n');
    }
    out
}
