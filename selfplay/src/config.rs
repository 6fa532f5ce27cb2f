//! `cupzero train` configuration: one TOML file, one set of defaults, unknown keys rejected.

use crate::gumbel::GumbelParams;
use bots::training::Training;
use model::OptimConfig;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Stop after this many iterations (0 = run until stopped).
    pub iterations: u64,
    pub seed: u64,
    pub net: NetSection,
    pub selfplay: SelfPlaySection,
    pub training: TrainingSection,
    pub eval: EvalSection,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct NetSection {
    /// Hidden layer widths of the MLP. [96, 96] keeps the Connect 4 bot (254 inputs) under
    /// CodinGame's 100,000-byte limit with 10-bit weights.
    pub hidden: Vec<usize>,
    /// Quantisation-aware training: the hidden layers trained as integers of these widths,
    /// one per hidden layer, then optionally the policy and value heads, 2 to 16 bits (empty:
    /// f32), as `export --bits` with the same list then stores them.
    /// Self-play, snapshots and export all get the rounded net. For a net whose file must fit
    /// a size limit: rounding after training costs play (docs/training.md).
    pub train_bits: Vec<u8>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlaySection {
    pub games_per_iteration: usize,
    /// Games in flight per thread (one batch of leaves).
    pub games_in_flight: usize,
    pub full_playouts: u32,
    pub fast_playouts: u32,
    /// Share of moves searched fully (and used as training samples).
    pub full_search_prob: f32,
    /// Temperature schedule: the first this many actions of a game are sampled from the
    /// search's improved policy, the rest are its best action.
    pub opening_sample_moves: usize,
    /// Root actions considered by Gumbel sequential halving.
    pub gumbel_considered: usize,
    pub c_visit: f32,
    pub c_scale: f32,
    pub c_puct: f32,
    pub fpu_reduction: f32,
    /// Weight of the search value in the value target (the rest is the game result).
    pub value_target_q_weight: f32,
    /// Self-play threads (0 = all cores).
    pub threads: usize,
    /// The exact solver plays a game out once at most this many actions are legal (0 = off;
    /// games with an exact endgame search only: Zuniq, Black Hole).
    pub solve_legal: usize,
    /// Solved positions become value samples (no policy target), labelled by the exact
    /// result: the net's value then learns the endgame the solver plays.
    pub solved_samples: bool,
    /// Share of games against an earlier net of the run, drawn uniformly from the league.
    pub league_share: f32,
    /// Every this many iterations the current net joins the league.
    pub league_every: u64,
    /// The league keeps this many of the newest such nets.
    pub league_size: usize,
    /// Nets (weights files) that stay in the league for the whole run besides the run's own:
    /// a shipped net or another contender whose lines the learner must not drift into losing.
    pub league_nets: Vec<String>,
    /// Share of games against the game's classic bot (games that have one).
    pub classic_share: f32,
    /// The classic opponent's budget per move (playouts; nodes for Connect 4's alpha-beta).
    pub classic_playouts: u64,
    /// Whether an earlier net's moves become samples too (the classic bot's never do).
    pub opponent_samples: bool,
    /// Share of teacher games: the game's classic bot plays both seats at `teacher_playouts`
    /// a move, and every move it searched becomes a sample (its root visits the policy
    /// target). Expert iteration: worth it only where that bot beats the learner's search.
    pub teacher_share: f32,
    /// The teacher's budget per move (its own unit: playouts, or nodes).
    pub teacher_playouts: u64,
    /// Share of games against a UCT bot with random playouts (every game has one): a search
    /// that steers into the erratic, tactical middlegames self-play never visits. Only the
    /// learner's moves become samples.
    pub uct_share: f32,
    /// The UCT opponent's playouts per move.
    pub uct_playouts: u64,
    /// Self-play's search deepens as the net improves: with `training.follow_plan` its
    /// playouts (full and fast) grow in proportion from `full_playouts`/`fast_playouts` at the
    /// first iteration to this many times them at the plan's last (1: constant).
    pub playouts_growth: f32,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingSection {
    pub batch_size: usize,
    pub learning_rate: f64,
    pub warmup_steps: u64,
    /// Multiply the learning rate by `decay_factor` every `decay_every` steps (0 = never).
    pub decay_every: u64,
    pub decay_factor: f64,
    /// The decay stops at this learning rate.
    pub min_learning_rate: f64,
    pub weight_decay: f32,
    pub value_loss_weight: f32,
    /// Weight of the auxiliary head's loss (targets from the end of each game, `selfplay::aux`;
    /// 0 = no such head). The head is never exported.
    pub aux_loss_weight: f32,
    /// Times each new sample is drawn for training, on average.
    pub sample_reuse: f32,
    /// Positions kept in the replay window.
    pub replay_window: usize,
    /// No training before the window holds this many positions.
    pub min_replay: usize,
    /// Train while the next iteration's games are played (on the window as it stood, with
    /// the net one iteration older in self-play), instead of after them: on many cores the
    /// training step would otherwise be the serial bottleneck.
    pub overlap: bool,
    /// Keep every iteration's games file; by default those the replay window no longer draws
    /// from are deleted, so the run directory stays bounded.
    pub keep_all_games: bool,
    /// Keep the net of every this many iterations as `snapshots/iter-NNNNNN.czw` (0 = none):
    /// a run's best net is often not its last, and the judged games that pick it come later.
    pub snapshot_every: u64,
    /// Let the run's plan set the schedule (`selfplay::schedule`): the learning rate decays
    /// over the planned iterations (`--iterations`; without a plan, as the run doubles) instead
    /// of every `decay_every` steps, and the replay window grows with the samples seen, from
    /// `replay_window` up to four times it. Off by default until judged runs show a gain.
    pub follow_plan: bool,
    /// A stronger net (a `.czw` file) that teaches this one: its value and priors are mixed
    /// into every sample's targets at `distill_weight` (`replay::distill`). A net too wide
    /// to ship can so teach one that fits a contest's file. Empty: none.
    pub distill_net: String,
    /// The teacher's share of each target, in [0, 1].
    pub distill_weight: f32,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct EvalSection {
    /// Evaluate every this many iterations (0 = never).
    pub every: u64,
    pub games: usize,
    /// Playouts per move of the net player.
    pub playouts: u64,
    /// `classic` (the game's net-free classic bot, where it has one), `uct` or `random`.
    pub opponent: String,
    /// Search budget per move of a `classic` or `uct` opponent (playouts; nodes for an
    /// alpha-beta classic bot).
    pub opponent_playouts: u64,
    /// Actions played at random before each pair of evaluation games (one per seat), so
    /// that deterministic players do not repeat the same two games.
    pub random_opening: usize,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            iterations: 0,
            seed: 1,
            net: NetSection::default(),
            selfplay: SelfPlaySection::default(),
            training: TrainingSection::default(),
            eval: EvalSection::default(),
        }
    }
}

impl TrainConfig {
    /// The defaults, with the settings game `G` declares in its own folder
    /// ([`Training::TRAINING_DEFAULTS`]) on top.
    pub fn for_game<G: Training>() -> Self {
        TrainConfig::from_toml(G::TRAINING_DEFAULTS, &TrainConfig::default())
            .unwrap_or_else(|e| panic!("{}: Training::TRAINING_DEFAULTS does not read: {e}", G::NAME))
    }

    /// [`TrainConfig::for_game`] of the registered game `name`.
    pub fn for_game_named(name: &str) -> Option<Self> {
        bots::with_game!(name, G => Self::for_game::<G>())
    }
}

impl Default for NetSection {
    fn default() -> Self {
        NetSection { hidden: vec![96, 96], train_bits: Vec::new() }
    }
}

impl Default for SelfPlaySection {
    fn default() -> Self {
        let g = GumbelParams::default();
        SelfPlaySection {
            games_per_iteration: 400,
            games_in_flight: 32,
            full_playouts: 96,
            fast_playouts: 24,
            full_search_prob: 0.5,
            opening_sample_moves: 6,
            gumbel_considered: g.considered,
            c_visit: g.c_visit,
            c_scale: g.c_scale,
            c_puct: 1.5,
            fpu_reduction: 0.2,
            value_target_q_weight: 0.2,
            threads: 0,
            solve_legal: 0,
            solved_samples: false,
            league_share: 0.0,
            league_every: 10,
            league_size: 8,
            league_nets: Vec::new(),
            classic_share: 0.0,
            classic_playouts: 2000,
            opponent_samples: false,
            teacher_share: 0.0,
            teacher_playouts: 4000,
            uct_share: 0.0,
            uct_playouts: 4000,
            playouts_growth: 1.0,
        }
    }
}

impl Default for TrainingSection {
    fn default() -> Self {
        TrainingSection {
            batch_size: 256,
            learning_rate: 2e-3,
            warmup_steps: 200,
            decay_every: 20_000,
            decay_factor: 0.5,
            min_learning_rate: 2.5e-4,
            weight_decay: 1e-4,
            value_loss_weight: 1.0,
            aux_loss_weight: 1.5,
            sample_reuse: 6.0,
            replay_window: 200_000,
            min_replay: 2_000,
            overlap: false,
            keep_all_games: false,
            snapshot_every: 0,
            follow_plan: false,
            distill_net: String::new(),
            distill_weight: 0.5,
        }
    }
}

impl Default for EvalSection {
    fn default() -> Self {
        EvalSection { every: 5, games: 20, playouts: 64, opponent: "uct".into(), opponent_playouts: 1000, random_opening: 0 }
    }
}

impl TrainConfig {
    /// Reads a TOML file of settings: what it names replaces `base` (a game's defaults, say),
    /// key by key within each section; what it leaves out keeps `base`'s value.
    pub fn from_toml(text: &str, base: &TrainConfig) -> Result<Self, String> {
        // First read alone, so that an unknown key or a bad type is reported at its place.
        let _: TrainConfig = toml::from_str(text).map_err(|e| {
            // toml's own message draws the line with a caret over several lines: keep one.
            let place = e.span().map(|span| {
                let before = &text[..span.start.min(text.len())];
                format!("line {}, column {}: ", before.matches('\n').count() + 1, before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1)
            });
            format!("{}{}", place.unwrap_or_default(), e.message().trim())
        })?;
        let given: toml::Table = toml::from_str(text).map_err(|e| e.message().trim().to_string())?;
        let mut merged = toml::Table::try_from(base).expect("config serialises");
        for (key, value) in given {
            match (merged.get_mut(&key), value) {
                (Some(toml::Value::Table(section)), toml::Value::Table(keys)) => section.extend(keys),
                (_, value) => {
                    merged.insert(key, value);
                }
            }
        }
        let config: TrainConfig = merged.try_into().map_err(|e: toml::de::Error| e.message().trim().to_string())?;
        config.validate()?;
        Ok(config)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("config serialises")
    }

    /// Range checks, so that a bad value fails before any work starts.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.selfplay;
        let t = &self.training;
        let checks: [(bool, &str); 20] = [
            ((1.0..=16.0).contains(&s.playouts_growth), "selfplay.playouts_growth must be in [1, 16]"),
            (!self.net.hidden.is_empty() && self.net.hidden.iter().all(|&w| (1..=4096).contains(&w)), "net.hidden: 1 to 4096 units per layer, at least one layer"),
            (
                self.net.train_bits.is_empty() || bots::nn_write::coded_layout(&self.net.train_bits, self.net.hidden.len()).is_ok(),
                "net.train_bits: one width per hidden layer, then optionally the two heads, each 2 to 16 bits (or none)",
            ),
            (s.games_per_iteration >= 1, "selfplay.games_per_iteration must be at least 1"),
            (s.games_in_flight >= 1, "selfplay.games_in_flight must be at least 1"),
            (s.full_playouts >= 2 && s.fast_playouts >= 1, "selfplay.full_playouts must be at least 2 and fast_playouts at least 1"),
            ((0.0..=1.0).contains(&s.full_search_prob) && s.full_search_prob > 0.0, "selfplay.full_search_prob must be in (0, 1]"),
            (s.gumbel_considered >= 2, "selfplay.gumbel_considered must be at least 2"),
            ((0.0..=1.0).contains(&s.value_target_q_weight), "selfplay.value_target_q_weight must be in [0, 1]"),
            (
                [s.league_share, s.classic_share, s.teacher_share, s.uct_share].iter().all(|&share| share >= 0.0) && s.league_share + s.classic_share + s.teacher_share + s.uct_share <= 1.0,
                "selfplay.league_share, classic_share, teacher_share and uct_share must be 0 or more, with a sum of at most 1",
            ),
            (s.league_every >= 1 && s.league_size >= 1 && s.classic_playouts >= 1, "selfplay.league_every, league_size and classic_playouts must be at least 1"),
            (s.league_nets.is_empty() || s.league_share > 0.0, "selfplay.league_nets needs a league_share above 0 (no game would meet them)"),
            (s.teacher_playouts >= 1 && s.uct_playouts >= 1, "selfplay.teacher_playouts and uct_playouts must be at least 1"),
            (t.batch_size >= 1 && t.learning_rate > 0.0 && t.learning_rate < 1.0, "training.batch_size >= 1 and 0 < learning_rate < 1"),
            (t.sample_reuse > 0.0, "training.sample_reuse must be positive"),
            (t.aux_loss_weight >= 0.0 && t.aux_loss_weight.is_finite(), "training.aux_loss_weight must be 0 or more"),
            (t.replay_window >= t.batch_size && t.min_replay <= t.replay_window, "training.replay_window must hold a batch and min_replay"),
            (t.decay_factor > 0.0 && t.decay_factor <= 1.0, "training.decay_factor must be in (0, 1]"),
            ((0.0..=1.0).contains(&t.distill_weight), "training.distill_weight must be in [0, 1]"),
            (["classic", "uct", "random"].contains(&self.eval.opponent.as_str()), "eval.opponent must be \"classic\", \"uct\" or \"random\""),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, why)) => Err(why.to_string()),
            None => Ok(()),
        }
    }

    /// Self-play's settings as configured (`schedule::selfplay_settings` gives an iteration's).
    pub fn selfplay_settings(&self) -> SelfPlaySettings {
        let s = &self.selfplay;
        SelfPlaySettings {
            games_in_flight: s.games_in_flight,
            full_playouts: s.full_playouts,
            fast_playouts: s.fast_playouts,
            full_search_prob: s.full_search_prob,
            opening_sample_moves: s.opening_sample_moves,
            gumbel: GumbelParams { considered: s.gumbel_considered, c_visit: s.c_visit, c_scale: s.c_scale },
            c_puct: s.c_puct,
            fpu_reduction: s.fpu_reduction,
            solve_legal: s.solve_legal,
            solved_samples: s.solved_samples,
            league_share: s.league_share,
            classic_share: s.classic_share,
            classic_playouts: s.classic_playouts,
            opponent_samples: s.opponent_samples,
            teacher_share: s.teacher_share,
            teacher_playouts: s.teacher_playouts,
            uct_share: s.uct_share,
            uct_playouts: s.uct_playouts,
        }
    }

    pub fn optim_config(&self) -> OptimConfig {
        let t = &self.training;
        OptimConfig {
            learning_rate: t.learning_rate,
            warmup_steps: t.warmup_steps,
            decay_every: t.decay_every,
            decay_factor: t.decay_factor,
            min_learning_rate: t.min_learning_rate,
            weight_decay: t.weight_decay,
            value_loss_weight: t.value_loss_weight,
            aux_loss_weight: t.aux_loss_weight,
        }
    }
}

/// What a self-play thread needs to know, drawn from the training config.
#[derive(Clone, Debug)]
pub struct SelfPlaySettings {
    /// Games in flight per thread: their leaves form one evaluation batch.
    pub games_in_flight: usize,
    /// Playouts of a full search (its move becomes a training sample).
    pub full_playouts: u32,
    /// Playouts of a fast search (move only, no sample).
    pub fast_playouts: u32,
    /// Probability that a move gets a full search.
    pub full_search_prob: f32,
    /// The first this many actions of a game are sampled from the improved policy
    /// (temperature 1); later ones are the Gumbel search's choice (temperature 0).
    pub opening_sample_moves: usize,
    pub gumbel: GumbelParams,
    /// PUCT below the root.
    pub c_puct: f32,
    pub fpu_reduction: f32,
    /// Once at most this many actions are legal, the exact solver plays the game out (0 =
    /// never; only for games with an exact endgame search, `Training::exact_player`: win/loss games
    /// and Black Hole's margin search): the result is then the one perfect play
    /// gives from there, a truer target for the earlier positions than what two searches of
    /// a few dozen playouts would make of the endgame. Solved moves are not samples unless
    /// `solved_samples`.
    pub solve_legal: usize,
    /// Each solved position becomes a value sample (an empty policy target: no policy loss)
    /// labelled by the exact result. Without it the net's value never trains where the
    /// solver plays, which is where the bot's search meets its deepest leaves.
    pub solved_samples: bool,
    /// Share of games against an earlier net of the run (drawn uniformly from the league).
    pub league_share: f32,
    /// Share of games against the game's classic bot.
    pub classic_share: f32,
    /// The classic opponent's budget per move (its own unit: playouts, or nodes).
    pub classic_playouts: u64,
    /// Whether an earlier net's moves also become samples (its searches are as good as the
    /// learner's); the classic bot's moves never do, having no search policy to learn from.
    pub opponent_samples: bool,
    /// Share of teacher games: the classic bot plays both seats (see `SelfPlaySection`).
    pub teacher_share: f32,
    /// The teacher's budget per move.
    pub teacher_playouts: u64,
    /// Share of games against a UCT bot with random playouts, at `uct_playouts` a move.
    pub uct_share: f32,
    pub uct_playouts: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game_config(name: &str) -> TrainConfig {
        TrainConfig::for_game_named(name).expect("a registered game")
    }

    /// What a game declares reads and validates, for every game of the registry.
    #[test]
    fn every_games_defaults_read_and_validate() {
        for game in bots::GAMES {
            let config = game_config(game.name);
            config.validate().unwrap_or_else(|e| panic!("{}: {e}", game.name));
            assert_eq!(TrainConfig::from_toml(&config.to_toml(), &TrainConfig::default()).unwrap(), config, "{}", game.name);
        }
        assert!(TrainConfig::for_game_named("chess").is_none());
    }

    #[test]
    fn the_6561_defaults_avoid_a_uct_partner_and_validate() {
        let c = game_config("6561");
        assert_eq!(c.eval.opponent, "random");
        assert!(c.selfplay.games_per_iteration < TrainConfig::default().selfplay.games_per_iteration);
        c.validate().unwrap();
        assert_eq!(game_config("qttt"), TrainConfig::default());
    }

    /// Games with a classic bot are evaluated against it; the others keep UCT (or random).
    #[test]
    fn evaluation_is_against_the_classic_bot_where_there_is_one() {
        for game in ["connect4", "blackhole", "zuniq"] {
            let c = game_config(game);
            assert_eq!(c.eval.opponent, "classic", "{game}");
            c.validate().unwrap();
        }
        assert_eq!(game_config("qttt").eval.opponent, "uct");
    }

    /// The games with an exact endgame search hand their self-play endgames to it by default;
    /// Black Hole's 36 legal moves are Red's turn 22 (9 empty fields x 4 stones): the last 8
    /// stones, where Blue's turn 21 (10 x 5 = 50) is still searched.
    #[test]
    fn exact_endgames_are_on_by_default_where_a_search_exists() {
        assert_eq!(game_config("zuniq").selfplay.solve_legal, 22);
        assert_eq!(game_config("blackhole").selfplay.solve_legal, 36);
        for game in ["connect4", "6561", "qttt"] {
            assert_eq!(game_config(game).selfplay.solve_legal, 0, "{game}");
        }
        game_config("blackhole").validate().unwrap();
    }

    #[test]
    fn defaults_round_trip_through_toml() {
        let c = TrainConfig::default();
        assert_eq!(TrainConfig::from_toml(&c.to_toml(), &game_config("zuniq")).unwrap(), c);
        assert_eq!(TrainConfig::from_toml("", &c).unwrap(), c, "an empty file means the defaults");
    }

    #[test]
    fn unknown_keys_and_bad_values_are_rejected() {
        let err = TrainConfig::from_toml("[selfplay]\nfull_playout = 3\n", &TrainConfig::default()).unwrap_err();
        assert!(err.starts_with("line 2, column 1: unknown field `full_playout`"), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");
        let err = TrainConfig::from_toml("[training]\nlearning_rate = 5.0\n", &TrainConfig::default()).unwrap_err();
        assert!(err.contains("learning_rate"), "{err}");
        let partial = TrainConfig::from_toml("iterations = 3\n[net]\nhidden = [32]\n", &TrainConfig::default()).unwrap();
        assert_eq!(partial.iterations, 3);
        assert_eq!(partial.net.hidden, vec![32]);
        assert_eq!(partial.training, TrainingSection::default());
    }

    /// The opponents' shares together may not pass 1, nor any of them be negative.
    #[test]
    fn opponent_shares_sum_to_at_most_one() {
        let base = TrainConfig::default();
        let ok = TrainConfig::from_toml("[selfplay]\nuct_share = 0.5\nclassic_share = 0.2\nleague_share = 0.3\n", &base).unwrap();
        assert_eq!((ok.selfplay_settings().uct_share, ok.selfplay_settings().uct_playouts), (0.5, 4000));
        for bad in ["uct_share = 0.6\nleague_share = 0.5", "uct_share = -0.1", "uct_playouts = 0"] {
            let err = TrainConfig::from_toml(&format!("[selfplay]\n{bad}\n"), &base).unwrap_err();
            assert!(err.contains("uct_"), "{bad}: {err}");
        }
    }

    /// A partial file changes only what it names: the game's own defaults (Black Hole's
    /// endgame search in self-play, its classic evaluation) stay.
    #[test]
    fn a_partial_file_keeps_the_games_defaults() {
        let base = game_config("blackhole");
        let c = TrainConfig::from_toml("[net]\nhidden = [64]\n[training]\noverlap = true\n[eval]\ngames = 10\n", &base).unwrap();
        assert_eq!(c.net.hidden, vec![64]);
        assert!(c.training.overlap);
        assert_eq!(c.eval.games, 10);
        assert_eq!(c.selfplay, base.selfplay);
        assert_eq!(c.selfplay.solve_legal, 36);
        assert_eq!((c.eval.opponent.as_str(), c.eval.opponent_playouts), ("classic", base.eval.opponent_playouts));
        assert_eq!(TrainConfig { net: base.net.clone(), training: base.training.clone(), eval: base.eval.clone(), ..c.clone() }, base);
    }
}
