//! The forward pass every net-guided search runs (submitted bots, self-play, the judge's
//! programs, the tools): the policy/value MLP of `nn` in integers.
//!
//! - **Integers, with named scales** (after bullet's and Monty's quantised nets): hidden
//!   activations as i16 multiples of `2^-ACTIVATION_SHIFT`, each layer's weights as i16
//!   multiples of `2^-shift` with the layer's own `shift`, every sum in i32. Each layer's shift
//!   is the finest that keeps its weights in i16 and its sums inside i32 for any input, so no
//!   sum can overflow. An input that is not 0 or 1 adds its row times its value, each term
//!   rounded to an integer. Integer sums do not depend on their order: the AVX2 kernels, the
//!   portable ones, an incremental update and a fresh computation all give the same numbers.
//! - **The first layer from the active inputs only.** Encodings are mostly zeros and ones: the
//!   layer is the bias plus one weight row per non-zero input.
//! - **Incrementally** (the accumulator of NNUE engines): a [`Workspace`] keeps, per slot, the
//!   last position's non-zero inputs and first-layer sums. The next position of that slot costs
//!   the rows of the inputs that changed, when fewer changed than are set. A search's
//!   consecutive leaves are close in the tree, so most inputs stay. Nothing is asked of a game:
//!   the difference is found between the two encodings.
//! - **The policy over the asked actions only**: a search needs the logits of the legal moves,
//!   not the whole head. The head is computed either row by row over the active hidden units or
//!   as one dot product per asked action, whichever takes fewer operations.
//! - **Kernels by CPU** ([`crate::cpu`]): 256-bit AVX2, or 128-bit SSE2 (every x86-64 has
//!   it; compiled with AVX's encodings where the CPU has AVX, as CodeCup's has), chosen at run
//!   time; plain code elsewhere. All give the same integers.

use crate::cpu::Cpu;
use crate::game::Action;
use crate::nn::{Dense, Mlp, VALUE_OUTPUTS};

#[cfg(not(avx2_platform))]
#[cfg(target_arch = "x86_64")]
mod avx;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(not(avx2_platform))]
#[cfg(target_arch = "x86_64")]
mod sse;

/// Hidden activations are i16 multiples of `2^-ACTIVATION_SHIFT` (QA = 256), so they saturate at
/// 128; the shipped nets' largest activation is about 24.
pub const ACTIVATION_SHIFT: u32 = 8;
/// Inputs are clamped to this magnitude: it bounds every first-layer term to 2^20.
const INPUT_LIMIT: f32 = 31.0;
/// Output units are padded to a multiple of this (one AVX2 register of i32 sums).
const LANES: usize = 8;

/// `n / d` rounded up (`usize::div_ceil` is newer than the bots' compiler floor).
#[inline(always)]
fn ceil_div(n: usize, d: usize) -> usize {
    (n + d - 1) / d
}

/// `n` rounded up to a multiple of `d`.
#[inline(always)]
fn round_up(n: usize, d: usize) -> usize {
    ceil_div(n, d) * d
}

/// A layer in integers: weights `round(w * 2^shift)`, biases at the scale of its sums.
#[derive(Clone, Debug)]
struct IntLayer {
    inputs: usize,
    outputs: usize,
    /// Outputs rounded up to [`LANES`] (the padding has zero weights and bias).
    padded: usize,
    shift: u32,
    bias: Vec<i32>,
    /// `[input][padded output]`: the rows a layer reading the inputs adds for each active one.
    rows: Vec<i16>,
    /// `[input pair][padded output][2]`: two inputs' weights interleaved, for `madd`.
    pairs: Vec<i16>,
    /// `[output][input, padded to 16]`: one output's weights in a row, for dot products.
    columns: Vec<i16>,
}

impl IntLayer {
    /// `input_scale` is the shift of the integer inputs this layer reads (its sums are at
    /// `input_scale + shift`); `input_limit` bounds their integer magnitude.
    fn new(dense: &Dense, input_scale: u32, input_limit: f64) -> IntLayer {
        let (inputs, outputs) = (dense.inputs, dense.outputs);
        let padded = round_up(outputs, LANES);
        let max_weight = dense.weights.iter().fold(0.0f64, |m, &w| m.max(w.abs() as f64));
        // The largest sum any inputs can give, in units of the weights' scale.
        let worst = (0..outputs)
            .map(|o| (0..inputs).map(|i| dense.weights[i * outputs + o].abs() as f64).sum::<f64>() * input_limit + dense.bias[o].abs() as f64 * 2f64.powi(input_scale as i32))
            .fold(0.0, f64::max);
        let mut shift = 0;
        while shift < 24 && max_weight * 2f64.powi(shift + 1) <= i16::MAX as f64 && worst * 2f64.powi(shift + 1) < (1u64 << 30) as f64 {
            shift += 1;
        }
        let shift = shift as u32;
        let quantise = |w: f32| (w as f64 * 2f64.powi(shift as i32)).round().clamp(-(i16::MAX as f64), i16::MAX as f64) as i16;
        let mut rows = vec![0i16; inputs * padded];
        for i in 0..inputs {
            for o in 0..outputs {
                rows[i * padded + o] = quantise(dense.weights[i * outputs + o]);
            }
        }
        let mut bias = vec![0i32; padded];
        for o in 0..outputs {
            bias[o] = (dense.bias[o] as f64 * 2f64.powi((shift + input_scale) as i32)).round() as i32;
        }
        let mut pairs = vec![0i16; ceil_div(inputs, 2) * padded * 2];
        for i in 0..inputs {
            for o in 0..padded {
                pairs[((i / 2) * padded + o) * 2 + i % 2] = rows[i * padded + o];
            }
        }
        let stride = round_up(inputs, 16);
        let mut columns = vec![0i16; outputs * stride];
        for o in 0..outputs {
            for i in 0..inputs {
                columns[o * stride + i] = rows[i * padded + o];
            }
        }
        IntLayer { inputs, outputs, padded, shift, bias, rows, pairs, columns }
    }

    fn row(&self, input: usize) -> &[i16] {
        &self.rows[input * self.padded..(input + 1) * self.padded]
    }

    fn column(&self, output: usize) -> &[i16] {
        let stride = round_up(self.inputs, 16);
        &self.columns[output * stride..(output + 1) * stride]
    }
}

/// The net in integers, built from the weight file's [`Mlp`].
#[derive(Clone, Debug)]
pub struct QuantNet {
    /// Tells a [`Workspace`] whose sums it holds.
    id: u64,
    game: String,
    features: usize,
    actions: usize,
    /// The first hidden layer (read from the inputs), then the other hidden layers.
    hidden: Vec<IntLayer>,
    policy: IntLayer,
    value: IntLayer,
}

/// The first layer's sums of one position, kept for the next position of its slot.
#[derive(Clone, Debug, Default)]
struct Accumulator {
    /// The position's inputs (empty until the first position).
    inputs: Vec<f32>,
    /// How many of them are not zero.
    active: usize,
    sums: Vec<i32>,
}

fn next_net_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// What one search thread keeps between evaluations: the accumulators and the buffers. It
/// serves one net at a time (another net starts it afresh).
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    net: u64,
    slots: Vec<Accumulator>,
    /// Bit masks of 64 inputs a word: those that changed since the slot's last position, or
    /// those that are set.
    words: Vec<u64>,
    /// The first layer's inputs whose row is scaled, `(input, old, new)`: any change but 0 to
    /// 1 and 1 to 0, whose rows are added or taken away at once.
    scaled: Vec<(u32, f32, f32)>,
    /// The first layer's inputs whose row is added (0 to 1) or taken away (1 to 0).
    plus: Vec<u32>,
    minus: Vec<u32>,
    activations: Vec<i16>,
    sums: Vec<i32>,
    /// The pairs of activations `(2k, 2k + 1)` that are not both zero: `k` and both packed
    /// in one i32 (`a[2k]` in the low half), as `madd` reads them.
    active_pairs: Vec<(u32, i32)>,
    /// Evaluations whose first layer was updated from the slot's last position, and computed
    /// afresh (for the profile).
    pub incremental: u64,
    pub refreshed: u64,
}

/// Which kernels an evaluation runs (a const parameter, so each is compiled on its own).
const PLAIN: u8 = 0;
/// 128-bit SSE2: x86-64's baseline. (What only CPUs without AVX2 run is marked for the
/// exporter, which leaves it out of bots for platforms whose CPUs all have AVX2.)
#[cfg(not(avx2_platform))]
const SSE: u8 = 1;
/// SSE2's integer kernels, float loops in AVX's 256-bit registers.
#[cfg(not(avx2_platform))]
const AVX: u8 = 2;
const AVX2: u8 = 3;

impl QuantNet {
    pub fn new(net: &Mlp) -> QuantNet {
        // The first layer adds its rows (a 0/1 input its row, another input its value times the
        // row), so its sums are at the weights' own scale and each term is at most INPUT_LIMIT
        // rows. The layers after it read i16 activations. A weight file has a hidden layer at
        // least (`Mlp::validate`).
        let hidden: Vec<IntLayer> = net
            .hidden
            .iter()
            .enumerate()
            .map(|(k, dense)| if k == 0 { IntLayer::new(dense, 0, INPUT_LIMIT as f64) } else { IntLayer::new(dense, ACTIVATION_SHIFT, i16::MAX as f64) })
            .collect();
        let policy = IntLayer::new(&net.policy, ACTIVATION_SHIFT, i16::MAX as f64);
        let value = IntLayer::new(&net.value, ACTIVATION_SHIFT, i16::MAX as f64);
        QuantNet { id: next_net_id(), game: net.game.clone(), features: net.num_features(), actions: net.num_actions(), hidden, policy, value }
    }

    pub fn game(&self) -> &str {
        &self.game
    }
    pub fn num_features(&self) -> usize {
        self.features
    }
    pub fn num_actions(&self) -> usize {
        self.actions
    }

    /// Evaluates the position whose features are `features` (dense, as [`crate::encode::Encode`]
    /// writes them): returns `[mover, other]` in [-1, 1] and writes the logit of `actions[i]`
    /// into `logits[i]` (`actions` may be empty: the value alone). `slot` names the accumulator
    /// to start from: positions evaluated in one slot should resemble each other (the same
    /// mover, the same symmetric view).
    pub fn evaluate(&self, work: &mut Workspace, slot: usize, features: &[f32], actions: &[Action], logits: &mut [f32]) -> [f32; VALUE_OUTPUTS] {
        assert_eq!(features.len(), self.features, "a feature vector of the wrong length");
        assert!(logits.len() >= actions.len() && actions.iter().all(|&a| (a as usize) < self.actions), "actions outside the policy head");
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `cpu::level` is at most what the CPU has, and each function enables no more.
            let level = crate::cpu::level();
            if level == Cpu::Avx2 {
                return unsafe { self.evaluate_avx2(work, slot, features, actions, logits) };
            }
            #[cfg(not(avx2_platform))]
            {
                if level == Cpu::Avx {
                    return unsafe { self.evaluate_avx(work, slot, features, actions, logits) };
                }
                return self.evaluate_with::<SSE>(work, slot, features, actions, logits);
            }
        }
        #[allow(unreachable_code)]
        self.evaluate_with::<PLAIN>(work, slot, features, actions, logits)
    }

    /// The value alone: the same numbers as [`QuantNet::evaluate`]'s.
    pub fn value(&self, work: &mut Workspace, slot: usize, features: &[f32]) -> [f32; VALUE_OUTPUTS] {
        self.evaluate(work, slot, features, &[], &mut [])
    }

    /// Every action's logit (tools that show or rank the whole policy).
    pub fn all_logits(&self, work: &mut Workspace, slot: usize, features: &[f32], logits: &mut [f32]) -> [f32; VALUE_OUTPUTS] {
        let actions: Vec<Action> = (0..self.actions as Action).collect();
        self.evaluate(work, slot, features, &actions, logits)
    }

    /// The whole evaluation compiled for AVX2: the kernels inline into it.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn evaluate_avx2(&self, work: &mut Workspace, slot: usize, features: &[f32], actions: &[Action], logits: &mut [f32]) -> [f32; VALUE_OUTPUTS] {
        self.evaluate_with::<AVX2>(work, slot, features, actions, logits)
    }

    /// The 128-bit kernels with AVX's encodings (and the plain loops vectorised for it).
    #[cfg(not(avx2_platform))]
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,sse4.2,popcnt")]
    unsafe fn evaluate_avx(&self, work: &mut Workspace, slot: usize, features: &[f32], actions: &[Action], logits: &mut [f32]) -> [f32; VALUE_OUTPUTS] {
        self.evaluate_with::<AVX>(work, slot, features, actions, logits)
    }

    #[inline(always)]
    fn evaluate_with<const K: u8>(&self, work: &mut Workspace, slot: usize, features: &[f32], actions: &[Action], logits: &mut [f32]) -> [f32; VALUE_OUTPUTS] {
        self.trunk::<K>(work, slot, features);
        let Workspace { activations, sums, active_pairs, .. } = work;
        let policy = &self.policy;
        let scale = 1.0 / 2f32.powi((policy.shift + ACTIVATION_SHIFT) as i32);
        // Row by row costs (active pairs) x (padded actions) / 8 madds; one dot product per
        // action costs (inputs / 16) madds and a horizontal sum.
        let by_rows = active_pairs.len() * policy.padded / LANES;
        let by_dots = actions.len() * (ceil_div(policy.inputs, 16) + 4);
        if by_rows < by_dots {
            sums.clear();
            sums.extend_from_slice(&policy.bias);
            add_pairs::<K>(sums, &policy.pairs, policy.padded, active_pairs);
            for (l, &a) in logits.iter_mut().zip(actions) {
                *l = sums[a as usize] as f32 * scale;
            }
        } else {
            for (l, &a) in logits.iter_mut().zip(actions) {
                *l = (policy.bias[a as usize] + dot::<K>(activations, policy.column(a as usize))) as f32 * scale;
            }
        }
        let value = &self.value;
        let scale = 1.0 / 2f32.powi((value.shift + ACTIVATION_SHIFT) as i32);
        [0, 1].map(|o| ((value.bias[o] + dot::<K>(activations, value.column(o))) as f32 * scale).tanh())
    }

    /// Leaves the last hidden layer's activations in `work.activations` (padded with zeros to a
    /// multiple of 16) and its active pairs in `work.active_pairs`.
    #[inline(always)]
    fn trunk<const K: u8>(&self, work: &mut Workspace, slot: usize, features: &[f32]) {
        let first = &self.hidden[0];
        if work.net != self.id {
            work.slots.clear();
            work.net = self.id;
        }
        if work.slots.len() <= slot {
            work.slots.resize(slot + 1, Accumulator::default());
        }
        let cache = &mut work.slots[slot];
        // The inputs that changed since the slot's last position, unless there are as many of
        // them as it had active ones: then the sums are computed afresh from the active inputs.
        let incremental = !cache.inputs.is_empty() && input_masks::<K, true>(&cache.inputs, features, &mut work.words) < cache.active.max(1);
        if incremental {
            work.incremental += 1;
        } else {
            input_masks::<K, false>(&[], features, &mut work.words);
            cache.sums.clear();
            cache.sums.extend_from_slice(&first.bias);
            cache.active = 0;
            work.refreshed += 1;
        }
        // Rows added or taken away whole, and rows scaled by their values (clamped).
        let (plus, minus, scaled) = (&mut work.plus, &mut work.minus, &mut work.scaled);
        plus.clear();
        minus.clear();
        scaled.clear();
        let mut active = cache.active as isize;
        for (w, &word) in work.words.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let i = 64 * w + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (old, new) = (if incremental { cache.inputs[i] } else { 0.0 }, features[i]);
                if old == 0.0 && new == 1.0 {
                    plus.push(i as u32);
                    active += 1;
                } else if old == 1.0 && new == 0.0 {
                    minus.push(i as u32);
                    active -= 1;
                } else {
                    let (old, new) = (old.clamp(-INPUT_LIMIT, INPUT_LIMIT), new.clamp(-INPUT_LIMIT, INPUT_LIMIT));
                    scaled.push((i as u32, old, new));
                    active += (new != 0.0) as isize - (old != 0.0) as isize;
                }
            }
        }
        cache.active = active as usize;
        add_rows::<K>(&mut cache.sums, first, plus, minus);
        scale_rows::<K>(&mut cache.sums, first, scaled);
        cache.inputs.clear();
        cache.inputs.extend_from_slice(features);
        activate(&cache.sums[..first.outputs], first.shift, ACTIVATION_SHIFT, &mut work.activations);
        for layer in &self.hidden[1..] {
            pairs_of(&work.activations, &mut work.active_pairs);
            work.sums.clear();
            work.sums.extend_from_slice(&layer.bias);
            add_pairs::<K>(&mut work.sums, &layer.pairs, layer.padded, &work.active_pairs);
            activate(&work.sums[..layer.outputs], layer.shift + ACTIVATION_SHIFT, ACTIVATION_SHIFT, &mut work.activations);
        }
        pairs_of(&work.activations, &mut work.active_pairs);
    }
}

/// Bit masks of the inputs, 64 a word, into `words`: with `DIFFER`, those whose value differs
/// bitwise between `old` and `new`; without, those of `new` that are not zero (`old` unread).
/// Returns how many bits are set: counting first spares listing the changes of a position
/// that will be computed afresh. Eight inputs at a time: one compare of the kernel's width for
/// each eight, the plain loop for the last few.
#[inline(always)]
fn input_masks<const K: u8, const DIFFER: bool>(old: &[f32], new: &[f32], words: &mut Vec<u64>) -> usize {
    assert!(!DIFFER || old.len() == new.len());
    let n = new.len();
    words.clear();
    words.resize(ceil_div(n, 64), 0);
    for c in (0..n).step_by(8) {
        let end = n.min(c + 8);
        let mask = if end == c + 8 { mask_of_eight::<K, DIFFER>(old, new, c) } else { mask_of_few::<DIFFER>(old, new, c, end) };
        words[c / 64] |= (mask as u64) << (c % 64);
    }
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// The mask bits of the eight inputs from `c` (all in `new`, and in `old` when `DIFFER`).
#[inline(always)]
fn mask_of_eight<const K: u8, const DIFFER: bool>(old: &[f32], new: &[f32], c: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: eight floats from `c` lie in `new` (and in `old`, as long); AVX2 only from
        // code compiled for it after the CPU was checked, SSE2 is in every x86-64.
        if K == AVX2 {
            return unsafe { avx2::mask_of_eight::<DIFFER>(old, new, c) };
        }
        #[cfg(not(avx2_platform))]
        {
            if K == SSE || K == AVX {
                return unsafe { sse::mask_of_eight::<DIFFER>(old, new, c) };
            }
        }
    }
    mask_of_few::<DIFFER>(old, new, c, c + 8)
}

/// The mask bits of the inputs `c..end`, one at a time.
#[inline(always)]
fn mask_of_few<const DIFFER: bool>(old: &[f32], new: &[f32], c: usize, end: usize) -> u32 {
    let mut bits = 0;
    for j in c..end {
        // The sign bit shifted out: +0.0 and -0.0 are both "no input".
        let set = if DIFFER { old[j].to_bits() != new[j].to_bits() } else { new[j].to_bits() << 1 != 0 };
        bits |= (set as u32) << (j - c);
    }
    bits
}

/// `sums += row` for every input in `plus` and `-= row` for every one in `minus`. The AVX2
/// kernel keeps a block of 64 sums in registers over all the rows (a fresh position adds 30
/// to 50 rows), so the sums are read and written once a block, not once a row.
#[inline(always)]
fn add_rows<const K: u8>(sums: &mut [i32], layer: &IntLayer, plus: &[u32], minus: &[u32]) {
    let padded = layer.padded;
    assert!(sums.len() == padded && padded % LANES == 0);
    assert!(plus.iter().chain(minus).all(|&i| (i as usize) < layer.inputs));
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX2 only from code compiled for it after the CPU was checked (AVX's SSE4.1
        // likewise), SSE2 is in every x86-64; every row read lies in `layer.rows` (checked
        // above) and every sum in `sums`.
        if K == AVX2 {
            return unsafe { avx2::add_rows(sums, &layer.rows, padded, plus, minus) };
        }
        #[cfg(not(avx2_platform))]
        {
            if K == AVX {
                return unsafe { sse::add_rows::<true>(sums, &layer.rows, padded, plus, minus) };
            }
            if K == SSE {
                return unsafe { sse::add_rows::<false>(sums, &layer.rows, padded, plus, minus) };
            }
        }
    }
    for &i in plus {
        for (s, &w) in sums.iter_mut().zip(layer.row(i as usize)) {
            *s += w as i32;
        }
    }
    for &i in minus {
        for (s, &w) in sums.iter_mut().zip(layer.row(i as usize)) {
            *s -= w as i32;
        }
    }
}

/// The first layer's sums after inputs scaled their rows: `+ round(new * w) - round(old * w)`
/// for each `(input, old, new)`, each term rounded on its own (so that adding a value and later
/// taking it away cancels exactly; |x| <= 31 and |w| < 2^15 keep every product below 2^20).
/// A row at a time (a block of sums kept in registers over all rows reads the rows scattered,
/// and measured slower); without AVX2, four rows at a time, so that the sums are read and
/// written once for four (Black Hole scales 55 rows an evaluation).
#[inline(always)]
fn scale_rows<const K: u8>(sums: &mut [i32], layer: &IntLayer, scaled: &[(u32, f32, f32)]) {
    let padded = layer.padded;
    assert!(sums.len() == padded && padded % LANES == 0);
    let row = |i: u32| &layer.row(i as usize)[..padded];
    #[allow(unused_mut)]
    let mut one_by_one = scaled;
    #[cfg(not(avx2_platform))]
    {
        #[cfg(target_arch = "x86_64")]
        {
            if K == AVX || K == SSE {
                let mut four = scaled.chunks_exact(4);
                for changes in &mut four {
                    let rows = [0, 1, 2, 3].map(|k| (row(changes[k].0), changes[k].1, changes[k].2));
                    // SAFETY: AVX only from code compiled for it after the CPU was checked, SSE2
                    // is in every x86-64; every row and `sums` are `padded` long, a multiple of 8.
                    unsafe {
                        if K == AVX {
                            avx::scale_rows(sums, rows)
                        } else {
                            sse::scale_rows(sums, rows)
                        }
                    }
                }
                one_by_one = four.remainder();
            }
        }
    }
    for &(i, old, new) in one_by_one {
        // A term of a zero value rounds to 0: an input that appears (every input of a position
        // computed afresh) or disappears costs one term, not two.
        if old == 0.0 {
            for (s, &w) in sums.iter_mut().zip(row(i)) {
                *s += round_to_int(new * w as f32);
            }
        } else if new == 0.0 {
            for (s, &w) in sums.iter_mut().zip(row(i)) {
                *s -= round_to_int(old * w as f32);
            }
        } else {
            for (s, &w) in sums.iter_mut().zip(row(i)) {
                *s += round_to_int(new * w as f32) - round_to_int(old * w as f32);
            }
        }
    }
}

/// [`scale_rows`] for tests: every kind of change, as the forward pass makes them.
#[cfg(test)]
fn update_rows<const K: u8>(sums: &mut [i32], layer: &IntLayer, plus: &[u32], minus: &[u32], scaled: &[(u32, f32, f32)]) {
    add_rows::<K>(sums, layer, plus, minus);
    scale_rows::<K>(sums, layer, scaled);
}

/// Adding 1.5 * 2^23 to an f32 below 2^22 in magnitude leaves its nearest integer (ties to
/// even) in the low bits of the sum: a rounding that vectorises.
const ROUNDER: f32 = 12_582_912.0;

#[inline(always)]
fn round_to_int(v: f32) -> i32 {
    (v + ROUNDER).to_bits() as i32 - ROUNDER.to_bits() as i32
}

/// ReLU of sums at scale `2^from`, as i16 activations at scale `2^to`, padded to a multiple of
/// 16 with zeros.
#[inline(always)]
fn activate(sums: &[i32], from: u32, to: u32, out: &mut Vec<i16>) {
    let n = sums.len();
    out.clear();
    out.resize(round_up(n, 16), 0);
    let out = &mut out[..n];
    if from >= to {
        let shift = from - to;
        let half = (1 << shift) >> 1;
        for i in 0..n {
            out[i] = ((sums[i] + half) >> shift).max(0).min(i16::MAX as i32) as i16;
        }
    } else {
        let shift = to - from;
        for i in 0..n {
            out[i] = (sums[i].max(0) as i64 * (1 << shift)).min(i16::MAX as i64) as i16;
        }
    }
}

/// Lists the pairs of activations `(2k, 2k + 1)` that are not both zero, packed. Every pair
/// is written and the count moves on only for an active one: half the units are off, in no
/// order a branch could learn (a mask of eight pairs whose bits are walked measured slower:
/// its loop's trip count is as unpredictable).
#[inline(always)]
fn pairs_of(activations: &[i16], active: &mut Vec<(u32, i32)>) {
    active.resize(activations.len() / 2, (0, 0));
    let mut n = 0;
    for (k, pair) in activations.chunks_exact(2).enumerate() {
        active[n] = (k as u32, (pair[0] as u16 as u32 | (pair[1] as u16 as u32) << 16) as i32);
        n += (pair[0] | pair[1] != 0) as usize;
    }
    active.truncate(n);
}

/// `sums[o] += a[2k] * pairs[k][o][0] + a[2k+1] * pairs[k][o][1]` for every active pair;
/// `sums` is `padded` long, a multiple of 8.
#[inline(always)]
fn add_pairs<const K: u8>(sums: &mut [i32], pairs: &[i16], padded: usize, active: &[(u32, i32)]) {
    assert!(sums.len() == padded && padded % LANES == 0);
    assert!(active.iter().all(|&(k, _)| (k as usize + 1) * padded * 2 <= pairs.len()));
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX2 only from code compiled for it after the CPU was checked, SSE2 is in
        // every x86-64; every row read lies in `pairs` (checked above) and every sum in `sums`.
        if K == AVX2 {
            return unsafe { avx2::add_pairs(sums, pairs, padded, active) };
        }
        #[cfg(not(avx2_platform))]
        {
            if K == SSE || K == AVX {
                return unsafe { sse::add_pairs(sums, pairs, padded, active) };
            }
        }
    }
    for &(k, packed) in active {
        let (a0, a1) = (packed as i16 as i32, (packed >> 16) as i16 as i32);
        let w = &pairs[k as usize * padded * 2..(k as usize + 1) * padded * 2];
        for (o, s) in sums.iter_mut().enumerate() {
            *s += a0 * w[2 * o] as i32 + a1 * w[2 * o + 1] as i32;
        }
    }
}

/// `sum of a[i] * w[i]`; both a multiple of 16 long.
#[inline(always)]
fn dot<const K: u8>(a: &[i16], w: &[i16]) -> i32 {
    let n = a.len().min(w.len());
    assert!(n % 16 == 0);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: as in `add_pairs`; both slices hold `n` items.
        if K == AVX2 {
            return unsafe { avx2::dot(&a[..n], &w[..n]) };
        }
        #[cfg(not(avx2_platform))]
        {
            if K == SSE || K == AVX {
                return unsafe { sse::dot(&a[..n], &w[..n]) };
            }
        }
    }
    dot_portable(&a[..n], &w[..n])
}

fn dot_portable(a: &[i16], w: &[i16]) -> i32 {
    a.iter().zip(w).map(|(&x, &y)| x as i32 * y as i32).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random_net(features: usize, hidden: &[usize], actions: usize, seed: u64) -> Mlp {
        let mut rng = Rng::new(seed);
        let mut dense = |i, o, scale: f32| {
            let mut l = Dense::zeros(i, o);
            for v in l.weights.iter_mut().chain(l.bias.iter_mut()) {
                *v = (rng.unit_f32() - 0.5) * scale;
            }
            l
        };
        let mut layers = Vec::new();
        let mut width = features;
        for &h in hidden {
            layers.push(dense(width, h, 1.0));
            width = h;
        }
        Mlp { game: "g".into(), hidden: layers, policy: dense(width, actions, 1.0), value: dense(width, 2, 0.3) }
    }

    fn random_features(rng: &mut Rng, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| match rng.below(10) {
                0..=5 => 0.0,
                6..=8 => 1.0,
                _ => rng.unit_f32() * 3.0 - 1.0,
            })
            .collect()
    }

    #[test]
    fn a_hand_computed_net_is_exact() {
        // One hidden unit: h = relu(1*2 + 0.5) = 2.5; logits = 2.5*[1,-1] + [0, 1]; v = tanh(2.5*[0.1,-0.1]).
        let net = Mlp {
            game: "g".into(),
            hidden: vec![Dense { inputs: 2, outputs: 1, weights: vec![1.0, 3.0], bias: vec![0.5] }],
            policy: Dense { inputs: 1, outputs: 2, weights: vec![1.0, -1.0], bias: vec![0.0, 1.0] },
            value: Dense { inputs: 1, outputs: 2, weights: vec![0.1, -0.1], bias: vec![0.0, 0.0] },
        };
        let mut reference = [0.0; 2];
        let v = net.forward_f32(&[2.0, 0.0], &mut reference);
        assert_eq!(reference, [2.5, -1.5]);
        assert!((v[0] - 0.25f32.tanh()).abs() < 1e-7 && (v[1] + 0.25f32.tanh()).abs() < 1e-7);
        let q = QuantNet::new(&net);
        let mut work = Workspace::default();
        let mut logits = [0.0; 2];
        let w = q.evaluate(&mut work, 0, &[2.0, 0.0], &[0, 1], &mut logits);
        assert_eq!(logits, [2.5, -1.5]);
        assert!((w[0] - v[0]).abs() < 1e-4 && (w[1] - v[1]).abs() < 1e-4, "{w:?}");
        assert_eq!(q.value(&mut work, 0, &[2.0, 0.0]), w, "the value alone is the same value");
    }

    #[test]
    fn integers_follow_the_f32_net_closely() {
        let net = random_net(70, &[40, 24], 30, 1);
        let q = QuantNet::new(&net);
        let mut rng = Rng::new(2);
        let mut work = Workspace::default();
        let actions: Vec<Action> = (0..30).collect();
        for _ in 0..50 {
            let x = random_features(&mut rng, 70);
            let mut reference = vec![0.0; 30];
            let v = net.forward_f32(&x, &mut reference);
            let mut logits = vec![0.0; 30];
            let w = q.evaluate(&mut work, 0, &x, &actions, &mut logits);
            for (a, b) in reference.iter().zip(&logits) {
                assert!((a - b).abs() < 0.02, "{a} vs {b}");
            }
            assert!((v[0] - w[0]).abs() < 0.01 && (v[1] - w[1]).abs() < 0.01, "{v:?} vs {w:?}");
        }
    }

    #[test]
    fn incremental_sums_equal_fresh_ones_and_any_action_subset_agrees() {
        let net = random_net(90, &[48, 32], 40, 3);
        let q = QuantNet::new(&net);
        let mut rng = Rng::new(4);
        let (mut kept, mut fresh) = (Workspace::default(), Workspace::default());
        let mut x = random_features(&mut rng, 90);
        let all: Vec<Action> = (0..40).collect();
        for step in 0..200 {
            // Change a few inputs, as a move does.
            for _ in 0..rng.below(6) {
                let i = rng.below(90);
                x[i] = if x[i] == 0.0 { 1.0 } else if rng.below(2) == 0 { 0.0 } else { rng.unit_f32() * 2.0 };
            }
            let mut a = vec![0.0; 40];
            let va = q.evaluate(&mut kept, 1, &x, &all, &mut a);
            fresh = Workspace { slots: Vec::new(), ..fresh };
            let mut b = vec![0.0; 40];
            let vb = q.evaluate(&mut fresh, 1, &x, &all, &mut b);
            assert_eq!((va, &a), (vb, &b), "step {step}");
            // A few actions only: the same logits (the other way of computing the head).
            let some: Vec<Action> = vec![3, 17, 39];
            let mut c = vec![0.0; 3];
            q.evaluate(&mut fresh, 1, &x, &some, &mut c);
            assert_eq!(c, vec![a[3], a[17], a[39]]);
        }
        assert!(kept.incremental > 100, "most positions were updated, not rebuilt: {}", kept.incremental);
    }

    #[test]
    fn the_portable_code_gives_the_vector_codes_numbers() {
        let net = random_net(120, &[72, 40], 50, 11);
        let q = QuantNet::new(&net);
        let mut rng = Rng::new(12);
        let (mut vector, mut portable, mut sse, mut avx) = (Workspace::default(), Workspace::default(), Workspace::default(), Workspace::default());
        let all: Vec<Action> = (0..50).collect();
        for _ in 0..30 {
            let x = random_features(&mut rng, 120);
            let (mut a, mut b) = (vec![0.0; 50], vec![0.0; 50]);
            let va = q.evaluate(&mut vector, 0, &x, &all, &mut a);
            let vb = q.evaluate_with::<PLAIN>(&mut portable, 0, &x, &all, &mut b);
            assert_eq!((va, &a), (vb, &b));
            #[cfg(target_arch = "x86_64")]
            {
                let mut c = vec![0.0; 50];
                let vc = q.evaluate_with::<SSE>(&mut sse, 0, &x, &all, &mut c);
                assert_eq!((vc, &c), (vb, &b), "the 128-bit kernels");
                if crate::cpu::detected() >= Cpu::Avx {
                    let vd = unsafe { q.evaluate_avx(&mut avx, 0, &x, &all, &mut c) };
                    assert_eq!((vd, &c), (vb, &b), "the 128-bit kernels with AVX");
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,sse4.2,popcnt")]
    unsafe fn input_masks_avx<const DIFFER: bool>(old: &[f32], new: &[f32], words: &mut Vec<u64>) -> usize {
        input_masks::<AVX, DIFFER>(old, new, words)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn input_masks_avx2<const DIFFER: bool>(old: &[f32], new: &[f32], words: &mut Vec<u64>) -> usize {
        input_masks::<AVX2, DIFFER>(old, new, words)
    }

    /// Every kernel's masks are the plain loop's, for lengths with and without a tail of fewer
    /// than eight, with -0.0 (no input, but a change of bits) among the values.
    #[test]
    fn input_masks_agree_on_every_kernel() {
        let mut rng = Rng::new(21);
        for n in [8, 13, 64, 71, 455] {
            for _ in 0..20 {
                let mut old = random_features(&mut rng, n);
                let mut new = old.clone();
                for _ in 0..rng.below(n / 2 + 1) {
                    new[rng.below(n)] = random_features(&mut rng, 1)[0];
                }
                old[rng.below(n)] = -0.0;
                new[rng.below(n)] = -0.0;
                let run = |f: &dyn Fn(&mut Vec<u64>) -> usize| {
                    let mut words = Vec::new();
                    let count = f(&mut words);
                    (count, words)
                };
                let plain = (run(&|w| input_masks::<PLAIN, true>(&old, &new, w)), run(&|w| input_masks::<PLAIN, false>(&[], &new, w)));
                let expected = new.iter().zip(&old).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
                assert_eq!(plain.0 .0, expected);
                assert_eq!(plain.1 .0, new.iter().filter(|v| **v != 0.0).count());
                #[cfg(target_arch = "x86_64")]
                {
                    assert_eq!((run(&|w| input_masks::<SSE, true>(&old, &new, w)), run(&|w| input_masks::<SSE, false>(&[], &new, w))), plain, "sse, {n} inputs");
                    if crate::cpu::detected() >= Cpu::Avx {
                        let avx = unsafe { (run(&|w| input_masks_avx::<true>(&old, &new, w)), run(&|w| input_masks_avx::<false>(&[], &new, w))) };
                        assert_eq!(avx, plain, "avx, {n} inputs");
                    }
                    if crate::cpu::detected() >= Cpu::Avx2 {
                        let avx2 = unsafe { (run(&|w| input_masks_avx2::<true>(&old, &new, w)), run(&|w| input_masks_avx2::<false>(&[], &new, w))) };
                        assert_eq!(avx2, plain, "avx2, {n} inputs");
                    }
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,sse4.2,popcnt")]
    unsafe fn update_rows_avx(sums: &mut [i32], layer: &IntLayer, plus: &[u32], minus: &[u32], scaled: &[(u32, f32, f32)]) {
        update_rows::<AVX>(sums, layer, plus, minus, scaled)
    }

    /// Each kernel's first-layer update, on a layer of 72 sums (a block and a part): every kind
    /// of change gives the plain code's sums, and a value added then taken away cancels exactly.
    #[test]
    fn first_layer_updates_agree_and_cancel() {
        let mut rng = Rng::new(13);
        let mut dense = Dense::zeros(6, 72);
        for w in dense.weights.iter_mut() {
            *w = rng.unit_f32() * 2.0 - 1.0;
        }
        let layer = IntLayer::new(&dense, 0, INPUT_LIMIT as f64);
        let start: Vec<i32> = (0..72).map(|o| o * 1000 - 30000).collect();
        // Five of each kind: four rows at a time and one alone.
        let scaled = [(2, -0.7137, 3.25), (0, 0.0, 0.3), (5, 1.0, 0.5), (3, 0.25, 0.0), (1, -31.0, 31.0)];
        let changes: (&[u32], &[u32], &[(u32, f32, f32)]) = (&[0, 4, 2, 3, 1], &[1, 5, 3, 2, 4], &scaled);
        let mut plain = start.clone();
        update_rows::<PLAIN>(&mut plain, &layer, changes.0, changes.1, changes.2);
        assert_ne!(plain, start);
        let mut kernels: Vec<(&str, Vec<i32>)> = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            let mut sums = start.clone();
            update_rows::<SSE>(&mut sums, &layer, changes.0, changes.1, changes.2);
            kernels.push(("sse", sums));
            if crate::cpu::detected() >= Cpu::Avx {
                let mut sums = start.clone();
                unsafe { update_rows_avx(&mut sums, &layer, changes.0, changes.1, changes.2) };
                kernels.push(("avx", sums));
            }
            if crate::cpu::detected() >= Cpu::Avx2 {
                let mut sums = start.clone();
                update_rows::<AVX2>(&mut sums, &layer, changes.0, changes.1, changes.2);
                kernels.push(("avx2", sums));
            }
        }
        for (name, sums) in kernels {
            assert_eq!(sums, plain, "{name}");
        }
        let back: Vec<(u32, f32, f32)> = scaled.iter().map(|&(i, old, new)| (i, new, old)).collect();
        update_rows::<PLAIN>(&mut plain, &layer, changes.1, changes.0, &back);
        assert_eq!(plain, start, "adding values and taking them away cancels exactly");
    }
}
