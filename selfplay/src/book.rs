//! Builds opening books (`cupzero book`): the game's own net bot searches each position of the
//! opening with a long budget, and its move goes into the book ([`bots::book`]). From each
//! position the tree goes on along that move (the bot's own line) and along the `replies`
//! moves the net's policy rates highest (what an opponent is likely to play), so a bot in
//! either seat finds its answers there. Symmetric positions are searched once.
//!
//! [`build_book_by_reach`] spends a fixed number of searches where games are most likely to go
//! instead: for each seat, the bot's own moves follow the book and the opponent's follow the
//! net's policy, and the positions the bot most likely meets are searched first.

use bots::book::{canonical_key, Book};
use bots::bot::{net_search_config, Contest};
use bots::game::{Action, ActionList};
use bots::net_eval::softmax_in_place;
use bots::infer::{QuantNet, Workspace};
use bots::nn::Mlp;
use bots::rng::Rng;
use rayon::prelude::*;
use std::collections::{BinaryHeap, HashSet};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct BookSettings {
    /// Positions up to this many actions from the start get a book move.
    pub plies: usize,
    /// Besides the book move, the net's top moves followed from every position.
    pub replies: usize,
}

/// The net's policy over the legal actions at `state`.
fn legal_priors<G: Contest>(net: &Mlp, state: &G) -> Vec<(Action, f32)> {
    let mut legal = ActionList::new();
    state.legal_actions(&mut legal);
    let mut features = vec![0.0; G::NUM_FEATURES];
    state.encode(&mut features);
    let mut priors = vec![0.0; legal.len()];
    QuantNet::new(net).evaluate(&mut Workspace::default(), 0, &features, &legal, &mut priors);
    softmax_in_place(&mut priors);
    legal.iter().copied().zip(priors).collect()
}

/// The `k` actions the net's policy rates highest at `state`, best first.
pub fn top_actions<G: Contest>(net: &Mlp, state: &G, k: usize) -> Vec<Action> {
    let mut ranked: Vec<(f32, Action)> = legal_priors(net, state).into_iter().map(|(a, p)| (p, a)).collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked.into_iter().take(k).map(|(_, a)| a).collect()
}

/// Whether the game starts from one position: a book is about that position's opening, so a
/// game with a random setup (Black Hole's brown stones) gets nothing from one.
pub fn fixed_start<G: Contest>() -> bool {
    (1..8).all(|seed| G::new_game(&mut Rng::new(seed)).hash() == G::new_game(&mut Rng::new(0)).hash())
}

/// The game's net bot at `playouts` a move: the default judge of book moves.
pub fn net_bot_move<G: Contest>(net: &Arc<Mlp>, playouts: u64) -> impl Fn(&G) -> Action + Sync + '_ {
    move |state: &G| G::bot_agent(Arc::clone(net), net_search_config::<G>(), Some(playouts)).choose(state, None)
}

/// Searches the opening of `G` breadth first, ply by ply, on the current rayon pool: `choose`
/// decides each book move (the net bot at a long budget, [`net_bot_move`], or another
/// engine), `net`'s policy names the replies to follow. `on_ply(ply, positions, book_size)`
/// reports each ply done.
pub fn build_book<G: Contest>(net: &Mlp, settings: &BookSettings, choose: &(dyn Fn(&G) -> Action + Sync), on_ply: &mut dyn FnMut(usize, usize, usize)) -> Book {
    let mut book = Book::default();
    let start = G::new_game(&mut Rng::new(0));
    let mut seen: HashSet<u64> = HashSet::from([canonical_key(&start).0]);
    let mut frontier = vec![start];
    for ply in 0..settings.plies {
        let searched: Vec<(Action, Vec<Action>)> = frontier
            .par_iter()
            .map(|state| {
                let best = choose(state);
                // Replies that lead to distinct positions: symmetric copies of one move would
                // add nothing (from Zuniq's empty board the net's top moves are such copies).
                let child_key = |action| {
                    let mut child = state.clone();
                    child.apply(action);
                    canonical_key(&child).0
                };
                let mut keys = vec![child_key(best)];
                let mut replies = Vec::new();
                for action in top_actions(net, state, usize::MAX) {
                    if replies.len() == settings.replies {
                        break;
                    }
                    let key = child_key(action);
                    if !keys.contains(&key) {
                        keys.push(key);
                        replies.push(action);
                    }
                }
                (best, replies)
            })
            .collect();
        let mut next = Vec::new();
        for (state, (best, replies)) in frontier.iter().zip(searched) {
            book.insert(state, best);
            for action in std::iter::once(best).chain(replies) {
                let mut child = state.clone();
                child.apply(action);
                if !child.is_terminal() && seen.insert(canonical_key(&child).0) {
                    next.push(child);
                }
            }
        }
        on_ply(ply, frontier.len(), book.len());
        frontier = next;
    }
    book
}

/// How [`build_book_by_reach`] spends its searches.
#[derive(Clone, Debug)]
pub struct ReachSettings {
    /// Book positions to search, split between the two seats.
    pub positions: usize,
    /// Positions at most this many actions from the start.
    pub plies: usize,
    /// In the first this many plies, every distinct opponent move is taken as equally likely
    /// (an unknown opponent's opening is not the net's), later the net's policy weighs them.
    pub uniform_plies: usize,
}

/// A position waiting in the best-first queue: its chance of arising, given the book's moves
/// for one seat and the net's policy for the other.
struct Reached<G> {
    chance: f64,
    ply: usize,
    state: G,
}

impl<G> PartialEq for Reached<G> {
    fn eq(&self, other: &Self) -> bool {
        self.chance == other.chance
    }
}
impl<G> Eq for Reached<G> {}
impl<G> PartialOrd for Reached<G> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<G> Ord for Reached<G> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.chance.total_cmp(&other.chance)
    }
}

/// The opponent's distinct moves at `state` (one per symmetric copy of the child) and the
/// chance of each: uniform, or the net's policy summed over the symmetric copies.
fn opponent_moves<G: Contest>(net: &Mlp, state: &G, uniform: bool) -> Vec<(Action, f64)> {
    let mut moves: Vec<(u64, Action, f64)> = Vec::new();
    for (action, prior) in legal_priors(net, state) {
        let mut child = state.clone();
        child.apply(action);
        let key = canonical_key(&child).0;
        match moves.iter_mut().find(|m| m.0 == key) {
            Some(m) => m.2 += prior as f64,
            None => moves.push((key, action, prior as f64)),
        }
    }
    let count = moves.len() as f64;
    moves.into_iter().map(|(_, action, prior)| (action, if uniform { 1.0 / count } else { prior })).collect()
}

/// An opening book of `settings.positions` searches, spent best first on the positions each
/// seat most likely meets: from the start, the seat's own moves are the book's (searched by
/// `choose`), the opponent's are weighed by the net's policy ([`ReachSettings::uniform_plies`]
/// first). The two seats' trees are built side by side on the current rayon pool.
/// `on_search(seat, searched, chance)` reports each search.
pub fn build_book_by_reach<G: Contest>(net: &Mlp, settings: &ReachSettings, choose: &(dyn Fn(&G) -> Action + Sync), on_search: &(dyn Fn(usize, usize, f64) + Sync)) -> Book {
    let seat_book = |seat: usize| {
        let mut book = Book::default();
        let start = G::new_game(&mut Rng::new(0));
        let mut seen: HashSet<u64> = HashSet::new();
        let mut queue = BinaryHeap::from([Reached { chance: 1.0, ply: 0, state: start }]);
        let budget = settings.positions / 2 + if seat == 0 { settings.positions % 2 } else { 0 };
        while book.len() < budget {
            let Some(Reached { chance, ply, state }) = queue.pop() else { break };
            // A position `plies` deep gets no book move, so nothing past it is reached.
            if state.is_terminal() || ply >= settings.plies || !seen.insert(canonical_key(&state).0) {
                continue;
            }
            if state.to_move() == seat {
                let action = choose(&state);
                book.insert(&state, action);
                on_search(seat, book.len(), chance);
                let mut child = state.clone();
                child.apply(action);
                queue.push(Reached { chance, ply: ply + 1, state: child });
            } else {
                for (action, p) in opponent_moves(net, &state, ply < settings.uniform_plies) {
                    let mut child = state.clone();
                    child.apply(action);
                    queue.push(Reached { chance: chance * p, ply: ply + 1, state: child });
                }
            }
        }
        book
    };
    let (first, second) = rayon::join(|| seat_book(0), || seat_book(1));
    let mut book = first;
    book.merge(second);
    book
}

#[cfg(test)]
mod tests {
    use super::*;
    use bots::connect4::Connect4;
    use bots::game::Game;

    /// A book two plies deep with one reply: the start, then the positions after the bot's
    /// move and after one other move (not its mirror image).
    #[test]
    fn a_small_book_holds_the_bots_moves_from_the_start() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../checkpoints/connect4/net.czw");
        let net = Arc::new(Mlp::from_bytes(&std::fs::read(path).unwrap(), "connect4").unwrap());
        let settings = BookSettings { plies: 2, replies: 1 };
        let mut plies = Vec::new();
        let book = build_book::<Connect4>(&net, &settings, &net_bot_move(&net, 50), &mut |ply, positions, size| plies.push((ply, positions, size)));
        assert_eq!(plies[0], (0, 1, 1));
        assert_eq!(plies[1].1, 2, "{plies:?}");
        assert_eq!(book.len(), 1 + plies[1].1);
        let start = Connect4::new_game(&mut Rng::new(0));
        let first = book.lookup(&start).expect("the start is in the book");
        assert!(start.is_legal(first));
        assert!(fixed_start::<Connect4>());
        assert!(!fixed_start::<bots::blackhole::BlackHole>());
    }

    /// Spent by reach: the first player's searches start at the empty board and follow its
    /// own move; the second player's go first to its answers to every first column (all
    /// equally likely in the first ply), mirror images searched once.
    #[test]
    fn a_book_by_reach_searches_the_likeliest_positions_first() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../checkpoints/connect4/net.czw");
        let net = Arc::new(Mlp::from_bytes(&std::fs::read(path).unwrap(), "connect4").unwrap());
        let settings = ReachSettings { positions: 12, plies: 10, uniform_plies: 1 };
        let chances = std::sync::Mutex::new(Vec::new());
        let book = build_book_by_reach::<Connect4>(&net, &settings, &net_bot_move(&net, 50), &|seat, searched, chance| chances.lock().unwrap().push((seat, searched, chance)));
        assert_eq!(book.len(), 12);
        let chances = chances.into_inner().unwrap();
        for seat in 0..2 {
            let seen: Vec<f64> = chances.iter().filter(|c| c.0 == seat).map(|c| c.2).collect();
            assert_eq!(seen.len(), 6);
            assert!(seen.windows(2).all(|w| w[0] >= w[1]), "seat {seat}: {seen:?}");
        }
        let start = Connect4::new_game(&mut Rng::new(0));
        let first = book.lookup(&start).expect("the start is in the book");
        let mut after_first = start.clone();
        after_first.apply(first);
        for column in 0..9 {
            let mut after = start.clone();
            after.apply(column);
            let answer = book.lookup(&after).unwrap_or_else(|| panic!("no answer to {column}"));
            assert!(after.is_legal(answer));
        }
        // The first player's second move, after the answer the net's policy rates likeliest.
        let reply = opponent_moves(&net, &after_first, false).into_iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0;
        let mut line = after_first.clone();
        line.apply(reply);
        assert!(book.lookup(&line).is_some(), "no move after {first} {reply}");
    }
}
