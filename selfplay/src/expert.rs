//! Expert iteration for a game scored by one shared number (6561): a lookahead agent plays
//! whole games, every position is labelled with the value of the score its game ended with,
//! and a value net learns that label. The next round's agent judges its lines with the net,
//! plays better games, and those games train the next net. The idea is expert iteration
//! (Anthony, Tian and Barber, "Thinking Fast and Slow with Deep Learning and Tree Search",
//! 2017) with the final-score targets of the 2048 value-learning programs.

use bots::agent::Agent;
use bots::encode::Encode;
use bots::game::{Action, ActionList, Game};
use bots::nn::Mlp;
use bots::rng::{splitmix64, Rng};
use model::{Batch, NetConfig, OptimConfig, Trainer};
use rayon::prelude::*;

/// How the games of one round are played.
#[derive(Clone, Debug)]
pub struct PlayConfig {
    pub games: usize,
    pub threads: usize,
    /// Uniformly random moves that open every game, so games differ.
    pub random_opening: usize,
    /// Chance of a uniformly random move instead of the agent's, at every later move: the
    /// net sees positions the agent would not have made, and how games go on from them.
    pub explore: f64,
    pub seed: u64,
}

/// The positions of a round's games (terminal ones left out), each with its game's target.
#[derive(Debug)]
pub struct Labelled<G> {
    pub positions: Vec<G>,
    pub targets: Vec<f32>,
    /// Index into `positions` where each game starts, with one entry past the last.
    pub game_starts: Vec<usize>,
    /// Each game's final shared score (`Game::scores`).
    pub scores: Vec<f32>,
    /// Each game's target at its end (what `target` made of the terminal position).
    pub outcomes: Vec<f32>,
    /// Each game's start: the seed of the generator its `Game::new_game` drew from.
    pub setups: Vec<u64>,
    /// The action played from each position, beside `positions`: with the setups, the games
    /// replay from their start.
    pub played: Vec<Action>,
}

impl<G: Clone> Labelled<G> {
    pub fn new() -> Self {
        Labelled { positions: Vec::new(), targets: Vec::new(), game_starts: vec![0], scores: Vec::new(), outcomes: Vec::new(), setups: Vec::new(), played: Vec::new() }
    }

    /// Keeps only the positions `keep` accepts (each game keeps its outcome and score; a game
    /// left with none stays as an empty game).
    pub fn retain(&mut self, keep: impl Fn(&G) -> bool) {
        self.retain_by(|_, g| keep(g));
    }

    /// Keeps only the positions from ply `first` of their game on (the game's first position
    /// is its ply 0).
    pub fn retain_from_ply(&mut self, first: usize) {
        self.retain_by(|ply, _| ply >= first);
    }

    fn retain_by(&mut self, keep: impl Fn(usize, &G) -> bool) {
        let mut starts = vec![0];
        let (mut positions, mut targets, mut played) = (Vec::new(), Vec::new(), Vec::new());
        for game in 0..self.scores.len() {
            let start = self.game_starts[game];
            for i in start..self.game_starts[game + 1] {
                if keep(i - start, &self.positions[i]) {
                    positions.push(self.positions[i].clone());
                    targets.push(self.targets[i]);
                    played.push(self.played[i]);
                }
            }
            starts.push(positions.len());
        }
        (self.positions, self.targets, self.game_starts, self.played) = (positions, targets, starts, played);
    }

    /// Appends the games of `other`.
    pub fn extend(&mut self, other: &Labelled<G>) {
        let offset = self.positions.len();
        self.positions.extend_from_slice(&other.positions);
        self.targets.extend_from_slice(&other.targets);
        self.game_starts.extend(other.game_starts[1..].iter().map(|s| s + offset));
        self.scores.extend_from_slice(&other.scores);
        self.outcomes.extend_from_slice(&other.outcomes);
        self.setups.extend_from_slice(&other.setups);
        self.played.extend_from_slice(&other.played);
    }
}

impl<G: Clone> Default for Labelled<G> {
    fn default() -> Self {
        Self::new()
    }
}

/// Replaces every target by the TD(lambda) return under `net` (Sutton, "Learning to Predict by
/// the Methods of Temporal Differences", 1988): walking each game back from its outcome,
/// `G_t = (1 - lambda) V(s_{t+1}) + lambda G_{t+1}`. A lambda below 1 trades the outcome's
/// noise (one label per game) for the net's own judgement a few dozen moves later.
pub fn td_lambda_targets<G: Game + Encode>(data: &mut Labelled<G>, net: &Mlp, lambda: f32) {
    let (net, mut work) = (bots::infer::QuantNet::new(net), bots::infer::Workspace::default());
    let mut features = vec![0.0; G::NUM_FEATURES];
    for game in 0..data.scores.len() {
        let (start, end) = (data.game_starts[game], data.game_starts[game + 1]);
        let mut ret = data.outcomes[game];
        for i in (start..end).rev() {
            data.targets[i] = ret;
            features.fill(0.0);
            data.positions[i].encode(&mut features);
            let value = net.value(&mut work, 0, &features)[0];
            ret = (1.0 - lambda) * value + lambda * ret;
        }
    }
}

/// Plays `config.games` games on `config.threads` threads; `make_agent` gives each game a fresh
/// agent, `target` labels every position of a finished game from its terminal position.
pub fn play<G>(config: &PlayConfig, make_agent: impl Fn() -> Box<dyn Agent<G>> + Sync, target: impl Fn(&G) -> f32 + Sync) -> Labelled<G>
where
    G: Game + Send,
{
    play_reporting(config, make_agent, target, &|_| {})
}

/// [`play`], telling `on_game` each finished game's score for seat 0 (for progress lines).
pub fn play_reporting<G>(config: &PlayConfig, make_agent: impl Fn() -> Box<dyn Agent<G>> + Sync, target: impl Fn(&G) -> f32 + Sync, on_game: &(dyn Fn(f32) + Sync)) -> Labelled<G>
where
    G: Game + Send,
{
    let pool = rayon::ThreadPoolBuilder::new().num_threads(config.threads.max(1)).build().expect("a thread pool");
    let games: Vec<(u64, Vec<G>, Vec<Action>, f32, f32)> = pool.install(|| {
        (0..config.games)
            .into_par_iter()
            .map(|game| {
                let setup = splitmix64(config.seed ^ (game as u64) << 20).1;
                let mut rng = Rng::new(setup);
                let mut agent = make_agent();
                let mut g = G::new_game(&mut rng);
                let mut list = ActionList::new();
                let mut positions = Vec::with_capacity(G::MAX_GAME_LENGTH);
                let mut played = Vec::with_capacity(G::MAX_GAME_LENGTH);
                for ply in 0.. {
                    if g.is_terminal() {
                        break;
                    }
                    positions.push(g.clone());
                    let action = if ply < config.random_opening || rng.unit_f64() < config.explore {
                        g.legal_actions(&mut list);
                        list[rng.below(list.len())]
                    } else {
                        agent.choose(&g, None)
                    };
                    g.apply(action);
                    played.push(action);
                }
                on_game(g.scores()[0]);
                (setup, positions, played, target(&g), g.scores()[0])
            })
            .collect()
    });
    let mut labelled = Labelled::new();
    for (setup, positions, played, target, score) in games {
        labelled.setups.push(setup);
        labelled.played.extend(played);
        labelled.outcomes.push(target);
        labelled.targets.extend(std::iter::repeat_n(target, positions.len()));
        labelled.positions.extend(positions);
        labelled.game_starts.push(labelled.positions.len());
        labelled.scores.push(score);
    }
    labelled
}

/// How the value net is fitted.
#[derive(Clone, Debug)]
pub struct FitConfig {
    pub hidden: Vec<usize>,
    /// Passes over the training positions (each sample drawn at random, in a random one of
    /// the game's symmetries).
    pub epochs: f64,
    pub batch_size: usize,
    pub learning_rate: f64,
    /// Games at the end of the data held out to measure the fit.
    pub held_out_share: f64,
    pub seed: u64,
}

/// What fitting reached: the mean squared error of the outcomes on the held-out games, and
/// that of always answering the training targets' mean (how much the net explains).
#[derive(Clone, Copy, Debug)]
pub struct Fit {
    pub steps: u64,
    pub train_loss: f32,
    pub held_out_mse: f32,
    pub held_out_baseline_mse: f32,
}

/// Fits a value net to `data` (starting from `init` when given, which must have the shape of
/// `config.hidden`); `progress` hears every thousandth step.
pub fn fit_value<G>(data: &Labelled<G>, config: &FitConfig, init: Option<&Mlp>, mut progress: impl FnMut(u64, f32)) -> Result<(Mlp, Fit), String>
where
    G: Game + Encode,
{
    let games = data.scores.len();
    if games < 2 {
        return Err(format!("{games} games are too few to fit and check a value net"));
    }
    let held_games = ((games as f64 * config.held_out_share).round() as usize).clamp(1, games - 1);
    let split = data.game_starts[games - held_games];
    let (f, a) = (G::NUM_FEATURES, G::NUM_ACTIONS);
    let net_config = NetConfig::new(f, a, config.hidden.clone());
    let total_steps = ((split as f64 * config.epochs) / config.batch_size as f64).ceil().max(1.0) as u64;
    let optim = OptimConfig {
        learning_rate: config.learning_rate,
        warmup_steps: 200.min(total_steps / 4),
        decay_every: (total_steps / 4).max(1),
        decay_factor: 0.5,
        min_learning_rate: config.learning_rate / 16.0,
        weight_decay: 1e-4,
        value_loss_weight: 1.0,
        aux_loss_weight: 0.0,
    };
    let mut trainer = match init {
        Some(mlp) => Trainer::from_mlp(mlp, net_config, optim, config.seed)?,
        None => Trainer::new(net_config, optim, config.seed),
    };
    let mut rng = Rng::new(config.seed);
    let n = config.batch_size;
    // No policy target: a zero target gives the policy head no loss and no gradient.
    let mut batch = Batch { rows: n, features: vec![0.0; n * f], policy: vec![0.0; n * a], legal: vec![1.0; n * a], value: vec![0.0; n * 2], aux: Vec::new() };
    let mut train_loss = 0.0;
    for step in 0..total_steps {
        batch.features.fill(0.0);
        for row in 0..n {
            let i = rng.below(split);
            let sym = rng.below(G::NUM_SYMMETRIES);
            data.positions[i].symmetric(sym).encode(&mut batch.features[row * f..(row + 1) * f]);
            batch.value[2 * row] = data.targets[i];
            batch.value[2 * row + 1] = data.targets[i];
        }
        let losses = trainer.train_step(&batch);
        train_loss = if step == 0 { losses.value } else { 0.99 * train_loss + 0.01 * losses.value };
        if step % 1000 == 999 {
            progress(step + 1, train_loss);
        }
    }
    let mlp = trainer.to_mlp(G::NAME);
    // Measured against the held-out games' outcomes, whatever the targets were (TD targets
    // differ by lambda; the outcome is what the search wants predicted).
    let mean = data.targets[..split].iter().map(|&t| t as f64).sum::<f64>() / split as f64;
    let (mut mse, mut baseline) = (0.0f64, 0.0f64);
    let (quantised, mut work) = (bots::infer::QuantNet::new(&mlp), bots::infer::Workspace::default());
    let mut features = vec![0.0; f];
    for game in games - held_games..games {
        let t = data.outcomes[game] as f64;
        for position in &data.positions[data.game_starts[game]..data.game_starts[game + 1]] {
            features.fill(0.0);
            position.encode(&mut features);
            let v = quantised.value(&mut work, 0, &features)[0] as f64;
            mse += (v - t).powi(2);
            baseline += (mean - t).powi(2);
        }
    }
    let held = (data.positions.len() - split).max(1) as f64;
    Ok((mlp, Fit { steps: total_steps, train_loss, held_out_mse: (mse / held) as f32, held_out_baseline_mse: (baseline / held) as f32 }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bots::classic::Classic;
    use bots::game6561::lookahead::score_to_value;
    use bots::game6561::Game6561;

    fn label(g: &Game6561) -> f32 {
        score_to_value(g.score() as f32)
    }

    #[test]
    fn every_position_of_a_game_carries_that_games_score() {
        let config = PlayConfig { games: 4, threads: 2, random_opening: 3, explore: 0.0, seed: 5 };
        let data = play(&config, || Game6561::classic_agent(0, Some(4)).unwrap(), label);
        assert_eq!(data.scores.len(), 4);
        assert_eq!(data.game_starts.len(), 5);
        for game in 0..4 {
            let (start, end) = (data.game_starts[game], data.game_starts[game + 1]);
            // A game runs from the empty board, one position per move, to its end.
            assert_eq!(data.positions[start].moves(), 0);
            assert_eq!(data.positions[end - 1].moves(), end - start - 1);
            assert!(data.targets[start..end].iter().all(|&t| t == score_to_value(data.scores[game])));
        }
        // The random openings make the games differ.
        assert_ne!(data.positions[data.game_starts[1] - 1].cells(), data.positions[data.game_starts[2] - 1].cells());
        // Keeping the positions from move 500 on keeps every game's last ones and outcome.
        let lengths: Vec<usize> = data.game_starts.windows(2).map(|w| w[1] - w[0]).collect();
        let mut late = data;
        late.retain(|g| g.moves() >= 500);
        assert_eq!(late.scores.len(), 4);
        for game in 0..4 {
            let (start, end) = (late.game_starts[game], late.game_starts[game + 1]);
            assert_eq!(end - start, lengths[game].saturating_sub(500));
            assert!(late.positions[start..end].iter().all(|g| g.moves() >= 500));
            assert!(late.targets[start..end].iter().all(|&t| t == late.outcomes[game]));
        }
    }

    #[test]
    fn td_lambda_targets_blend_the_outcome_with_the_nets_later_values() {
        let config = PlayConfig { games: 2, threads: 2, random_opening: 3, explore: 0.0, seed: 5 };
        let mut data = play(&config, || Game6561::classic_agent(0, Some(2)).unwrap(), label);
        let fit_config = FitConfig { hidden: vec![8], epochs: 0.1, batch_size: 64, learning_rate: 1e-3, held_out_share: 0.5, seed: 1 };
        let (net, _) = fit_value(&data, &fit_config, None, |_, _| {}).unwrap();
        let quantised = bots::infer::QuantNet::new(&net);
        let value = |g: &Game6561| {
            let mut features = vec![0.0; Game6561::NUM_FEATURES];
            g.encode(&mut features);
            quantised.value(&mut bots::infer::Workspace::default(), 0, &features)[0]
        };
        let end = data.game_starts[1];
        let outcome = data.outcomes[0];
        // Lambda 1 keeps the outcome everywhere.
        td_lambda_targets(&mut data, &net, 1.0);
        assert!(data.targets[..end].iter().all(|&t| t == outcome));
        // Lambda 0: each position learns the net's value of the next one; the last, the outcome.
        td_lambda_targets(&mut data, &net, 0.0);
        assert_eq!(data.targets[end - 1], outcome);
        assert!((data.targets[end - 2] - value(&data.positions[end - 1])).abs() < 1e-6);
        assert!((data.targets[0] - value(&data.positions[1])).abs() < 1e-6);
        // Between: the blend, one move back from the end.
        td_lambda_targets(&mut data, &net, 0.5);
        assert!((data.targets[end - 2] - 0.5 * (value(&data.positions[end - 1]) + outcome)).abs() < 1e-6);
    }

    /// A net fitted to the games explains part of the score: it beats always answering the
    /// mean on games it never saw.
    #[test]
    fn the_fitted_value_net_beats_the_mean_on_held_out_games() {
        // Beams two lines wide and random moves give games from a few hundred points to two
        // thousand: the board says part of where a game is going.
        let config = PlayConfig { games: 200, threads: 2, random_opening: 3, explore: 0.05, seed: 9 };
        let data = play(&config, || Game6561::classic_agent(0, Some(2)).unwrap(), label);
        let fit_config = FitConfig { hidden: vec![16], epochs: 4.0, batch_size: 256, learning_rate: 2e-3, held_out_share: 0.5, seed: 1 };
        let (net, fit) = fit_value(&data, &fit_config, None, |_, _| {}).unwrap();
        assert_eq!(net.num_features(), Game6561::NUM_FEATURES);
        // It explains about a quarter of the outcomes' variance on these games.
        assert!(fit.held_out_mse < 0.9 * fit.held_out_baseline_mse, "{fit:?}");
    }
}
