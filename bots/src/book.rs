//! Opening books: moves decided offline by long searches (`cupzero book`), played without
//! searching when the game reaches their position. Positions are reduced by the game's
//! symmetries, so one entry serves every symmetric copy.
//!
//! Text form, one entry a line: the position's key (16 hex digits: the smallest
//! [`Game::hash`] over its symmetric copies) and the action in that copy's frame (decimal).
//! Lines starting with `#` are comments; `game NAME` names the game. A key with fewer than 16
//! digits matches every position whose key starts with them.
//!
//! An exported bot carries the packed form ([`Book::to_packed`]), written in the weights' text
//! alphabet ([`crate::text`]): each key cut to its first [`COMPACT_KEY_DIGITS`] digits (5 bytes),
//! its action in 1 byte (2 where the game has more than 256 actions). 6 bytes are 3.2
//! characters on CodinGame (15 bits a character) and 7.4 on CodeCup (ASCII), where the text
//! form took 13.

use crate::agent::Agent;
use crate::bot::{net_agent, run_bot, Contest, Platform};
use crate::game::{Action, ActionList, Game};
use crate::nn::Mlp;
use crate::text::text_to_bytes;
use crate::time::Safety;
use std::time::Instant;

/// Hex digits a key keeps in the compact form. 40 bits: with a few hundred entries the chance
/// that a position outside the book matches one is about 1e-10 a lookup (and a match must
/// still name a legal move), while each entry costs 6 bytes less of a size-capped export.
pub const COMPACT_KEY_DIGITS: usize = 10;

#[derive(Clone, Debug, PartialEq)]
pub struct Book {
    /// Sorted by key, one action a key; keys hold only their first `key_digits` hex digits.
    entries: Vec<(u64, Action)>,
    key_digits: usize,
}

#[cfg(not(bundle))]
impl Default for Book {
    fn default() -> Self {
        Book { entries: Vec::new(), key_digits: 16 }
    }
}

/// A position's key, and the symmetry whose copy gives it.
pub fn canonical_key<G: Game>(state: &G) -> (u64, usize) {
    (0..G::NUM_SYMMETRIES).map(|sym| (state.symmetric(sym).hash(), sym)).min().expect("the identity is a symmetry")
}

impl Book {
    fn key_mask(&self) -> u64 {
        u64::MAX << (64 - 4 * self.key_digits)
    }

    #[cfg(not(bundle))]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[cfg(not(bundle))]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Records `action` for `state` (replacing an earlier entry for that position).
    #[cfg(not(bundle))]
    pub fn insert<G: Game>(&mut self, state: &G, action: Action) {
        let (key, sym) = canonical_key(state);
        let key = key & self.key_mask();
        let entry = (key, G::map_action(sym, action));
        match self.entries.binary_search_by_key(&key, |e| e.0) {
            Ok(i) => self.entries[i] = entry,
            Err(i) => self.entries.insert(i, entry),
        }
    }

    /// Cuts every key to `key_digits`, then sorts the entries and keeps one a key.
    fn settle(&mut self) {
        let key_mask = self.key_mask();
        for entry in &mut self.entries {
            entry.0 &= key_mask;
        }
        self.entries.sort_unstable();
        self.entries.dedup_by_key(|e| e.0);
    }

    /// One entry's text: the key's first `digits` hex digits, then the action.
    #[cfg(not(bundle))]
    fn entry_text(key: u64, action: Action, digits: usize) -> String {
        format!("{:01$x} {2}", key >> (64 - 4 * digits), digits, action)
    }

    /// Adds `other`'s entries (its move wins where both hold a position).
    #[cfg(not(bundle))]
    pub fn merge(&mut self, other: Book) {
        self.key_digits = self.key_digits.min(other.key_digits);
        let key_mask = self.key_mask();
        self.entries.retain(|e| other.entries.binary_search_by_key(&(e.0 & key_mask), |o| o.0 & key_mask).is_err());
        self.entries.extend(other.entries);
        self.settle();
    }

    pub fn contains<G: Game>(&self, state: &G) -> bool {
        self.entries.binary_search_by_key(&(canonical_key(state).0 & self.key_mask()), |e| e.0).is_ok()
    }

    /// The book's move at `state`, if it has one (and it is legal there: a key that collides
    /// with another position's plays nothing).
    pub fn lookup<G: Game>(&self, state: &G) -> Option<Action> {
        let (key, sym) = canonical_key(state);
        let stored = self.entries[self.entries.binary_search_by_key(&(key & self.key_mask()), |e| e.0).ok()?].1;
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        legal.iter().copied().find(|&a| G::map_action(sym, a) == stored)
    }

    /// Reads the text form; `game` must match its `game` line when it has one.
    #[cfg(not(bundle))]
    pub fn parse(text: &str, game: &str) -> Result<Book, String> {
        let mut entries = Vec::new();
        let mut digits = 16;
        for (n, line) in text.split(['\n', ';']).enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(name) = line.strip_prefix("game ") {
                if name.trim() != game {
                    return Err(format!("a {} book, not {game}", name.trim()));
                }
                continue;
            }
            let entry = line.split_once(' ').filter(|(key, _)| (1..=16).contains(&key.len())).and_then(|(key, action)| {
                digits = digits.min(key.len());
                Some((u64::from_str_radix(key, 16).ok()? << (64 - 4 * key.len()), action.trim().parse::<Action>().ok()?))
            });
            entries.push(entry.ok_or_else(|| format!("entry {}: expected a hex key and an action, got {line:?}", n + 1))?);
        }
        let mut book = Book { entries, key_digits: digits };
        book.settle();
        Ok(book)
    }

    /// The text form: `game` line, then one entry a line.
    #[cfg(not(bundle))]
    pub fn to_text(&self, game: &str, comment: &str) -> String {
        let mut text = format!("# cupzero opening book{}\ngame {game}\n", if comment.is_empty() { String::new() } else { format!(": {comment}") });
        for &(key, action) in &self.entries {
            text.push_str(&Self::entry_text(key, action, self.key_digits));
            text.push('\n');
        }
        text
    }

    /// The form an exported bot embeds: the key digits kept (one byte), then each entry as its
    /// key's first [`COMPACT_KEY_DIGITS`] hex digits (5 bytes, most significant first) and its
    /// action ([`packed_action_bytes`] bytes, least significant first).
    #[cfg(not(bundle))]
    pub fn to_packed<G: Game>(&self) -> Vec<u8> {
        let digits = COMPACT_KEY_DIGITS.min(self.key_digits);
        let mut bytes = vec![digits as u8];
        for &(key, action) in &self.entries {
            bytes.extend_from_slice(&key.to_be_bytes()[..5]);
            bytes.extend_from_slice(&action.to_le_bytes()[..packed_action_bytes::<G>()]);
        }
        bytes
    }

    /// Reads what [`Book::to_packed`] wrote.
    pub fn from_packed<G: Game>(bytes: &[u8]) -> Result<Book, String> {
        let width = 5 + packed_action_bytes::<G>();
        match bytes.split_first() {
            Some((&digits, body)) if (1..=COMPACT_KEY_DIGITS as u8).contains(&digits) && body.len() % width == 0 => {
                let entries = body
                    .chunks(width)
                    .map(|e| (e[..5].iter().fold(0u64, |k, &b| k << 8 | b as u64) << 24, e[5..].iter().rev().fold(0, |a, &b| a << 8 | b as Action)))
                    .collect();
                let mut book = Book { entries, key_digits: digits as usize };
                book.settle();
                Ok(book)
            }
            _ => Err(format!("a damaged book of {} bytes", bytes.len())),
        }
    }
}

/// Bytes an action takes in [`Book::to_packed`].
pub fn packed_action_bytes<G: Game>() -> usize {
    if G::NUM_ACTIONS <= 256 {
        1
    } else {
        2
    }
}

/// An agent that plays the book's move where it has one and asks `inner` elsewhere. `inner`
/// still sees every move, so its tree follows the game.
pub struct BookAgent<G: Game> {
    pub book: Book,
    pub inner: Box<dyn Agent<G>>,
    from_book: bool,
    think_on_book_moves: bool,
}

impl<G: Game> BookAgent<G> {
    pub fn new(book: Book, inner: Box<dyn Agent<G>>) -> Self {
        BookAgent { book, inner, from_book: false, think_on_book_moves: false }
    }

    /// Lets `inner` search its full time on book positions too and then plays the book's move:
    /// under a clock a turn (CodinGame) the time is lost if unused, and the tree the search
    /// grows is reused on the next turns, which a book move in no time would leave empty.
    pub fn thinking_on_book_moves(mut self) -> Self {
        self.think_on_book_moves = true;
        self
    }
}

impl<G: Game> Agent<G> for BookAgent<G> {
    fn choose(&mut self, state: &G, deadline: Option<Instant>) -> Action {
        if let Some(action) = self.book.lookup(state) {
            self.from_book = true;
            if self.think_on_book_moves && deadline.is_some() {
                self.inner.choose(state, deadline);
            }
            return action;
        }
        self.from_book = false;
        self.inner.choose(state, deadline)
    }
    fn observe(&mut self, action: Action) {
        self.inner.observe(action);
    }
    fn last_report(&self) -> String {
        if self.from_book {
            "book move".into()
        } else {
            self.inner.last_report()
        }
    }
    fn last_playouts(&self) -> Option<u64> {
        if self.from_book {
            Some(0)
        } else {
            self.inner.last_playouts()
        }
    }
    fn proved_win(&self) -> bool {
        !self.from_book && self.inner.proved_win()
    }
    fn pace(&self, state: &G) -> f64 {
        // A position the book answers costs no time: the clock's share goes to the others.
        if self.book.contains(state) {
            0.0
        } else {
            self.inner.pace(state)
        }
    }
    fn planned_game(&self) -> Option<(usize, u32)> {
        self.inner.planned_game()
    }
}

/// `main` of an exported bot with a book: [`crate::bot::exported_main`], the book
/// (`Book::to_packed`, as text) played before any search. Written out rather than through a shared
/// helper taking a closure: that helper cost Connect 4's export enough bytes to push its
/// weights from 10 to 9 bits under CodinGame's 100,000-byte limit.
pub fn exported_main_with_book<G: Contest>(weights_text: &str, book_text: &str, safety: Safety, time_scale: f64, playouts: Option<u64>) -> i32 {
    let result = text_to_bytes(weights_text)
        .and_then(|bytes| Mlp::from_bytes(&bytes, G::NAME))
        .map_err(|e| e.to_string())
        .and_then(|net| net_agent::<G>(net, playouts))
        .and_then(|agent| text_to_bytes(book_text).map_err(|e| e.to_string()).and_then(|b| Book::from_packed::<G>(&b)).map(|book| BookAgent::new(book, agent)))
        .map(|agent| if G::PLATFORM == Platform::CodinGame { agent.thinking_on_book_moves() } else { agent })
        .and_then(|mut agent| run_bot::<G>(&mut agent, safety, time_scale, false).map_err(|e| e.to_string()));
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect4::Connect4;
    use crate::rng::Rng;
    use crate::tools::RandomAgent;

    /// The mirror image of a position finds the mirror image of its move.
    #[test]
    fn one_entry_serves_the_symmetric_positions() {
        let mut state = Connect4::new_game(&mut Rng::new(0));
        state.apply(1);
        let mut book = Book::default();
        book.insert(&state, 2);
        assert_eq!(book.lookup(&state), Some(2));
        let mirror = state.symmetric(1);
        assert_ne!(mirror.hash(), state.hash());
        assert_eq!(book.lookup(&mirror), Some(Connect4::map_action(1, 2)));
        let mut elsewhere = state.clone();
        elsewhere.apply(4);
        assert_eq!(book.lookup(&elsewhere), None);
    }

    #[test]
    fn the_text_forms_round_trip_and_bad_text_is_refused() {
        let mut book = Book::default();
        let mut state = Connect4::new_game(&mut Rng::new(0));
        for column in [0, 3, 5] {
            book.insert(&state, column);
            state.apply(column);
        }
        assert_eq!(book.len(), 3);
        assert_eq!(Book::parse(&book.to_text("connect4", "test"), "connect4").unwrap(), book);
        // The packed form keeps 40 bits of each key, 6 bytes an entry, and still finds every move.
        let packed = book.to_packed::<Connect4>();
        assert_eq!(packed.len(), 1 + 3 * 6);
        let compact = Book::from_packed::<Connect4>(&packed).unwrap();
        let mut state = Connect4::new_game(&mut Rng::new(0));
        for column in [0, 3, 5] {
            assert_eq!(compact.lookup(&state), Some(column));
            state.apply(column);
        }
        assert_eq!(compact.lookup(&state), None);
        assert_eq!(Book::from_packed::<Connect4>(&compact.to_packed::<Connect4>()).unwrap(), compact);
        assert_eq!(Book::parse(&compact.to_text("connect4", ""), "connect4").unwrap(), compact);
        assert_eq!(compact.to_text("connect4", "").lines().nth(2).unwrap().split(' ').next().unwrap().len(), COMPACT_KEY_DIGITS);
        // A damaged packed book is an error: no entries, a part entry, a key of no digits.
        assert!(Book::from_packed::<Connect4>(&[]).unwrap_err().starts_with("a damaged book"));
        assert!(Book::from_packed::<Connect4>(&packed[..packed.len() - 1]).is_err());
        let mut no_digits = packed.clone();
        no_digits[0] = 0;
        assert!(Book::from_packed::<Connect4>(&no_digits).is_err());
        assert_eq!(Book::parse("game zuniq\n", "connect4").unwrap_err(), "a zuniq book, not connect4");
        assert!(Book::parse("12ab\n", "connect4").unwrap_err().starts_with("entry 1: expected a hex key"));
    }

    /// A game of more than 256 actions packs each in two bytes, and reads them back.
    #[test]
    fn wide_actions_pack_in_two_bytes() {
        use crate::blackhole::BlackHole;
        let state = BlackHole::new_game(&mut Rng::new(4));
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        let wide = legal.iter().copied().max().unwrap();
        assert!(wide > 255 && packed_action_bytes::<BlackHole>() == 2);
        let mut book = Book::default();
        book.insert(&state, wide);
        let packed = book.to_packed::<BlackHole>();
        assert_eq!(packed.len(), 1 + 7);
        assert_eq!(Book::from_packed::<BlackHole>(&packed).unwrap().lookup(&state), Some(wide));
    }

    /// The book answers at once where it knows the position and hands over elsewhere.
    #[test]
    fn the_agent_plays_the_book_then_its_inner_agent() {
        let start = Connect4::new_game(&mut Rng::new(0));
        let mut book = Book::default();
        book.insert(&start, 4);
        let mut agent = BookAgent::new(book, Box::new(RandomAgent::new(3)));
        assert_eq!(agent.choose(&start, None), 4);
        assert_eq!(agent.last_report(), "book move");
        assert_eq!(agent.pace(&start), 0.0);
        let mut next = start.clone();
        next.apply(4);
        agent.observe(4);
        let action = agent.choose(&next, None);
        assert!(next.is_legal(action));
        assert_ne!(agent.last_report(), "book move");
    }

    /// Counts the searches it is asked for.
    struct Counting(std::sync::Arc<std::sync::atomic::AtomicU32>);
    impl Agent<Connect4> for Counting {
        fn choose(&mut self, state: &Connect4, _deadline: Option<Instant>) -> Action {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut legal = ActionList::new();
            state.legal_actions(&mut legal);
            legal[legal.len() - 1]
        }
        fn observe(&mut self, _action: Action) {}
    }

    /// Thinking on book moves: the inner agent searches the turn's time (under a deadline) and
    /// the book's move is played all the same; without a deadline nothing is searched.
    #[test]
    fn a_thinking_book_agent_searches_and_plays_the_book() {
        let start = Connect4::new_game(&mut Rng::new(0));
        let mut book = Book::default();
        book.insert(&start, 4);
        let searches = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let count = |s: &std::sync::atomic::AtomicU32| s.load(std::sync::atomic::Ordering::Relaxed);
        let mut agent = BookAgent::new(book.clone(), Box::new(Counting(searches.clone()))).thinking_on_book_moves();
        assert_eq!(agent.choose(&start, Some(Instant::now() + std::time::Duration::from_millis(5))), 4);
        assert_eq!((count(&searches), agent.last_report().as_str()), (1, "book move"));
        assert_eq!(agent.choose(&start, None), 4);
        assert_eq!(count(&searches), 1);
        let mut plain = BookAgent::new(book, Box::new(Counting(searches.clone())));
        assert_eq!(plain.choose(&start, Some(Instant::now() + std::time::Duration::from_millis(5))), 4);
        assert_eq!(count(&searches), 1);
    }
}
