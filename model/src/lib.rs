//! All Burn code of cupzero: the policy/value MLP, its training step, checkpoints, and the
//! conversion to the compact weights that `bots` reads. Self-play never runs Burn: it runs the
//! `bots` forward pass on exported weights, the same one the submitted bot runs.

use burn::config::Config;
use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::module::Param;
use burn::tensor::activation::{log_softmax, relu, softplus, tanh};
use burn::tensor::{Device, Tensor, TensorData};
use bots::nn::{Dense, Mlp, VALUE_OUTPUTS};
use std::path::Path;

/// Shape of the net; saved beside every checkpoint.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NetConfig {
    pub num_features: usize,
    pub num_actions: usize,
    /// Widths of the hidden layers (ReLU).
    pub hidden: Vec<usize>,
    /// Outputs of the auxiliary head (0 = none): per-game targets read off the end of the
    /// game (`selfplay::aux`), trained beside the policy and value and never exported.
    /// Checkpoints from before the head existed have none.
    #[serde(default)]
    pub aux_outputs: usize,
    /// Quantisation-aware training: each hidden layer's weights enter the forward pass
    /// rounded to integers of these widths (one per hidden layer, then optionally the policy
    /// and value heads; empty: f32), with the scale `export --bits` stores them at, and
    /// gradients pass the rounding straight through. See [`quantised_weight`].
    #[serde(default)]
    pub train_bits: Vec<u8>,
}

/// Optimiser settings.
#[derive(Config, Debug, PartialEq)]
pub struct OptimConfig {
    #[config(default = 1e-3)]
    pub learning_rate: f64,
    /// Linear warm-up over this many steps.
    #[config(default = 200)]
    pub warmup_steps: u64,
    /// The learning rate is multiplied by `decay_factor` every `decay_every` steps (0 = never).
    #[config(default = 0)]
    pub decay_every: u64,
    #[config(default = 0.5)]
    pub decay_factor: f64,
    /// The decay never takes the learning rate below this.
    #[config(default = 1e-4)]
    pub min_learning_rate: f64,
    /// Decoupled (AdamW) weight decay.
    #[config(default = 1e-4)]
    pub weight_decay: f32,
    /// Weight of the value loss against the policy loss.
    #[config(default = 1.0)]
    pub value_loss_weight: f32,
    /// Weight of the auxiliary head's loss (mean binary cross-entropy per output).
    #[config(default = 1.0)]
    pub aux_loss_weight: f32,
}

impl OptimConfig {
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        let warm = ((step + 1) as f64 / self.warmup_steps.max(1) as f64).min(1.0);
        let decays = if self.decay_every == 0 { 0 } else { step / self.decay_every };
        warm * (self.learning_rate * self.decay_factor.powi(decays.min(i32::MAX as u64) as i32)).max(self.min_learning_rate.min(self.learning_rate))
    }
}

#[derive(Module, Debug)]
pub struct PolicyValueNet {
    hidden: Vec<Linear>,
    policy: Linear,
    value: Linear,
    /// Auxiliary targets (logits of independent yes/no outputs), for training only.
    aux: Option<Linear>,
}

impl PolicyValueNet {
    pub fn new(config: &NetConfig, device: &Device) -> Self {
        let mut width = config.num_features;
        let mut hidden = Vec::new();
        for &w in &config.hidden {
            hidden.push(LinearConfig::new(width, w).init(device));
            width = w;
        }
        PolicyValueNet {
            hidden,
            policy: LinearConfig::new(width, config.num_actions).init(device),
            value: LinearConfig::new(width, VALUE_OUTPUTS).init(device),
            aux: (config.aux_outputs > 0).then(|| LinearConfig::new(width, config.aux_outputs).init(device)),
        }
    }

    /// The last hidden layer's activations, each layer's weights rounded to `bits[i]` where
    /// given (quantisation-aware training: [`NetConfig::train_bits`]).
    fn trunk(&self, x: Tensor<2>, bits: &[u8]) -> Tensor<2> {
        self.hidden.iter().enumerate().fold(x, |h, (i, layer)| relu(linear_forward(layer, h, bits.get(i).copied())))
    }

    /// The policy logits and the value head's pre-`tanh` outputs on the last hidden layer, the
    /// heads rounded too where `bits` names them (after the hidden layers).
    fn heads(&self, h: Tensor<2>, bits: &[u8]) -> (Tensor<2>, Tensor<2>) {
        let n = self.hidden.len();
        (linear_forward(&self.policy, h.clone(), bits.get(n).copied()), linear_forward(&self.value, h, bits.get(n + 1).copied()))
    }

    /// `[batch, features]` -> (policy logits `[batch, actions]`, values `[batch, 2]` in [-1, 1]).
    pub fn forward(&self, x: Tensor<2>, bits: &[u8]) -> (Tensor<2>, Tensor<2>) {
        let (logits, value) = self.heads(self.trunk(x, bits), bits);
        (logits, tanh(value))
    }

    /// The same weights in the `bots` format (f32), for self-play and export.
    pub fn to_mlp(&self, game: &str) -> Mlp {
        let dense = |l: &Linear| {
            let [inputs, outputs] = l.weight.val().dims();
            let weights = l.weight.val().into_data().try_to_vec::<f32>().expect("f32 weights");
            let bias = match &l.bias {
                Some(b) => b.val().into_data().try_to_vec::<f32>().expect("f32 bias"),
                None => vec![0.0; outputs],
            };
            // Burn's Linear weight is [inputs, outputs]: already the input-major layout.
            Dense { inputs, outputs, weights, bias }
        };
        // The auxiliary head stays behind: no bot reads it, so no submission carries it.
        Mlp { game: game.to_string(), hidden: self.hidden.iter().map(dense).collect(), policy: dense(&self.policy), value: dense(&self.value) }
    }

    /// Replaces the trunk and both heads by `mlp`'s weights (the auxiliary head keeps its
    /// fresh initialisation). The caller has checked the shapes ([`NetConfig::check_fits`]).
    fn load_mlp(&mut self, mlp: &Mlp, device: &Device) {
        let linear = |d: &Dense| Linear {
            weight: Param::from_tensor(Tensor::from_data(TensorData::new(d.weights.clone(), [d.inputs, d.outputs]), device)),
            bias: Some(Param::from_tensor(Tensor::from_data(TensorData::new(d.bias.clone(), [d.outputs]), device))),
        };
        self.hidden = mlp.hidden.iter().map(linear).collect();
        self.policy = linear(&mlp.policy);
        self.value = linear(&mlp.value);
    }
}

/// `weight` (`[inputs, outputs]`) rounded as integer storage of `bits` keeps it: per output
/// unit, the scale that maps its largest weight to the largest integer, then the nearest
/// integer. Forward it is the stored net; backward the rounding passes the gradient unchanged
/// (the straight-through estimator: Bengio, Leonard and Courville 2013; integer-only training
/// as in Jacob et al. 2018, "Quantization and training of neural networks for efficient
/// integer-arithmetic-only inference").
fn quantised_weight(weight: Tensor<2>, bits: u8) -> Tensor<2> {
    let max_q = bots::nn::Storage::int_max(bits) as f32;
    let scale = weight.clone().detach().abs().max_dim(0).clamp_min(1e-12) / max_q;
    let rounded = (weight.clone().detach() / scale.clone()).round() * scale;
    weight.clone() + (rounded - weight.detach())
}

/// `layer` on `h`, its weights rounded to `bits` if given ([`quantised_weight`]).
fn linear_forward(layer: &Linear, h: Tensor<2>, bits: Option<u8>) -> Tensor<2> {
    let Some(bits) = bits else { return layer.forward(h) };
    let y = h.matmul(quantised_weight(layer.weight.val(), bits));
    match &layer.bias {
        Some(bias) => y + bias.val().unsqueeze_dim(0),
        None => y,
    }
}

impl NetConfig {
    pub fn new(num_features: usize, num_actions: usize, hidden: Vec<usize>) -> Self {
        NetConfig { num_features, num_actions, hidden, aux_outputs: 0, train_bits: Vec::new() }
    }

    pub fn with_train_bits(self, train_bits: Vec<u8>) -> Self {
        NetConfig { train_bits, ..self }
    }

    pub fn with_aux_outputs(self, aux_outputs: usize) -> Self {
        NetConfig { aux_outputs, ..self }
    }

    /// Why `mlp` cannot start a net of this shape, if it cannot.
    pub fn check_fits(&self, mlp: &Mlp) -> Result<(), String> {
        let widths: Vec<usize> = mlp.hidden.iter().map(|d| d.outputs).collect();
        let inputs = mlp.hidden.first().map_or(mlp.policy.inputs, |d| d.inputs);
        if inputs != self.num_features || mlp.policy.outputs != self.num_actions || mlp.value.outputs != VALUE_OUTPUTS {
            return Err(format!(
                "the weights read {inputs} features and give {} actions, this game's net {} and {}",
                mlp.policy.outputs, self.num_features, self.num_actions
            ));
        }
        if widths != self.hidden {
            return Err(format!("the weights have hidden layers {widths:?}, the configuration net.hidden = {:?}", self.hidden));
        }
        Ok(())
    }
}

/// A batch of training samples, row-major.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub rows: usize,
    /// `[rows, features]`
    pub features: Vec<f32>,
    /// Search policy targets `[rows, actions]`, zero on illegal actions.
    pub policy: Vec<f32>,
    /// 1 on legal actions, 0 elsewhere `[rows, actions]`.
    pub legal: Vec<f32>,
    /// Value targets `[rows, 2]`: the mover's utility, then the other player's.
    pub value: Vec<f32>,
    /// Auxiliary targets in [0, 1] `[rows, aux_outputs]`; empty when the net has no such head.
    pub aux: Vec<f32>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Losses {
    pub policy: f32,
    pub value: f32,
    /// Mean binary cross-entropy of the auxiliary head (0 without one).
    pub aux: f32,
}

/// A net with its optimiser, trained one batch at a time.
pub struct Trainer {
    net: PolicyValueNet,
    optim: ModuleOptimizer,
    pub net_config: NetConfig,
    pub optim_config: OptimConfig,
    /// Optimiser steps taken so far.
    pub step: u64,
    device: Device,
}

#[derive(Debug)]
pub struct CheckpointError(pub String);

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckpointError {}

const MODEL_FILE: &str = "model.bpk";
const OPTIM_FILE: &str = "optimizer.bpk";
const NET_CONFIG_FILE: &str = "net.json";
const CHECKSUMS_FILE: &str = "checksums.txt";
const OPTIM_CONFIG_FILE: &str = "optim.json";

impl Trainer {
    pub fn new(net_config: NetConfig, optim_config: OptimConfig, seed: u64) -> Self {
        // The backend's random generator is shared by the process: seeding and drawing the
        // initial weights must not interleave with another trainer's (parallel tests, threads),
        // or the same seed gives other weights.
        static SEED_AND_INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let device = Device::flex().autodiff();
        let net = {
            let _turn = SEED_AND_INIT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            device.seed(seed);
            PolicyValueNet::new(&net_config, &device)
        };
        let optim = Self::optimizer(&optim_config);
        Trainer { net, optim, net_config, optim_config, step: 0, device }
    }

    /// A new trainer whose net starts from `mlp`'s weights (a shipped net, another run's),
    /// with a fresh optimiser; refuses, with the reason, weights of another shape.
    pub fn from_mlp(mlp: &Mlp, net_config: NetConfig, optim_config: OptimConfig, seed: u64) -> Result<Self, String> {
        net_config.check_fits(mlp)?;
        let mut trainer = Self::new(net_config, optim_config, seed);
        trainer.net.load_mlp(mlp, &trainer.device);
        Ok(trainer)
    }

    fn optimizer(config: &OptimConfig) -> ModuleOptimizer {
        AdamWConfig::new().with_weight_decay(config.weight_decay).init()
    }

    fn tensor(&self, data: &[f32], rows: usize, cols: usize) -> Tensor<2> {
        Tensor::from_data(TensorData::new(data.to_vec(), [rows, cols]), &self.device)
    }

    /// Masked policy cross-entropy against the search policy, plus mean squared value error.
    pub fn train_step(&mut self, batch: &Batch) -> Losses {
        let (n, f, a) = (batch.rows, self.net_config.num_features, self.net_config.num_actions);
        let x = self.tensor(&batch.features, n, f);
        let target_policy = self.tensor(&batch.policy, n, a);
        let legal = self.tensor(&batch.legal, n, a);
        let target_value = self.tensor(&batch.value, n, VALUE_OUTPUTS);
        let bits = &self.net_config.train_bits;
        let h = self.net.trunk(x, bits);
        let (logits, value) = self.net.heads(h.clone(), bits);
        let value = tanh(value);
        // Illegal actions get a large negative logit: they take no probability and no gradient.
        let masked = logits + (legal - 1.0) * 1e4;
        let policy_loss = (target_policy * log_softmax(masked, 1)).sum_dim(1).mean().neg();
        let value_loss = (value - target_value).powi_scalar(2).mean();
        let mut loss = policy_loss.clone() + value_loss.clone() * self.optim_config.value_loss_weight;
        let mut aux_loss = None;
        if let Some(head) = &self.net.aux {
            let k = self.net_config.aux_outputs;
            assert_eq!(batch.aux.len(), n * k, "the batch holds no auxiliary targets for the net's head");
            // Binary cross-entropy on logits: softplus(z) - t z, stable for any z.
            let z = head.forward(h);
            let bce = (softplus(z.clone(), 1.0) - z * self.tensor(&batch.aux, n, k)).mean();
            loss = loss + bce.clone() * self.optim_config.aux_loss_weight;
            aux_loss = Some(bce);
        }
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        let lr = self.optim_config.learning_rate_at(self.step);
        self.net = self.optim.step(lr, self.net.clone(), grads);
        self.step += 1;
        Losses { policy: scalar(policy_loss), value: scalar(value_loss), aux: aux_loss.map_or(0.0, scalar) }
    }

    /// The auxiliary head's probabilities `[rows, aux_outputs]`, if the net has one.
    pub fn predict_aux(&self, features: &[f32], rows: usize) -> Option<Vec<f32>> {
        let net = self.net.valid();
        let device = Device::flex();
        let x = Tensor::from_data(TensorData::new(features.to_vec(), [rows, self.net_config.num_features]), &device);
        let head = net.aux.as_ref()?;
        let p = burn::tensor::activation::sigmoid(head.forward(net.trunk(x, &self.net_config.train_bits)));
        Some(p.into_data().try_to_vec::<f32>().unwrap())
    }

    /// Burn's own forward pass, without gradients (for checks against the std-only one).
    pub fn predict(&self, features: &[f32], rows: usize) -> (Vec<f32>, Vec<f32>) {
        let net = self.net.valid();
        let device = Device::flex();
        let x = Tensor::from_data(TensorData::new(features.to_vec(), [rows, self.net_config.num_features]), &device);
        let (logits, value) = net.forward(x, &self.net_config.train_bits);
        (logits.into_data().try_to_vec::<f32>().unwrap(), value.into_data().try_to_vec::<f32>().unwrap())
    }

    /// The net in the `bots` format; trained quantised, with the layers `train_bits` names
    /// rounded as they were trained (and as `export --bits` of the same widths stores them).
    pub fn to_mlp(&self, game: &str) -> Mlp {
        let mut mlp = self.net.valid().to_mlp(game);
        let Mlp { hidden, policy, value, .. } = &mut mlp;
        for (d, &bits) in hidden.iter_mut().chain([policy, value]).zip(&self.net_config.train_bits) {
            // The exporter's own rounding: self-play and export run the net trained.
            bots::nn_write::round_as_stored(d, bits);
        }
        mlp
    }

    /// Saves net, optimiser state and configs into `dir` (each file through a temp file and
    /// a rename). The step counter is the caller's to save.
    pub fn save(&self, dir: &Path) -> Result<(), CheckpointError> {
        let err = |what: &str, e: &dyn std::fmt::Display| CheckpointError(format!("cannot save {what} in {}: {e}", dir.display()));
        std::fs::create_dir_all(dir).map_err(|e| err("the checkpoint", &e))?;
        // Temporary names of this process's own; the run's lock keeps other runs out of `dir`.
        let tmp_model = files::unique_temp_path(&dir.join(MODEL_FILE));
        self.net.clone().into_record().save(&tmp_model).map_err(|e| err("the model", &e))?;
        let tmp_optim = files::unique_temp_path(&dir.join(OPTIM_FILE));
        self.optim.save(&tmp_optim).map_err(|e| err("the optimiser", &e))?;
        for (name, text) in [(NET_CONFIG_FILE, json(&self.net_config)), (OPTIM_CONFIG_FILE, json(&self.optim_config))] {
            write_atomically(&dir.join(name), text.as_bytes()).map_err(|e| err(name, &e))?;
        }
        // Checksums of what goes into the folder, so that a damaged file is refused on load
        // instead of trained on.
        let mut sums = String::new();
        for (name, path) in [(MODEL_FILE, tmp_model.clone()), (OPTIM_FILE, tmp_optim.clone()), (NET_CONFIG_FILE, dir.join(NET_CONFIG_FILE)), (OPTIM_CONFIG_FILE, dir.join(OPTIM_CONFIG_FILE))] {
            let bytes = std::fs::read(&path).map_err(|e| err(name, &e))?;
            sums.push_str(&format!("{name} {:016x}\n", bots::nn::fnv1a64(&bytes)));
        }
        write_atomically(&dir.join(CHECKSUMS_FILE), sums.as_bytes()).map_err(|e| err(CHECKSUMS_FILE, &e))?;
        std::fs::rename(&tmp_model, dir.join(MODEL_FILE)).map_err(|e| err("the model", &e))?;
        std::fs::rename(&tmp_optim, dir.join(OPTIM_FILE)).map_err(|e| err("the optimiser", &e))?;
        Ok(())
    }

    /// Checks every file `checksums.txt` names (checkpoints written before it existed have
    /// none and are read as they are).
    fn verify(dir: &Path) -> Result<(), CheckpointError> {
        let Ok(sums) = std::fs::read_to_string(dir.join(CHECKSUMS_FILE)) else { return Ok(()) };
        let damaged = |why: String| CheckpointError(format!("the checkpoint in {} is damaged: {why}", dir.display()));
        for line in sums.lines() {
            let (name, hex) = line.split_once(' ').ok_or_else(|| damaged(format!("{CHECKSUMS_FILE} has a bad line {line:?}")))?;
            let bytes = std::fs::read(dir.join(name)).map_err(|e| damaged(format!("{name}: {e}")))?;
            if format!("{:016x}", bots::nn::fnv1a64(&bytes)) != hex {
                return Err(damaged(format!("{name} does not match its checksum")));
            }
        }
        Ok(())
    }

    /// Loads what [`Trainer::save`] wrote; the optimiser settings may be new ones.
    pub fn load(dir: &Path, optim_config: OptimConfig, step: u64) -> Result<Self, CheckpointError> {
        let err = |what: &str, e: &dyn std::fmt::Display| CheckpointError(format!("cannot load {what} from {}: {e}", dir.display()));
        Self::verify(dir)?;
        let text = std::fs::read_to_string(dir.join(NET_CONFIG_FILE)).map_err(|e| err(NET_CONFIG_FILE, &e))?;
        let net_config: NetConfig = serde_json::from_str(&text).map_err(|e| err(NET_CONFIG_FILE, &e))?;
        let device = Device::flex().autodiff();
        let record = burn::store::ModuleRecord::load(dir.join(MODEL_FILE)).map_err(|e| err("the model", &e))?;
        let net = PolicyValueNet::new(&net_config, &device).try_load_record(record).map_err(|e| err("the model", &e))?;
        let optim = Self::optimizer(&optim_config).load(dir.join(OPTIM_FILE)).map_err(|e| err("the optimiser", &e))?;
        Ok(Trainer { net, optim, net_config, optim_config, step, device })
    }
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("configs serialise")
}

fn scalar(t: Tensor<1>) -> f32 {
    t.into_data().try_to_vec::<f32>().map(|v| v[0]).unwrap_or(f32::NAN)
}

pub mod files;
pub use files::write_atomically;

#[cfg(test)]
mod tests {
    use super::*;
    use bots::rng::Rng;

    fn config() -> NetConfig {
        NetConfig::new(12, 5, vec![16, 8])
    }

    fn toy_batch(rng: &mut Rng, rows: usize) -> Batch {
        // Target: the action equal to the index of the first set feature (mod 5), value = +-0.5.
        let mut b = Batch { rows, ..Default::default() };
        for _ in 0..rows {
            let hot = rng.below(12);
            let mut f = vec![0.0; 12];
            f[hot] = 1.0;
            f[(hot + 5) % 12] = 1.0;
            b.features.extend(f);
            let mut p = vec![0.0; 5];
            p[hot % 5] = 1.0;
            b.policy.extend(p);
            b.legal.extend([1.0; 5]);
            let v = if hot % 2 == 0 { 0.5 } else { -0.5 };
            b.value.extend([v, -v]);
        }
        b
    }

    #[test]
    fn burn_and_std_forward_passes_agree() {
        let trainer = Trainer::new(config(), OptimConfig::new(), 3);
        let mlp = trainer.to_mlp("toy");
        let mut rng = Rng::new(5);
        let rows = 64;
        let features: Vec<f32> = (0..rows * 12).map(|_| if rng.below(3) == 0 { 1.0 } else { rng.unit_f32() - 0.5 }).collect();
        let (logits, values) = trainer.predict(&features, rows);
        let mut max_diff = 0.0f32;
        let mut out = vec![0.0; 5];
        for r in 0..rows {
            let v = mlp.forward_f32(&features[r * 12..(r + 1) * 12], &mut out);
            for k in 0..5 {
                max_diff = max_diff.max((out[k] - logits[r * 5 + k]).abs());
            }
            for k in 0..2 {
                max_diff = max_diff.max((v[k] - values[r * 2 + k]).abs());
            }
        }
        assert!(max_diff <= 1e-4, "max abs diff {max_diff}");
    }

    /// Trained quantised, the net it hands out has integer weights of the asked widths, its
    /// own forward pass is that net's, and training still learns.
    #[test]
    fn quantisation_aware_training_trains_the_stored_net() {
        let (trainer, first, last, mut rng) = trained_on_toy_batches(config().with_train_bits(vec![4, 3, 5, 6]));
        assert!(last.policy < 0.5 * first.policy, "policy {first:?} -> {last:?}");
        let mlp = trainer.to_mlp("toy");
        for (d, bits) in mlp.hidden.iter().chain([&mlp.policy, &mlp.value]).zip([4u8, 3, 5, 6]) {
            let max_q = bots::nn::Storage::int_max(bits) as f32;
            for o in 0..d.outputs {
                let column: Vec<f32> = (0..d.inputs).map(|i| d.weights[i * d.outputs + o]).collect();
                let scale = column.iter().fold(0.0f32, |m, w| m.max(w.abs())) / max_q;
                for w in column {
                    let q = w / scale;
                    assert!((q - q.round()).abs() < 1e-3 && q.abs() <= max_q + 1e-3, "{bits} bits: weight {w} is {q} steps of {scale}");
                }
            }
        }
        // Burn's quantised forward pass is the handed-out net's.
        let features: Vec<f32> = (0..32 * 12).map(|_| rng.below(2) as f32).collect();
        let (logits, _) = trainer.predict(&features, 32);
        let mut out = vec![0.0; 5];
        for r in 0..32 {
            mlp.forward_f32(&features[r * 12..(r + 1) * 12], &mut out);
            for k in 0..5 {
                assert!((out[k] - logits[r * 5 + k]).abs() < 1e-3, "row {r}: {} against {}", out[k], logits[r * 5 + k]);
            }
        }
    }

    /// A trainer of `config` after 800 steps on toy batches, its first and last losses, and
    /// the generator that drew the batches.
    fn trained_on_toy_batches(config: NetConfig) -> (Trainer, Losses, Losses, Rng) {
        let mut trainer = Trainer::new(config, OptimConfig { warmup_steps: 1, ..OptimConfig::new() }, 1);
        let mut rng = Rng::new(2);
        let first = trainer.train_step(&toy_batch(&mut rng, 128));
        let mut last = first;
        for _ in 0..800 {
            last = trainer.train_step(&toy_batch(&mut rng, 128));
        }
        (trainer, first, last, rng)
    }

    #[test]
    fn training_lowers_both_losses() {
        let (_, first, last, _) = trained_on_toy_batches(config());
        assert!(last.policy < 0.5 * first.policy, "policy {first:?} -> {last:?}");
        assert!(last.value < 0.5 * first.value, "value {first:?} -> {last:?}");
    }

    #[test]
    fn checkpoint_round_trip_keeps_weights_and_optimiser() {
        let dir = std::env::temp_dir().join(format!("cupzero-model-ckpt-{}", std::process::id()));
        let mut rng = Rng::new(9);
        let mut a = Trainer::new(config(), OptimConfig::new(), 4);
        for _ in 0..5 {
            a.train_step(&toy_batch(&mut rng, 32));
        }
        a.save(&dir).unwrap();
        let mut b = Trainer::load(&dir, OptimConfig::new(), a.step).unwrap();
        assert_eq!(a.to_mlp("t"), b.to_mlp("t"));
        // Same next step from the same state: Adam moments came back too.
        let batch = toy_batch(&mut rng, 32);
        a.train_step(&batch);
        b.train_step(&batch);
        let (wa, wb) = (a.to_mlp("t"), b.to_mlp("t"));
        let diff = wa.hidden[0].weights.iter().zip(&wb.hidden[0].weights).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
        assert!(diff < 1e-6, "resumed step differs by {diff}");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A checkpoint file cut short or with a byte changed is refused with one line.
    #[test]
    fn a_damaged_checkpoint_is_refused() {
        let dir = std::env::temp_dir().join(format!("cupzero-model-damage-{}", std::process::id()));
        let trainer = Trainer::new(config(), OptimConfig::new(), 4);
        trainer.save(&dir).unwrap();
        for file in [MODEL_FILE, OPTIM_FILE, NET_CONFIG_FILE] {
            let path = dir.join(file);
            let good = std::fs::read(&path).unwrap();
            let mut flipped = good.clone();
            let middle = flipped.len() / 2;
            flipped[middle] ^= 0x10;
            for damaged in [good[..good.len() / 2].to_vec(), flipped] {
                std::fs::write(&path, &damaged).unwrap();
                let why = Trainer::load(&dir, OptimConfig::new(), 0).err().expect("refused").to_string();
                assert!(why.contains("is damaged") && why.contains(file) && !why.contains('\n'), "{why}");
            }
            std::fs::write(&path, &good).unwrap();
        }
        assert!(Trainer::load(&dir, OptimConfig::new(), 0).is_ok(), "the mended checkpoint loads");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The auxiliary head learns its own target (here: which features are set), its loss
    /// falls, and it changes neither the exported net's shape nor the policy/value outputs.
    #[test]
    fn the_auxiliary_head_trains_and_is_not_exported() {
        let with_aux = NetConfig::new(12, 5, vec![32, 32]).with_aux_outputs(12);
        let mut trainer = Trainer::new(with_aux, OptimConfig { warmup_steps: 1, ..OptimConfig::new() }, 1);
        let mut rng = Rng::new(2);
        let batch = |rng: &mut Rng| {
            let mut b = toy_batch(rng, 128);
            b.aux = b.features.clone();
            b
        };
        let first = trainer.train_step(&batch(&mut rng));
        assert!(first.aux > 0.3, "untrained binary cross-entropy is near ln 2: {first:?}");
        let mut last = first;
        for _ in 0..600 {
            last = trainer.train_step(&batch(&mut rng));
        }
        assert!(last.aux < 0.3 * first.aux, "aux {first:?} -> {last:?}");
        let b = batch(&mut rng);
        for row in 0..8 {
            let p = trainer.predict_aux(&b.features[row * 12..(row + 1) * 12], 1).unwrap();
            assert_eq!(p.len(), 12);
            let row_features = &b.features[row * 12..(row + 1) * 12];
            let set = |yes: bool| (0..12).filter(|&k| (row_features[k] == 1.0) == yes).map(|k| p[k]).collect::<Vec<f32>>();
            let (lowest_set, highest_unset) = (set(true).into_iter().fold(1.0, f32::min), set(false).into_iter().fold(0.0, f32::max));
            assert!(lowest_set > highest_unset, "row {row}: set outputs {lowest_set} vs unset {highest_unset}");
        }
        let exported = trainer.to_mlp("toy");
        assert_eq!((exported.policy.outputs, exported.value.outputs, exported.hidden.len()), (5, VALUE_OUTPUTS, 2));
        let plain = Trainer::new(NetConfig::new(12, 5, vec![32, 32]), OptimConfig::new(), 1);
        assert_eq!(plain.to_mlp("toy").hidden[1].weights.len(), exported.hidden[1].weights.len(), "same exported shape with or without the head");
        assert!(plain.predict_aux(&b.features[..12], 1).is_none());
    }

    /// `from_mlp` starts from the given weights exactly, and refuses another shape.
    #[test]
    fn a_trainer_starts_from_given_weights_or_says_why_not() {
        let source = Trainer::new(config(), OptimConfig::new(), 7).to_mlp("toy");
        let started = Trainer::from_mlp(&source, config().with_aux_outputs(3), OptimConfig::new(), 1).unwrap();
        assert_eq!(started.to_mlp("toy"), source);
        let err = Trainer::from_mlp(&source, NetConfig::new(12, 5, vec![16, 16]), OptimConfig::new(), 1).err().unwrap();
        assert!(err.contains("[16, 8]") && err.contains("[16, 16]"), "{err}");
        let err = Trainer::from_mlp(&source, NetConfig::new(13, 5, vec![16, 8]), OptimConfig::new(), 1).err().unwrap();
        assert!(err.contains("12 features"), "{err}");
    }

    /// Checkpoints written before the auxiliary head existed have no `aux_outputs`.
    #[test]
    fn old_net_configs_read_as_having_no_auxiliary_head() {
        let old: NetConfig = serde_json::from_str(r#"{"num_features": 3, "num_actions": 2, "hidden": [4]}"#).unwrap();
        assert_eq!(old.aux_outputs, 0);
    }

    #[test]
    fn learning_rate_schedule() {
        let c = OptimConfig { learning_rate: 1e-3, warmup_steps: 10, decay_every: 100, decay_factor: 0.5, ..OptimConfig::new() };
        assert!((c.learning_rate_at(0) - 1e-4).abs() < 1e-12);
        assert!((c.learning_rate_at(50) - 1e-3).abs() < 1e-12);
        assert!((c.learning_rate_at(150) - 5e-4).abs() < 1e-12);
        assert!((c.learning_rate_at(100_000) - 1e-4).abs() < 1e-12, "floored");
    }
}
