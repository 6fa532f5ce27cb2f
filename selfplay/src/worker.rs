//! Self-play: many games at once per thread, their leaves evaluated by the same evaluator and
//! integer forward pass submissions run (`bots::net_eval`, `bots::infer`), Gumbel sequential
//! halving at the root, and playout-cap randomisation (only full searches become policy
//! targets).
//!
//! A share of the games can put another player across the net being trained (the learner):
//! an earlier net of the run (a small league), the game's classic bot or a UCT bot with random
//! playouts. Self-play alone leaves blind spots that only another player finds. Another share
//! can be teacher games: the classic bot plays both seats and its searches become the targets
//! (expert iteration, Anthony, Tian and Barber 2017: a stronger searcher's root visits as the
//! policy target).

use crate::arena::PlayerSpec;
use crate::gumbel::{improved_policy, RootSchedule};
use bots::agent::Agent;
use bots::classic::{RootStatistics, Teacher};
use bots::game::{Action, ActionList, Game, Player, NUM_PLAYERS};
use bots::infer::QuantNet;
use bots::mcts::{Evaluator, Mcts, MctsConfig, Selection};
use bots::net_eval::NetEvaluator;
use bots::nn::Mlp;
use bots::rng::Rng;
use bots::training::Training;
pub use crate::config::SelfPlaySettings;
pub use crate::records::{GameRecord, SearchTarget};
use bots::solver::ExactPlay;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An earlier net of the run, as a self-play opponent.
#[derive(Clone, Debug)]
pub struct LeagueNet {
    pub label: String,
    pub net: Arc<Mlp>,
}

/// Who sits across the learner in one self-play game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// The learner in both seats.
    Itself,
    /// `league[k]`, in seat `seat`.
    Earlier { k: usize, seat: Player },
    /// The classic bot, in seat `seat`.
    Classic { seat: Player },
    /// The classic bot in both seats, as the teacher.
    Teacher,
    /// A UCT bot with random playouts, in seat `seat`.
    Uct { seat: Player },
}

/// The `opponent` of a game against the UCT bot.
pub const UCT: &str = "uct";
/// The `opponent` of a game against the classic bot.
pub const CLASSIC: &str = "classic";

/// The `opponent` of a teacher game's record.
pub const TEACHER: &str = "teacher";

impl Opponent {
    /// The opponent of the game with setup seed `seed`: classic with probability
    /// `classic_share`, the teacher with `teacher_share`, the UCT bot with `uct_share`, an
    /// earlier net with `league_share` (when the league has any), in a random seat; drawn from
    /// the seed alone, so a game's opponent repeats.
    pub fn draw(seed: u64, settings: &SelfPlaySettings, league_len: usize) -> Opponent {
        let mut rng = Rng::new(seed ^ 0x6c65_6167_7565);
        let u = rng.unit_f32();
        let seat = rng.below(NUM_PLAYERS);
        if u < settings.classic_share {
            Opponent::Classic { seat }
        } else if u < settings.classic_share + settings.teacher_share {
            Opponent::Teacher
        } else if u < settings.classic_share + settings.teacher_share + settings.uct_share {
            Opponent::Uct { seat }
        } else if u < settings.classic_share + settings.teacher_share + settings.uct_share + settings.league_share && league_len > 0 {
            Opponent::Earlier { k: rng.below(league_len), seat }
        } else {
            Opponent::Itself
        }
    }
}

/// Node budget of one self-play solve; a position that needs more is searched as usual.
const SOLVE_NODES: u64 = 200_000;

#[derive(Clone, Copy, Debug, Default)]
pub struct SelfPlayStats {
    pub games: u64,
    pub actions: u64,
    pub samples: u64,
    pub net_evals: u64,
    pub elapsed: Duration,
}

/// The opponent of a running game, ready to play.
enum Across<G> {
    Itself,
    Net { seat: Player, label: String, evaluator: Box<NetEvaluator> },
    /// A net-free bot (classic or UCT), named by `name` in the record.
    Bot { seat: Player, name: &'static str, agent: Box<dyn Agent<G>> },
    Teacher { agent: Box<dyn Teacher<G>> },
}

struct Slot<G: Training> {
    seed: u64,
    across: Across<G>,
    /// The learner's evaluator: its accumulators follow this game's positions.
    learner: NetEvaluator,
    state: G,
    mcts: Mcts<G>,
    actions: Vec<Action>,
    targets: Vec<Option<SearchTarget>>,
    /// The search of the current move, once its root is expanded.
    schedule: Option<RootSchedule>,
    full: bool,
    playouts: u32,
    /// The net's value of the root for its mover (needed by the completed-Q target).
    root_net_value: f32,
    /// Teacher samples whose value target is the game's result alone (a teacher without a
    /// value on the game's scale): filled in when the game ends.
    result_valued: Vec<usize>,
}

enum Step {
    NeedsEval,
    GameOver(GameRecord),
}

impl<G: Training> Slot<G> {
    fn against(seed: u64, config: &MctsConfig, across: Across<G>, learner: NetEvaluator) -> Self {
        let state = G::new_game(&mut Rng::new(seed));
        Slot {
            seed,
            across,
            learner,
            mcts: Mcts::new(state.clone(), config.clone()),
            state,
            actions: Vec::new(),
            targets: Vec::new(),
            schedule: None,
            full: false,
            playouts: 0,
            root_net_value: 0.0,
            result_valued: Vec::new(),
        }
    }

    /// Runs the search until a leaf needs the net, or the game ends. With a `solver`, small
    /// enough positions are played by it instead (see [`SelfPlaySettings::solve_legal`]).
    fn step(&mut self, settings: &SelfPlaySettings, rng: &mut Rng, mut solver: Option<&mut (dyn ExactPlay<G> + 'static)>) -> Step {
        loop {
            if self.state.is_terminal() {
                let (opponent, learner_seat) = match &self.across {
                    Across::Itself => (None, None),
                    Across::Net { seat, label, .. } => (Some(label.clone()), Some(1 - seat)),
                    Across::Bot { seat, name, .. } => (Some(name.to_string()), Some(1 - seat)),
                    Across::Teacher { .. } => (Some(TEACHER.to_string()), None),
                };
                let utilities = self.state.utilities();
                for &i in &self.result_valued {
                    if let Some(target) = self.targets[i].as_mut() {
                        target.root_value = utilities;
                    }
                }
                return Step::GameOver(GameRecord {
                    seed: self.seed,
                    actions: std::mem::take(&mut self.actions),
                    targets: std::mem::take(&mut self.targets),
                    utilities,
                    scores: self.state.scores(),
                    opponent,
                    learner_seat,
                    source: None,
                });
            }
            if !self.mcts.root_expanded() {
                if let Some(action) = solver.as_deref_mut().and_then(|solver| self.solved_move(solver, settings.solve_legal)) {
                    // Perfect play from here: the game's result is the position's exact value.
                    let target = settings.solved_samples.then(|| SearchTarget { policy: Vec::new(), root_value: [0.0; NUM_PLAYERS] });
                    if target.is_some() {
                        self.result_valued.push(self.actions.len());
                    }
                    self.play(action, target);
                    continue;
                }
                if let Across::Bot { seat, agent, .. } = &mut self.across {
                    if self.state.to_move() == *seat {
                        let action = agent.choose(&self.state, None);
                        self.play(action, None);
                        continue;
                    }
                }
                if let Across::Teacher { agent } = &mut self.across {
                    let chosen = agent.choose(&self.state, None);
                    let (action, target) = teacher_move(&self.state, chosen, agent.root_statistics(), self.actions.len() < settings.opening_sample_moves, rng);
                    if target.as_ref().is_some_and(|(_, valued)| !valued) {
                        self.result_valued.push(self.actions.len());
                    }
                    self.play(action, target.map(|(t, _)| t));
                    continue;
                }
                // A new move: the first playout evaluates the root itself.
                let needs_eval = self.mcts.select_leaf().is_some();
                debug_assert!(needs_eval, "a fresh root is neither terminal nor proven");
                return Step::NeedsEval;
            }
            let mover = self.state.to_move();
            let children = self.mcts.root_children();
            if self.schedule.is_none() {
                if children.len() == 1 {
                    self.play(children[0].action, None);
                    continue;
                }
                self.full = rng.unit_f32() < settings.full_search_prob;
                let budget = if self.full { settings.full_playouts } else { settings.fast_playouts };
                self.schedule = Some(RootSchedule::new(&children, budget, settings.gumbel, rng));
                self.playouts = 0;
            }
            let schedule = self.schedule.as_mut().unwrap();
            match schedule.next(&children, mover, self.playouts) {
                Some(k) => {
                    self.playouts += 1;
                    if self.mcts.select_leaf_via(Some(k)).is_some() {
                        return Step::NeedsEval;
                    }
                }
                None => {
                    let policy = improved_policy(&children, mover, self.root_net_value, &settings.gumbel);
                    let chosen = if self.actions.len() < settings.opening_sample_moves {
                        children[sample(&policy, rng)].action
                    } else {
                        children[schedule.chosen(&children, mover)].action
                    };
                    let target = (self.full && self.samples(mover, settings)).then(|| SearchTarget {
                        policy: children.iter().zip(policy).map(|(c, p)| (c.action, p)).collect(),
                        root_value: self.mcts.root_value(),
                    });
                    self.play(chosen, target);
                }
            }
        }
    }

    /// The solver's move when at most `max_legal` actions are legal and it settles the
    /// position within its budget: the winning move, or any move of a lost position.
    fn solved_move(&self, solver: &mut dyn ExactPlay<G>, max_legal: usize) -> Option<Action> {
        let mut legal = ActionList::new();
        self.state.legal_actions(&mut legal);
        if legal.len() > max_legal {
            return None;
        }
        solver.exact_action(&self.state, SOLVE_NODES, None)
    }

    /// Whether `mover`'s searched moves become samples in this game.
    fn samples(&self, mover: Player, settings: &SelfPlaySettings) -> bool {
        match &self.across {
            Across::Itself => true,
            Across::Net { seat, .. } => mover != *seat || settings.opponent_samples,
            Across::Bot { seat, .. } => mover != *seat,
            Across::Teacher { .. } => false,
        }
    }

    /// Evaluates the pending leaf with the net that searches the current move (an earlier one
    /// in its seat, else the learner) and completes the playout.
    fn evaluate_leaf(&mut self, priors: &mut Vec<f32>) {
        let (leaf, legal, is_root) = self.mcts.pending_leaf().expect("a pending leaf");
        let evaluator = match &mut self.across {
            Across::Net { seat, evaluator, .. } if self.state.to_move() == *seat => &mut **evaluator,
            _ => &mut self.learner,
        };
        priors.clear();
        priors.resize(legal.len(), 0.0);
        let values = evaluator.evaluate(leaf, legal, priors);
        if is_root {
            self.root_net_value = values[leaf.to_move()];
        }
        self.mcts.expand_leaf(priors, values);
    }

    fn play(&mut self, action: Action, target: Option<SearchTarget>) {
        match &mut self.across {
            Across::Bot { agent, .. } => agent.observe(action),
            Across::Teacher { agent } => agent.observe(action),
            _ => {}
        }
        self.actions.push(action);
        self.targets.push(target);
        self.state.apply(action);
        // A fresh tree per move: the Gumbel schedule and the completed-Q target both assume
        // the root's statistics come from this move's search.
        self.mcts.reset(self.state.clone());
        self.schedule = None;
    }
}

/// A teacher's move and its sample. The policy target is the teacher's root visits, or its
/// chosen move alone when it keeps none (an exact solve, an alpha-beta search); the value
/// target is its root value where that is on the game's scale (the flag says so), else the
/// game's result, filled in at the end. In the game's opening (`sample_opening`) the move is
/// drawn from the visits, so teacher games differ. A forced move is no sample.
fn teacher_move<G: Game>(state: &G, chosen: Action, root: Option<RootStatistics>, sample_opening: bool, rng: &mut Rng) -> (Action, Option<(SearchTarget, bool)>) {
    let mut legal = ActionList::new();
    state.legal_actions(&mut legal);
    if legal.len() <= 1 {
        return (chosen, None);
    }
    let root = root.filter(|r| !r.policy.is_empty() && r.policy.iter().all(|&(a, _)| legal.contains(a)));
    let (policy, value) = match root {
        Some(r) => (r.policy, r.value),
        None => (vec![(chosen, 1.0)], None),
    };
    let action = if sample_opening { policy[sample(&policy.iter().map(|p| p.1).collect::<Vec<_>>(), rng)].0 } else { chosen };
    let target = SearchTarget { policy, root_value: value.unwrap_or([0.0; NUM_PLAYERS]) };
    (action, Some((target, value.is_some())))
}

/// An index drawn with probability `weights[i]` (the weights sum to 1).
pub(crate) fn sample(weights: &[f32], rng: &mut Rng) -> usize {
    let mut u = rng.unit_f32();
    for (i, &w) in weights.iter().enumerate() {
        if u < w {
            return i;
        }
        u -= w;
    }
    weights.len() - 1
}

/// Plays `games` games with `net`, spread over the current rayon pool, some of them against
/// `league` nets or the classic bot as `settings` say. `on_game` is called after every
/// finished game (for progress display).
pub fn generate<G: Training>(
    net: &Arc<Mlp>,
    league: &[LeagueNet],
    settings: &SelfPlaySettings,
    games: usize,
    seed: u64,
    on_game: &(dyn Fn() + Sync),
) -> (Vec<GameRecord>, SelfPlayStats) {
    let start = Instant::now();
    let threads = rayon::current_num_threads().max(1).min(games.max(1));
    let evals = AtomicU64::new(0);
    // Each net in integers once, shared by every game's evaluator.
    let net = Arc::new(QuantNet::new(net));
    let league: Vec<(String, Arc<QuantNet>)> = league.iter().map(|l| (l.label.clone(), Arc::new(QuantNet::new(&l.net)))).collect();
    let shards: Vec<Vec<GameRecord>> = (0..threads)
        .into_par_iter()
        .map(|t| {
            let quota = games / threads + (t < games % threads) as usize;
            let seeds: Vec<u64> = (0..quota).map(|i| seed.wrapping_mul(1_000_003).wrapping_add((i * threads + t) as u64)).collect();
            run_shard::<G>(&net, &league, settings, &seeds, seed ^ (t as u64) << 32, &evals, on_game)
        })
        .collect();
    let records: Vec<GameRecord> = shards.into_iter().flatten().collect();
    let stats = SelfPlayStats {
        games: records.len() as u64,
        actions: records.iter().map(|r| r.actions.len() as u64).sum(),
        samples: records.iter().map(|r| r.targets.iter().filter(|t| t.is_some()).count() as u64).sum(),
        net_evals: evals.load(Ordering::Relaxed),
        elapsed: start.elapsed(),
    };
    (records, stats)
}

fn run_shard<G: Training>(
    net: &Arc<QuantNet>,
    league: &[(String, Arc<QuantNet>)],
    settings: &SelfPlaySettings,
    seeds: &[u64],
    rng_seed: u64,
    evals: &AtomicU64,
    on_game: &(dyn Fn() + Sync),
) -> Vec<GameRecord> {
    let config = MctsConfig {
        selection: Selection::Puct { c: settings.c_puct, fpu_reduction: settings.fpu_reduction },
        max_nodes: 1 << 20,
        ..MctsConfig::puct()
    };
    let mut rng = Rng::new(rng_seed);
    let mut next_seed = seeds.iter();
    let new_slot = |seed: u64| {
        let across = match Opponent::draw(seed, settings, league.len()) {
            Opponent::Itself => Across::Itself,
            Opponent::Earlier { k, seat } => {
                Across::Net { seat, label: league[k].0.clone(), evaluator: Box::new(NetEvaluator::quantised(Arc::clone(&league[k].1), 1)) }
            }
            Opponent::Classic { seat } => match G::classic_agent(seed, Some(settings.classic_playouts)) {
                Some(agent) => Across::Bot { seat, name: CLASSIC, agent },
                None => Across::Itself,
            },
            Opponent::Uct { seat } => Across::Bot { seat, name: UCT, agent: PlayerSpec::Uct.agent::<G>(seed, Some(settings.uct_playouts)) },
            Opponent::Teacher => match G::classic_teacher(seed, Some(settings.teacher_playouts)) {
                Some(agent) => Across::Teacher { agent },
                None => Across::Itself,
            },
        };
        Slot::against(seed, &config, across, NetEvaluator::quantised(Arc::clone(net), 1))
    };
    let mut slots: Vec<Option<Slot<G>>> = (0..settings.games_in_flight.max(1)).map(|_| next_seed.next().map(|&s| new_slot(s))).collect();
    let mut records = Vec::with_capacity(seeds.len());
    let mut priors: Vec<f32> = Vec::new();
    let mut evaluated = 0u64;
    // One table per thread, shared by its games: positions keep their value across games.
    let mut solver = if settings.solve_legal > 0 { G::exact_player() } else { None };
    // The games take turns, one leaf each: a game waiting on the classic bot or the solver
    // holds up no other.
    loop {
        let mut running = false;
        for slot_entry in slots.iter_mut() {
            while let Some(slot) = slot_entry {
                match slot.step(settings, &mut rng, solver.as_deref_mut()) {
                    Step::NeedsEval => {
                        slot.evaluate_leaf(&mut priors);
                        evaluated += 1;
                        running = true;
                        break;
                    }
                    Step::GameOver(record) => {
                        records.push(record);
                        on_game();
                        *slot_entry = next_seed.next().map(|&s| new_slot(s));
                    }
                }
            }
        }
        if !running {
            break;
        }
    }
    evals.fetch_add(evaluated, Ordering::Relaxed);
    records
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gumbel::GumbelParams;
    use bots::connect4::Connect4;
    use bots::encode::Encode;
    use bots::game::Game;
    use bots::nn::Dense;

    pub fn zero_net() -> Arc<Mlp> {
        zero_net_for::<Connect4>(8)
    }

    /// A net of `G`'s shape with one hidden layer `width` wide, all weights zero.
    fn zero_net_for<G: Encode>(width: usize) -> Arc<Mlp> {
        let (f, a) = (G::NUM_FEATURES, G::NUM_ACTIONS);
        Arc::new(Mlp { game: G::NAME.into(), hidden: vec![Dense::zeros(f, width)], policy: Dense::zeros(width, a), value: Dense::zeros(width, 2) })
    }

    fn settings() -> SelfPlaySettings {
        SelfPlaySettings {
            games_in_flight: 4,
            full_playouts: 16,
            fast_playouts: 4,
            full_search_prob: 0.5,
            opening_sample_moves: 2,
            gumbel: GumbelParams { considered: 4, ..Default::default() },
            c_puct: 1.5,
            fpu_reduction: 0.2,
            solve_legal: 0,
            solved_samples: false,
            league_share: 0.0,
            classic_share: 0.0,
            classic_playouts: 50,
            opponent_samples: false,
            teacher_share: 0.0,
            teacher_playouts: 50,
            uct_share: 0.0,
            uct_playouts: 50,
        }
    }

    /// Opponents come in the configured shares, in both seats, and only from a league that
    /// has nets.
    #[test]
    fn opponents_are_drawn_in_the_configured_shares() {
        let s = SelfPlaySettings { league_share: 0.3, classic_share: 0.2, teacher_share: 0.1, uct_share: 0.15, ..settings() };
        let draws: Vec<Opponent> = (0..20_000).map(|seed| Opponent::draw(seed, &s, 4)).collect();
        let share = |f: &dyn Fn(&Opponent) -> bool| draws.iter().filter(|o| f(o)).count() as f64 / draws.len() as f64;
        assert!((share(&|o| matches!(o, Opponent::Classic { .. })) - 0.2).abs() < 0.015);
        assert!((share(&|o| matches!(o, Opponent::Earlier { .. })) - 0.3).abs() < 0.015);
        assert!((share(&|o| matches!(o, Opponent::Teacher)) - 0.1).abs() < 0.015);
        assert!((share(&|o| matches!(o, Opponent::Uct { .. })) - 0.15).abs() < 0.015);
        for k in 0..4 {
            let of_k = share(&|o| matches!(o, Opponent::Earlier { k: j, .. } if *j == k));
            assert!((of_k - 0.075).abs() < 0.01, "league net {k}: {of_k}");
        }
        assert!((share(&|o| matches!(o, Opponent::Classic { seat: 0 } | Opponent::Uct { seat: 0 } | Opponent::Earlier { seat: 0, .. })) - 0.325).abs() < 0.015);
        assert!((0..1000).all(|seed| !matches!(Opponent::draw(seed, &s, 0), Opponent::Earlier { .. })), "an empty league plays itself");
        assert_eq!(Opponent::draw(5, &s, 4), Opponent::draw(5, &s, 4), "a game's opponent repeats");
    }

    /// League, classic and UCT games: each record names the opponent drawn for its seed, the
    /// learner's seat, and has samples only at the learner's moves.
    #[test]
    fn league_classic_and_uct_games_sample_the_learner_only() {
        let s = SelfPlaySettings { league_share: 0.3, classic_share: 0.3, uct_share: 0.2, full_search_prob: 1.0, ..settings() };
        let league = [LeagueNet { label: "iter 5".into(), net: zero_net() }, LeagueNet { label: "iter 10".into(), net: zero_net() }];
        let (records, _) = generate::<Connect4>(&zero_net(), &league, &s, 24, 3, &|| {});
        let mut seen = [0; 4];
        for r in &records {
            let expected = Opponent::draw(r.seed, &s, league.len());
            let (label, seat) = match expected {
                Opponent::Itself => (None, None),
                Opponent::Earlier { k, seat } => (Some(league[k].label.clone()), Some(1 - seat)),
                Opponent::Classic { seat } => (Some(CLASSIC.to_string()), Some(1 - seat)),
                Opponent::Uct { seat } => (Some(UCT.to_string()), Some(1 - seat)),
                Opponent::Teacher => unreachable!("no teacher games configured"),
            };
            assert_eq!((&r.opponent, r.learner_seat), (&label, seat), "seed {}", r.seed);
            seen[match expected { Opponent::Itself => 0, Opponent::Earlier { .. } => 1, Opponent::Classic { .. } => 2, Opponent::Uct { .. } => 3, Opponent::Teacher => unreachable!() }] += 1;
            let mut state = Connect4::new();
            for (&a, t) in r.actions.iter().zip(&r.targets) {
                let learner_moves = seat.is_none_or(|l| state.to_move() == l);
                assert!(t.is_none() || learner_moves, "a sample at the opponent's move, seed {}", r.seed);
                state.apply(a);
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "every kind of game was played: {seen:?}");
    }

    /// Teacher games (Black Hole's classic bot, which keeps root visits but no value on the
    /// game's scale): the bot plays both seats, every move it searched is a sample whose
    /// policy is its root visits over legal moves, and whose value is the game's result.
    #[test]
    fn teacher_games_sample_the_teachers_searches_in_both_seats() {
        use bots::blackhole::BlackHole;
        let s = SelfPlaySettings { teacher_share: 1.0, teacher_playouts: 300, games_in_flight: 2, ..settings() };
        let (records, stats) = generate::<BlackHole>(&zero_net_for::<BlackHole>(8), &[], &s, 3, 5, &|| {});
        assert_eq!(records.len(), 3);
        assert_eq!(stats.net_evals, 0, "the learner never searched");
        for r in &records {
            assert_eq!((r.opponent.as_deref(), r.learner_seat), (Some(TEACHER), None));
            let mut state = BlackHole::new_game(&mut Rng::new(r.seed));
            let mut sampled = [0; NUM_PLAYERS];
            for (&a, t) in r.actions.iter().zip(&r.targets) {
                if let Some(t) = t {
                    sampled[state.to_move()] += 1;
                    let sum: f32 = t.policy.iter().map(|p| p.1).sum();
                    assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
                    assert!(t.policy.iter().all(|&(pa, _)| state.is_legal(pa)));
                    assert!(t.policy.len() > 1 || t.policy[0].0 == a, "a one-move target is the move played");
                    assert_eq!(t.root_value, r.utilities, "the value target is the result");
                }
                assert!(state.is_legal(a));
                state.apply(a);
            }
            assert!(state.is_terminal());
            assert!(sampled.iter().all(|&n| n >= 5), "both seats give samples: {sampled:?}");
        }
    }

    /// A teacher whose values are on the game's scale (Zuniq's classic bot: win rates and
    /// proofs) keeps them as the value target; proven wins are one-move targets worth +1.
    #[test]
    fn a_teachers_own_values_are_kept() {
        use bots::zuniq::Zuniq;
        let s = SelfPlaySettings { teacher_share: 1.0, teacher_playouts: 400, games_in_flight: 2, opening_sample_moves: 0, ..settings() };
        let (records, _) = generate::<Zuniq>(&zero_net_for::<Zuniq>(8), &[], &s, 2, 9, &|| {});
        let mut own_values = 0;
        let mut proven_wins = 0;
        for r in &records {
            let mut state = Zuniq::new();
            for (&a, t) in r.actions.iter().zip(&r.targets) {
                if let Some(t) = t {
                    let mover = state.to_move();
                    assert!((t.root_value[0] + t.root_value[1]).abs() < 1e-5 && t.root_value[mover].abs() <= 1.0);
                    own_values += (t.root_value != r.utilities) as usize;
                    if t.root_value[mover] == 1.0 && t.policy.len() == 1 {
                        proven_wins += 1;
                        assert_eq!(t.policy[0].0, a);
                    }
                }
                state.apply(a);
            }
        }
        assert!(own_values > 10, "search values kept: {own_values}");
        assert!(proven_wins > 0, "the end of a game is proven");
    }

    #[test]
    fn games_are_complete_and_replayable() {
        let (records, stats) = generate::<Connect4>(&zero_net(), &[], &settings(), 6, 1, &|| {});
        assert_eq!(records.len(), 6);
        assert_eq!(stats.games, 6);
        assert!(stats.net_evals > 0 && stats.samples > 0);
        for r in &records {
            let mut s = Connect4::new();
            assert_eq!(r.actions.len(), r.targets.len());
            for (a, t) in r.actions.iter().zip(&r.targets) {
                if let Some(t) = t {
                    let sum: f32 = t.policy.iter().map(|p| p.1).sum();
                    assert!((sum - 1.0).abs() < 1e-4);
                    assert!(t.policy.iter().all(|&(pa, _)| s.is_legal(pa)));
                }
                assert!(s.is_legal(*a));
                s.apply(*a);
            }
            assert!(s.is_terminal());
            assert_eq!(s.utilities(), r.utilities);
        }
    }

    /// Self-play of `G` with `solve_legal`, `games` games: each is checked by `check` at the
    /// first position with that few legal actions (the record and the move number given),
    /// and must have no sample from there on. Returns, per game, the move number of that
    /// position and the game's length.
    fn solved_self_play<G: Training>(solve_legal: usize, games: usize, seed: u64, check: impl Fn(&G, &GameRecord, usize)) -> Vec<(usize, usize)> {
        let mut s = settings();
        s.full_playouts = 8;
        s.fast_playouts = 4;
        s.solve_legal = solve_legal;
        let (records, _) = generate::<G>(&zero_net_for::<G>(4), &[], &s, games, seed, &|| {});
        assert_eq!(records.len(), games);
        let mut solved = Vec::new();
        for r in &records {
            let mut state = G::new_game(&mut Rng::new(r.seed));
            let mut legal = ActionList::new();
            let mut solved_at = None;
            for (i, (&action, target)) in r.actions.iter().zip(&r.targets).enumerate() {
                state.legal_actions(&mut legal);
                if solved_at.is_none() && legal.len() <= solve_legal {
                    check(&state, r, i);
                    solved_at = Some(i);
                }
                if solved_at.is_some() {
                    assert!(target.is_none(), "no sample from a solved position");
                }
                state.apply(action);
            }
            solved.push((solved_at.expect("the endgame was solved"), r.actions.len()));
        }
        solved
    }

    /// With `solved_samples`, every solved Zuniq position is a value sample: no policy
    /// target, the game's result (the exact value) as the value target whatever the q weight,
    /// and the searched moves before it keep their policies.
    #[test]
    fn solved_positions_become_value_samples_of_the_exact_result() {
        use bots::zuniq::Zuniq;
        let mut s = settings();
        s.full_playouts = 8;
        s.fast_playouts = 4;
        s.full_search_prob = 1.0;
        s.solve_legal = 16;
        s.solved_samples = true;
        let (records, _) = generate::<Zuniq>(&zero_net_for::<Zuniq>(4), &[], &s, 3, 9, &|| {});
        for r in &records {
            let mut state = Zuniq::new_game(&mut Rng::new(r.seed));
            let mut legal = ActionList::new();
            let (mut searched, mut solved) = (0, 0);
            for (&action, target) in r.actions.iter().zip(&r.targets) {
                state.legal_actions(&mut legal);
                match target {
                    Some(t) if legal.len() <= 16 => {
                        assert!(t.policy.is_empty(), "a solved position has no policy target");
                        assert_eq!(t.root_value, r.utilities, "labelled by the exact result");
                        solved += 1;
                    }
                    Some(t) => {
                        assert!(!t.policy.is_empty());
                        searched += 1;
                    }
                    None => assert!(legal.len() > 16, "every solved position is a sample"),
                }
                state.apply(action);
            }
            assert!(searched > 0 && solved > 0, "{searched} searched, {solved} solved samples");
            let samples = crate::replay::samples_from_record::<Zuniq>(r, 0.5);
            assert_eq!(samples.len(), searched + solved);
            for sample in samples.iter().filter(|x| x.policy.is_empty()) {
                let me = sample.state.to_move();
                assert_eq!(sample.value, [r.utilities[me], r.utilities[1 - me]]);
            }
        }
    }

    /// With `solve_legal`, a Zuniq game is played out by the solver from the first position
    /// with that few legal segments: no sample after it, and the winner is the one the solver
    /// names there.
    #[test]
    fn the_solver_plays_out_win_or_loss_endgames() {
        use bots::solver::{Outcome, Solver};
        use bots::zuniq::Zuniq;
        let solved = solved_self_play::<Zuniq>(16, 4, 9, |state, r, i| {
            let winner = match Solver::new().solve(state, u64::MAX, None).unwrap() {
                Outcome::Win(_) => state.to_move(),
                Outcome::Loss => 1 - state.to_move(),
            };
            assert_eq!(r.utilities[winner], 1.0, "perfect play from move {i} decides the game");
        });
        assert!(solved.iter().all(|&(i, length)| i + 1 < length), "solved before the last move");
    }

    /// Black Hole's margin search plays self-play endgames out the same way: the final
    /// margin is the exact margin of the first position with that few legal moves.
    #[test]
    fn the_margin_search_plays_out_black_hole_endgames() {
        use bots::blackhole::endgame::EndgameSolver;
        use bots::blackhole::BlackHole;
        let solved = solved_self_play::<BlackHole>(36, 3, 11, |state, r, i| {
            let exact = EndgameSolver::new().solve(state, u64::MAX, None).unwrap().margin;
            let final_margin = (r.scores[state.to_move()] - r.scores[1 - state.to_move()]) / 2.0;
            assert_eq!(final_margin, exact as f32, "perfect play from move {i} sets the margin");
        });
        // Red's turn 22: 9 empty fields x 4 stones.
        assert!(solved.iter().all(|&(i, length)| i == 22 && length == 30), "{solved:?}");
    }

    #[test]
    fn cooperative_games_run_through_self_play() {
        use bots::game6561::Game6561;
        let net = zero_net_for::<Game6561>(4);
        let mut s = settings();
        s.full_playouts = 4;
        s.fast_playouts = 2;
        let (records, _) = generate::<Game6561>(&net, &[], &s, 2, 5, &|| {});
        for r in &records {
            assert_eq!(r.utilities[0], r.utilities[1], "both players share the score");
            assert!(r.scores[0] >= 3.0 && r.actions.len() > 3);
            let samples = crate::replay::samples_from_record::<Game6561>(r, 0.3);
            assert!(samples.iter().all(|x| x.value[0] == x.value[1]));
        }
    }

    #[test]
    fn search_finds_immediate_wins_in_self_play_targets() {
        // With a zero net the search alone must put most target mass on a winning move.
        let mut state = Connect4::new();
        for a in [0, 1, 0, 1, 0, 1] {
            state.apply(a);
        }
        let mut slot: Slot<Connect4> = Slot::against(0, &MctsConfig::puct(), Across::Itself, NetEvaluator::new(zero_net()));
        slot.state = state.clone();
        slot.mcts.reset(state);
        let mut s = settings();
        s.full_search_prob = 1.0;
        s.full_playouts = 32;
        let mut rng = Rng::new(3);
        let mut priors = Vec::new();
        let record = loop {
            match slot.step(&s, &mut rng, None) {
                Step::NeedsEval => slot.evaluate_leaf(&mut priors),
                Step::GameOver(record) => break record,
            }
        };
        assert_eq!(record.actions, vec![0], "plays the vertical win, which ends the game");
        assert_eq!(record.utilities, [1.0, -1.0]);
        let target = record.targets[0].as_ref().unwrap();
        let win = target.policy.iter().find(|p| p.0 == 0).unwrap().1;
        assert!(win > 0.5, "{target:?}");
    }
}
