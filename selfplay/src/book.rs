//! Builds opening books (`cupzero book`): the game's own net bot searches each position of the
//! opening with a long budget, and its move goes into the book ([`bots::book`]). From each
//! position the tree goes on along that move (the bot's own line) and along the `replies`
//! moves the net's policy rates highest (what an opponent is likely to play), so a bot in
//! either seat finds its answers there. Symmetric positions are searched once.

use bots::book::{canonical_key, Book};
use bots::bot::{net_search_config, Contest};
use bots::game::{Action, ActionList};
use bots::net_eval::legal_softmax;
use bots::nn::{Mlp, Scratch};
use bots::rng::Rng;
use rayon::prelude::*;
use std::collections::HashSet;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct BookSettings {
    /// Positions up to this many actions from the start get a book move.
    pub plies: usize,
    /// Besides the book move, the net's top moves followed from every position.
    pub replies: usize,
}

/// The `k` actions the net's policy rates highest at `state`, best first.
pub fn top_actions<G: Contest>(net: &Mlp, state: &G, k: usize) -> Vec<Action> {
    let mut legal = ActionList::new();
    state.legal_actions(&mut legal);
    let mut features = vec![0.0; G::NUM_FEATURES];
    state.encode(&mut features);
    let mut logits = vec![0.0; G::NUM_ACTIONS];
    net.forward(&features, &mut Scratch::default(), &mut logits);
    let mut priors = vec![0.0; legal.len()];
    legal_softmax(&logits, &legal, &mut priors);
    let mut ranked: Vec<(f32, Action)> = priors.iter().copied().zip(legal.iter().copied()).collect();
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
}
