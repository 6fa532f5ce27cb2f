//! Head-to-head matches in-process: checkpoints, the classic bots, the UCT baseline and random
//! play, both seats,
//! a playout or time budget per move, Elo with a 95% interval, optional SPRT early stop.

pub use crate::sprt::{Decision, Sprt};
use crate::parallel::run_games;
use crate::stats::MatchStats;
use bots::agent::{Agent, SearchAgent};
use bots::book::{Book, BookAgent};
use bots::tools::{RandomAgent, RolloutEvaluator};
use bots::bot::net_search_config;
use bots::classic::Classic;
use bots::mcts::{MctsConfig, Selection};
use bots::nn::Mlp;
use bots::rng::Rng;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Who plays.
#[derive(Clone, Debug)]
pub enum PlayerSpec {
    Random,
    /// UCT1 with random rollouts.
    Uct,
    /// The game's net-free classic bot (`bots::classic`); the caller checks that it has one.
    Classic,
    /// A named player of the game's field (`Classic::field`); the caller checks the name.
    Field(String),
    /// PUCT guided by a net, with the exported bot's search settings; `c_puct` replaces the
    /// game's exploration constant and `kept_candidates` its actions listed a node (to tune
    /// them before changing the bot).
    Net { label: String, net: Arc<Mlp>, c_puct: Option<f32>, kept_candidates: Option<usize> },
    /// Another player that plays an opening book's moves where it has one.
    Booked { book: Arc<Book>, player: Box<PlayerSpec> },
}

impl PlayerSpec {
    pub fn label(&self) -> String {
        match self {
            PlayerSpec::Random => "random".into(),
            PlayerSpec::Uct => "uct".into(),
            PlayerSpec::Classic => "classic".into(),
            PlayerSpec::Field(name) => name.clone(),
            PlayerSpec::Net { label, .. } => label.clone(),
            PlayerSpec::Booked { book, player } => format!("{} with a book of {} positions", player.label(), book.len()),
        }
    }

    pub fn agent<G: Classic>(&self, seed: u64, playouts: Option<u64>) -> Box<dyn Agent<G>> {
        let start = G::new_game(&mut Rng::new(0));
        match self {
            PlayerSpec::Random => Box::new(RandomAgent::new(seed)),
            PlayerSpec::Uct => Box::new(SearchAgent::new(start, MctsConfig::uct(), RolloutEvaluator::new(seed), playouts)),
            PlayerSpec::Classic => G::classic_agent(seed, playouts).unwrap_or_else(|| panic!("{} has no classic bot", G::NAME)),
            PlayerSpec::Field(name) => (G::field_player(name).unwrap_or_else(|| panic!("{} has no player {name}", G::NAME)).agent)(seed, playouts),
            PlayerSpec::Net { net, c_puct, kept_candidates, .. } => {
                let mut config = net_search_config::<G>();
                config.kept_candidates = kept_candidates.unwrap_or(config.kept_candidates);
                if let (Some(c), Selection::Puct { c: game_c, .. }) = (c_puct, &mut config.selection) {
                    *game_c = *c;
                }
                G::bot_agent(Arc::clone(net), config, playouts)
            }
            PlayerSpec::Booked { book, player } => Box::new(BookAgent::new(Book::clone(book), player.agent::<G>(seed, playouts))),
        }
    }
}

/// How long a player thinks per move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MoveLimit {
    Playouts(u64),
    Time(Duration),
}

#[derive(Clone, Debug)]
pub struct ArenaConfig {
    pub games: usize,
    pub parallel: usize,
    /// Budgets of A and B.
    pub limits: [MoveLimit; 2],
    pub seed: u64,
    pub sprt: Option<Sprt>,
    /// Actions played uniformly at random before the players take over, the same for both
    /// games of a pair (games 2k and 2k + 1, A in either seat): deterministic players
    /// otherwise repeat the same two games.
    pub random_opening: usize,
}

#[derive(Clone, Debug, Default)]
pub struct ArenaSummary {
    pub stats: MatchStats,
    /// A's results as seat 0 and as seat 1.
    pub by_seat: [MatchStats; 2],
    pub total_points: [f64; 2],
    /// Mean playouts per move of A and B (searching agents only).
    pub playouts_per_move: [f64; 2],
    pub sprt: Option<Decision>,
    moves: [u64; 2],
    playouts: [u64; 2],
}

impl ArenaSummary {
    pub fn mean_points(&self) -> [f64; 2] {
        let n = self.stats.games().max(1) as f64;
        [self.total_points[0] / n, self.total_points[1] / n]
    }
}

/// One finished arena game, from A's side.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ArenaGame {
    /// The game's number and setup seed: the same in any match with the same `--seed`.
    pub game: usize,
    pub seed: u64,
    pub a_seat: usize,
    /// Points of A and B.
    pub points: [f32; 2],
    pub moves: [u64; 2],
    pub playouts: [u64; 2],
    /// Every action in the game's notation (the random opening's too).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
}

fn play_game<G: Classic>(players: &[PlayerSpec; 2], config: &ArenaConfig, game: usize) -> ArenaGame {
    let opening = RandomOpening { plies: config.random_opening, seed: config.seed ^ (game as u64 / 2).wrapping_mul(0x9E37_79B9_7F4A_7C15) };
    play_seeded::<G>(players, &config.limits, config.seed.wrapping_add(game as u64), game % 2, opening, game)
}

/// Actions played uniformly at random before the players take over.
#[derive(Clone, Copy, Debug)]
pub struct RandomOpening {
    pub plies: usize,
    pub seed: u64,
}

/// One game in-process: `seed` sets up the game and seeds the players, A sits in `a_seat`,
/// `opening` plays the first plies; `game` only labels the result.
pub fn play_seeded<G: Classic>(players: &[PlayerSpec; 2], limits: &[MoveLimit; 2], seed: u64, a_seat: usize, opening: RandomOpening, game: usize) -> ArenaGame {
    // seats[s] = index (0 = A, 1 = B) of the player in seat s
    let seats = if a_seat == 0 { [0, 1] } else { [1, 0] };
    let playouts_of = |p: usize| match limits[p] {
        MoveLimit::Playouts(n) => Some(n),
        MoveLimit::Time(_) => None,
    };
    let mut agents: Vec<Box<dyn Agent<G>>> =
        seats.iter().map(|&p| players[p].agent::<G>(seed.wrapping_mul(31).wrapping_add(p as u64), playouts_of(p))).collect();
    let mut state = G::new_game(&mut Rng::new(seed));
    let mut opening_rng = Rng::new(opening.seed);
    let mut legal = bots::game::ActionList::new();
    let mut actions = Vec::new();
    for _ in 0..opening.plies {
        if state.is_terminal() {
            break;
        }
        state.legal_actions(&mut legal);
        let action = legal[opening_rng.below(legal.len())];
        for agent in agents.iter_mut() {
            agent.observe(action);
        }
        actions.push(G::format_action(action));
        state.apply(action);
    }
    let (mut moves, mut playouts) = ([0u64; 2], [0u64; 2]);
    while !state.is_terminal() {
        let seat = state.to_move();
        let player = seats[seat];
        let deadline = match limits[player] {
            MoveLimit::Time(d) => Some(Instant::now() + d),
            MoveLimit::Playouts(_) => None,
        };
        let action = agents[seat].choose(&state, deadline);
        moves[player] += 1;
        playouts[player] += agents[seat].last_playouts().unwrap_or(0);
        for agent in agents.iter_mut() {
            agent.observe(action);
        }
        actions.push(G::format_action(action));
        state.apply(action);
    }
    let scores = state.scores();
    ArenaGame { game, seed, a_seat, points: [scores[a_seat], scores[1 - a_seat]], moves, playouts, actions }
}

/// Plays the match; `on_game` sees each game and the running summary.
pub fn run_arena<G: Classic>(
    players: &[PlayerSpec; 2],
    config: &ArenaConfig,
    on_game: &mut dyn FnMut(&ArenaGame, &ArenaSummary),
) -> ArenaSummary {
    let mut summary = ArenaSummary::default();
    run_games(
        config.games,
        config.parallel,
        |game| play_game::<G>(players, config, game),
        |g| {
            let [a, b] = g.points;
            let score = if a > b { 1.0 } else if a < b { 0.0 } else { 0.5 };
            summary.stats.add(score);
            summary.by_seat[g.a_seat].add(score);
            for p in 0..2 {
                summary.total_points[p] += g.points[p] as f64;
                summary.moves[p] += g.moves[p];
                summary.playouts[p] += g.playouts[p];
                summary.playouts_per_move[p] = summary.playouts[p] as f64 / summary.moves[p].max(1) as f64;
            }
            on_game(&g, &summary);
            if summary.sprt.is_none() {
                summary.sprt = config.sprt.and_then(|s| s.decide_games(&summary.stats));
            }
            summary.sprt.is_some()
        },
    );
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use bots::connect4::Connect4;

    #[test]
    fn uct_beats_random_in_process() {
        let config = ArenaConfig { games: 10, parallel: 2, limits: [MoveLimit::Playouts(300), MoveLimit::Playouts(1)], seed: 1, sprt: None, random_opening: 0 };
        let s = run_arena::<Connect4>(&[PlayerSpec::Uct, PlayerSpec::Random], &config, &mut |_, _| {});
        assert_eq!(s.stats.games(), 10);
        assert!(s.stats.wins >= 9, "{:?}", s.stats);
        assert_eq!(s.by_seat[0].games(), 5);
        // 300 playouts a move, fewer once the search has proven the result.
        assert!(s.playouts_per_move[0] > 100.0 && s.playouts_per_move[0] <= 300.0, "{:?}", s.playouts_per_move);
    }

    #[test]
    fn sprt_stops_a_lopsided_match_early() {
        let sprt = Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 };
        let config = ArenaConfig { games: 400, parallel: 2, limits: [MoveLimit::Playouts(200), MoveLimit::Playouts(1)], seed: 3, sprt: Some(sprt), random_opening: 0 };
        let s = run_arena::<Connect4>(&[PlayerSpec::Uct, PlayerSpec::Random], &config, &mut |_, _| {});
        assert_eq!(s.sprt, Some(Decision::H1));
        assert!(s.stats.games() < 100, "{} games", s.stats.games());
    }

    /// Random openings make deterministic players play different games.
    #[test]
    fn random_openings_vary_the_games_and_come_in_pairs() {
        let mut games = Vec::new();
        let config = ArenaConfig { games: 8, parallel: 2, limits: [MoveLimit::Playouts(2000); 2], seed: 4, sprt: None, random_opening: 3 };
        run_arena::<Connect4>(&[PlayerSpec::Classic, PlayerSpec::Classic], &config, &mut |g, _| games.push(g.clone()));
        assert_eq!(games.len(), 8);
        let plain = ArenaConfig { random_opening: 0, ..config.clone() };
        let mut lengths = std::collections::HashSet::new();
        run_arena::<Connect4>(&[PlayerSpec::Classic, PlayerSpec::Classic], &plain, &mut |g, _| {
            lengths.insert((g.a_seat, g.moves));
        });
        assert_eq!(lengths.len(), 2, "without an opening, a deterministic bot repeats one game per seat");
        let varied: std::collections::HashSet<_> = games.iter().map(|g| g.moves).collect();
        assert!(varied.len() > 2, "{varied:?}");
    }

    #[test]
    fn sprt_llr_has_the_right_sign() {
        let sprt = Sprt { elo0: 0.0, elo1: 20.0, alpha: 0.05, beta: 0.05 };
        assert!(sprt.llr_games(&MatchStats { wins: 60, draws: 10, losses: 30 }) > 0.0);
        assert!(sprt.llr_games(&MatchStats { wins: 30, draws: 10, losses: 60 }) < 0.0);
        assert_eq!(sprt.decide_games(&MatchStats { wins: 3, draws: 0, losses: 0 }), None, "3-0 proves nothing yet");
        assert_eq!(sprt.decide_games(&MatchStats { wins: 40, draws: 0, losses: 0 }), Some(Decision::H1));
        let wide = Sprt { elo1: 100.0, ..sprt };
        assert_eq!(wide.decide_games(&MatchStats { wins: 50, draws: 0, losses: 50 }), Some(Decision::H0));
    }
}
