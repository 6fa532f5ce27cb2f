//! Writing the compact weight format (see `nn`): f32, f16 or per-output int8, and the dense
//! text form embedded in exported bots; and the net's forward pass in f32, the reference the
//! integer one (`infer`) is measured against. Used by training, export and tests, never by a
//! submission.

use crate::nn::{fnv1a64, Dense, IntModel, Mlp, Storage, WeightsError, F16_MAX, FORMAT_VERSION, MAGIC, VALUE_OUTPUTS};
use std::fmt;

impl Dense {
    /// `out = bias + x W` in f32 (the reference arithmetic).
    pub fn forward_f32(&self, x: &[f32], out: &mut [f32]) {
        debug_assert_eq!(x.len(), self.inputs);
        out.copy_from_slice(&self.bias);
        for (i, &xi) in x.iter().enumerate() {
            if xi != 0.0 {
                let row = &self.weights[i * self.outputs..(i + 1) * self.outputs];
                for (o, &w) in out.iter_mut().zip(row) {
                    *o += xi * w;
                }
            }
        }
    }
}

impl Mlp {
    /// The net in f32, as trained: `policy` gets every logit, the return value is
    /// `[mover, other]` in [-1, 1]. Searches run the integer net of `infer`; this is what it is
    /// measured against.
    pub fn forward_f32(&self, features: &[f32], policy: &mut [f32]) -> [f32; VALUE_OUTPUTS] {
        let trunk = self.trunk_f32(features);
        self.policy.forward_f32(&trunk, policy);
        let mut value = [0.0; VALUE_OUTPUTS];
        self.value.forward_f32(&trunk, &mut value);
        value.map(f32::tanh)
    }

    /// The last hidden layer's activations in f32 (the features themselves without hidden layers).
    pub fn trunk_f32(&self, features: &[f32]) -> Vec<f32> {
        let mut a = features.to_vec();
        for layer in &self.hidden {
            let mut b = vec![0.0; layer.outputs];
            layer.forward_f32(&a, &mut b);
            a = b.into_iter().map(|v| v.max(0.0)).collect();
        }
        a
    }
}

/// f32 to IEEE half, rounding to nearest even (values past `F16_MAX` become infinity).
pub fn f32_to_f16(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let mant = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// Why weights cannot be stored in the asked format.
#[derive(Clone, Debug, PartialEq)]
pub enum ExportError {
    NotFinite { layer: String, index: usize },
    F16Overflow { layer: String, value: f32 },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::NotFinite { layer, index } => write!(f, "{layer} holds a NaN or infinite weight (at {index}): the checkpoint is broken"),
            ExportError::F16Overflow { layer, value } => {
                write!(f, "{layer} holds {value}, beyond the f16 range (±{F16_MAX}); export as f32 or i8")
            }
        }
    }
}

impl std::error::Error for ExportError {}

/// Descriptions of a net and its file, for reports.
pub trait Describe {
    fn hidden_widths(&self) -> Vec<usize>;
    fn num_parameters(&self) -> usize;
}

impl Describe for Mlp {
    fn hidden_widths(&self) -> Vec<usize> {
        self.hidden.iter().map(|l| l.outputs).collect()
    }

    fn num_parameters(&self) -> usize {
        self.layers().map(|l| l.weights.len() + l.bias.len()).sum()
    }

}

/// The short name of a storage: `f32`, `f16`, `i10`.
pub fn storage_name(storage: Storage) -> String {
    match storage {
        Storage::F32 => "f32".into(),
        Storage::F16 => "f16".into(),
        Storage::Int { bits } => format!("i{bits}"),
        Storage::Coded { bits } => format!("i{bits}, range-coded"),
    }
}

/// The short name of a layout (one storage per hidden layer, then optionally the two heads'):
/// `i8, range-coded` when the hidden layers share one, else each layer's bits in order
/// (`i6/i8, heads i8, range-coded`).
pub fn layout_name(storages: &[Storage], hidden_layers: usize) -> String {
    let (hidden, heads) = storages.split_at(hidden_layers.min(storages.len()));
    let coded = storages.iter().any(|s| matches!(s, Storage::Coded { .. }));
    let short = |s: &Storage| match s {
        Storage::Int { bits } | Storage::Coded { bits } => format!("i{bits}"),
        other => storage_name(*other),
    };
    if hidden.windows(2).all(|w| w[0] == w[1]) && heads.is_empty() {
        return hidden.first().map_or("f32".into(), |s| storage_name(*s));
    }
    let mut name = hidden.iter().map(short).collect::<Vec<_>>().join("/");
    if let Some(head) = heads.first() {
        name += &format!(", heads {}", short(head));
    }
    if coded {
        name += ", range-coded";
    }
    name
}

/// How a weight file stores its hidden layers, from its header.
pub fn stored_as(bytes: &[u8]) -> Option<Storage> {
    let name_len = *bytes.get(6)? as usize;
    Storage::from_tag([*bytes.get(7 + name_len)?, *bytes.get(8 + name_len)?])
}

/// Serialises `net` in the compact format with f32 weights.
pub fn to_bytes(net: &Mlp) -> Vec<u8> {
    to_bytes_as(net, Storage::F32).expect("f32 stores any finite net")
}

/// Serialises the net with its hidden layers stored as `storage` (the heads, small and
/// decisive, stay f16 when the hidden layers are integers); fails on a value the storage
/// cannot hold instead of clamping it.
pub fn to_bytes_as(net: &Mlp, storage: Storage) -> Result<Vec<u8>, ExportError> {
    write(net, &vec![storage; net.hidden.len()], None)
}

/// Serialises the net with each layer in a storage of its own: `storages[k]` for hidden layer
/// `k`, then optionally the policy head's and the value head's (else the heads stay f16 under
/// integer hidden layers), so the bits go where the net's outputs feel them. Integer weights
/// are rounded up or down to fit `inputs` (a sample of the net's input vectors, e.g. encoded
/// positions from games) instead of to the nearest value: each output unit's rounding errors
/// are chosen to cancel on that data (greedy descent on `e^T C e`, C the second moment of the
/// layer's inputs under the already quantised layers before it). The error per weight stays
/// within one step; the net's outputs move much less.
pub fn to_bytes_calibrated_by_layer(net: &Mlp, storages: &[Storage], inputs: &[Vec<f32>]) -> Result<Vec<u8>, ExportError> {
    let layers = net.hidden.len();
    assert!(storages.len() == layers || storages.len() == layers + 2, "one storage per hidden layer, then optionally one per head");
    let mut per_layer: Vec<Vec<Vec<f32>>> = Vec::with_capacity(layers + 2);
    let mut current: Vec<Vec<f32>> = inputs.to_vec();
    for (layer, storage) in net.hidden.iter().zip(storages) {
        per_layer.push(current.clone());
        if let Some(bits) = storage.int_bits() {
            // The next layer sees this layer as it will be stored.
            let mut stored = layer.clone();
            let (scales, q) = quantise_layer(layer, bits, Some(&current));
            set_quantised(&mut stored, &scales, &q);
            current = current
                .iter()
                .map(|x| {
                    let mut h = vec![0.0; layer.outputs];
                    stored.forward_f32(x, &mut h);
                    h.iter().map(|v| v.max(0.0)).collect()
                })
                .collect();
        }
    }
    // Both heads read the last hidden layer as stored.
    per_layer.push(current.clone());
    per_layer.push(current);
    write(net, storages, Some(&per_layer))
}

/// Range-coded integers of these widths, one per hidden layer of a net with `hidden_layers`,
/// then optionally one per head (policy, value): the layout `export --bits` and
/// `net.train_bits` name. Why not, for a list of another length or a width outside 2..=16.
pub fn coded_layout(bits: &[u8], hidden_layers: usize) -> Result<Vec<Storage>, String> {
    if bits.len() != hidden_layers && bits.len() != hidden_layers + 2 {
        return Err(format!("takes {hidden_layers} widths (one per hidden layer) or {} (then the two heads), not {}", hidden_layers + 2, bits.len()));
    }
    if let Some(b) = bits.iter().find(|b| !(2..=16).contains(*b)) {
        return Err(format!("{b}: each width must be 2 to 16 bits"));
    }
    Ok(bits.iter().map(|&bits| Storage::Coded { bits }).collect())
}

/// `d` rounded as integer storage of `bits` holds it (nearest rounding, one scale per output
/// unit), back in f32: what a file of that storage keeps without the data-aware rounding, and
/// so what quantisation-aware training trains.
pub fn round_as_stored(d: &mut Dense, bits: u8) {
    let (scales, q) = quantise_layer(d, bits, None);
    set_quantised(d, &scales, &q);
}

/// `d`'s weights set to the integers `q` at their output unit's scale.
fn set_quantised(d: &mut Dense, scales: &[f32], q: &[i32]) {
    for (i, w) in d.weights.iter_mut().enumerate() {
        *w = q[i] as f32 * scales[i % d.outputs];
    }
}

/// Per-output scales and the integer weights of a hidden layer: nearest rounding, or, with a
/// sample of the layer's inputs, the data-aware rounding of [`to_bytes_calibrated_by_layer`].
fn quantise_layer(l: &crate::nn::Dense, bits: u8, inputs: Option<&[Vec<f32>]>) -> (Vec<f32>, Vec<i32>) {
    let (n, m) = (l.inputs, l.outputs);
    let max_q = Storage::int_max(bits) as f32;
    let scales: Vec<f32> = (0..m)
        .map(|o| {
            let max = (0..n).map(|i| l.weights[i * m + o].abs()).fold(0.0f32, f32::max);
            if max > 0.0 { max / max_q } else { 1.0 }
        })
        .collect();
    let mut q: Vec<i32> = l.weights.iter().enumerate().map(|(i, &w)| (w / scales[i % m]).round() as i32).collect();
    if let Some(xs) = inputs {
        // Second moment of the inputs, C[i][j] = sum over samples of x_i x_j.
        let mut c = vec![0.0f64; n * n];
        for x in xs {
            let nz: Vec<(usize, f64)> = x.iter().enumerate().filter(|(_, &v)| v != 0.0).map(|(i, &v)| (i, v as f64)).collect();
            for &(i, a) in &nz {
                for &(j, b) in &nz {
                    c[i * n + j] += a * b;
                }
            }
        }
        for o in 0..m {
            let target: Vec<f64> = (0..n).map(|i| (l.weights[i * m + o] / scales[o]) as f64).collect();
            let mut err: Vec<f64> = (0..n).map(|i| q[i * m + o] as f64 - target[i]).collect();
            let mut ce: Vec<f64> = (0..n).map(|i| (0..n).map(|j| c[i * n + j] * err[j]).sum()).collect();
            for _ in 0..4 {
                let mut changed = false;
                for i in 0..n {
                    // Try the other way of rounding this weight.
                    let d = if err[i] > 0.0 { -1.0 } else { 1.0 };
                    let alt = q[i * m + o] as f64 + d;
                    if alt.abs() > max_q as f64 || 2.0 * d * ce[i] + d * d * c[i * n + i] >= -1e-12 {
                        continue;
                    }
                    q[i * m + o] = alt as i32;
                    err[i] += d;
                    for j in 0..n {
                        ce[j] += c[j * n + i] * d;
                    }
                    changed = true;
                }
                if !changed {
                    break;
                }
            }
        }
    }
    debug_assert!(q.iter().all(|v| v.unsigned_abs() as f32 <= max_q));
    (scales, q)
}

/// The encoder matching [`crate::nn::RangeDecoder`] (LZMA's range coder: carries propagate
/// through a cache byte and a count of pending 0xFF bytes).
#[derive(Default)]
struct RangeEncoder {
    low: u64,
    range: u32,
    cache: u8,
    pending: u64,
    out: Vec<u8>,
    started: bool,
}

impl RangeEncoder {
    fn bit(&mut self, prob: &mut u16, one: bool) {
        if !self.started {
            (self.range, self.pending, self.started) = (u32::MAX, 1, true);
        }
        let bound = (self.range >> 11) * *prob as u32;
        if one {
            self.low += bound as u64;
            self.range -= bound;
            *prob -= *prob >> 5;
        } else {
            self.range = bound;
            *prob += (2048 - *prob) >> 5;
        }
        while self.range < 1 << 24 {
            self.range <<= 8;
            self.shift_low();
        }
    }
    fn shift_low(&mut self) {
        if self.low < 0xFF00_0000 || self.low >= 1 << 32 {
            let carry = (self.low >> 32) as u8;
            let mut byte = self.cache;
            loop {
                self.out.push(byte.wrapping_add(carry));
                byte = 0xFF;
                self.pending -= 1;
                if self.pending == 0 {
                    break;
                }
            }
            self.cache = (self.low >> 24) as u8;
        }
        self.pending += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }
    fn finish(mut self) -> Vec<u8> {
        if !self.started {
            return Vec::new();
        }
        for _ in 0..5 {
            self.shift_low();
        }
        self.out
    }
}

/// Writes `q` as [`IntModel::decode`] reads it.
fn encode_int(model: &mut IntModel, e: &mut RangeEncoder, q: i32) {
    e.bit(&mut model.zero, q != 0);
    if q == 0 {
        return;
    }
    e.bit(&mut model.sign, q < 0);
    let m = q.unsigned_abs();
    let n = (31 - m.leading_zeros()) as usize;
    let max_length = model.length.len() - 2;
    for k in 0..n.min(max_length) {
        e.bit(&mut model.length[k], true);
    }
    if n < max_length {
        e.bit(&mut model.length[n], false);
    }
    for j in (0..n).rev() {
        e.bit(&mut model.mantissa[n][j], (m >> j) & 1 == 1);
    }
}

fn write(net: &Mlp, storages: &[Storage], calibration: Option<&[Vec<Vec<f32>>]>) -> Result<Vec<u8>, ExportError> {
    // The header names the first hidden layer's storage; each layer names its own.
    let storage = storages.first().copied().unwrap_or(Storage::F32);
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(net.game.len() as u8);
    out.extend_from_slice(net.game.as_bytes());
    out.extend_from_slice(&storage.tag());
    out.extend_from_slice(&(net.num_features() as u32).to_le_bytes());
    out.extend_from_slice(&(net.num_actions() as u32).to_le_bytes());
    out.push(net.hidden.len() as u8);
    for l in &net.hidden {
        out.extend_from_slice(&(l.outputs as u32).to_le_bytes());
    }
    for (k, l) in net.layers().enumerate() {
        let name = || match k {
            k if k < net.hidden.len() => format!("hidden layer {k}"),
            k if k == net.hidden.len() => "the policy head".to_string(),
            _ => "the value head".to_string(),
        };
        if let Some(index) = l.weights.iter().chain(&l.bias).position(|v| !v.is_finite()) {
            return Err(ExportError::NotFinite { layer: name(), index });
        }
        // Heads, small and decisive, stay f16 under integer hidden layers unless named.
        let layer_storage = match storages.get(k).copied() {
            Some(named) => named,
            None if k < net.hidden.len() => storage,
            None => match storage {
                Storage::Int { .. } | Storage::Coded { .. } => Storage::F16,
                other => other,
            },
        };
        out.extend_from_slice(&layer_storage.tag());
        match layer_storage {
            Storage::F32 => l.weights.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            Storage::F16 => {
                if let Some(&value) = l.weights.iter().find(|v| v.abs() > F16_MAX) {
                    return Err(ExportError::F16Overflow { layer: name(), value });
                }
                l.weights.iter().for_each(|&v| out.extend_from_slice(&f32_to_f16(v).to_le_bytes()));
            }
            Storage::Int { bits } => {
                let (scales, q) = quantise_layer(l, bits, calibration.map(|c| &c[k][..]));
                scales.iter().for_each(|s| out.extend_from_slice(&s.to_le_bytes()));
                let (mut acc, mut held) = (0u32, 0u32);
                for &v in &q {
                    acc |= ((v as u32) & ((1 << bits) - 1)) << held;
                    held += bits as u32;
                    while held >= 8 {
                        out.push(acc as u8);
                        acc >>= 8;
                        held -= 8;
                    }
                }
                if held > 0 {
                    out.push(acc as u8);
                }
            }
            Storage::Coded { bits } => {
                let (scales, q) = quantise_layer(l, bits, calibration.map(|c| &c[k][..]));
                scales.iter().for_each(|s| out.extend_from_slice(&s.to_le_bytes()));
                let mut encoder = RangeEncoder::default();
                let mut model = IntModel::new(bits);
                for &v in &q {
                    encode_int(&mut model, &mut encoder, v);
                }
                let code = encoder.finish();
                out.extend_from_slice(&(code.len() as u32).to_le_bytes());
                out.extend_from_slice(&code);
            }
        }
        l.bias.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    }
    let sum = fnv1a64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}


/// Reshaping weights for training (`--init`): never needed by a submission, so it lives here.
impl Mlp {
    /// The same net reading `inputs` features, the ones past its own with zero weights: it
    /// computes what it computed before, and training can start using the new inputs. For a
    /// game whose features were extended at the end (Black Hole's hole structure).
    pub fn with_inputs(mut self, inputs: usize) -> Result<Mlp, WeightsError> {
        let have = self.num_features();
        let first = match self.hidden.first_mut() {
            Some(v) => v,
            None => {
                return Err(WeightsError::ShapeMismatch("a net without hidden layers cannot be widened".into()));
            }
        };
        if inputs < have {
            return Err(WeightsError::ShapeMismatch(format!("the net reads {have} features, more than {inputs}")));
        }
        // Input-major weights: the new inputs' rows go at the end.
        first.weights.resize(inputs * first.outputs, 0.0);
        first.inputs = inputs;
        Ok(self)
    }

    /// The same net with wider hidden layers (`widths`, one per layer, none narrower): each new
    /// unit gets small random incoming weights (from `seed`) and zero outgoing ones, so the net
    /// computes what it computed before, and training grows the new units from there (the
    /// function-preserving widening of Net2Net, Chen, Goodfellow and Shlens, 2016).
    pub fn with_hidden(mut self, widths: &[usize], seed: u64) -> Result<Mlp, WeightsError> {
        let have: Vec<usize> = self.hidden.iter().map(|d| d.outputs).collect();
        if widths.len() != have.len() || widths.iter().zip(&have).any(|(w, h)| w < h) {
            return Err(WeightsError::ShapeMismatch(format!("hidden layers {have:?} cannot grow to {widths:?}")));
        }
        let mut rng = crate::rng::Rng::new(seed);
        for k in 0..self.hidden.len() {
            let layer = &mut self.hidden[k];
            let (inputs, old, new) = (layer.inputs, layer.outputs, widths[k]);
            // He-style scale over the fan-in, halved: the new units start active but small.
            let scale = 0.5 * (6.0 / inputs as f32).sqrt();
            let mut weights = Vec::with_capacity(inputs * new);
            for i in 0..inputs {
                weights.extend_from_slice(&layer.weights[i * old..(i + 1) * old]);
                weights.extend((old..new).map(|_| scale * (2.0 * (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 1.0)));
            }
            layer.weights = weights;
            layer.bias.resize(new, 0.0);
            layer.outputs = new;
            // The layers reading this one: zero rows for the new units (input-major weights).
            let readers: Vec<&mut Dense> = match self.hidden.get_mut(k + 1) {
                Some(next) => vec![next],
                None => vec![&mut self.policy, &mut self.value],
            };
            for next in readers {
                next.weights.resize(new * next.outputs, 0.0);
                next.inputs = new;
            }
        }
        Ok(self)
    }

    /// The same net with narrower hidden layers (`widths`, one per layer; a layer asked to stay
    /// as wide or grow is left as it is): a wide net pruned into a faster one. Each unit dropped
    /// leaves its mean activation on `samples` (feature vectors of real positions) in the next
    /// layer's biases, so what dropping it changes there is its activation's deviation from that
    /// mean times its outgoing weights; each narrowed layer keeps the units for which that change
    /// is largest on the samples (the spread of the activation times the size of the outgoing
    /// weights). So the net computes nearly what it did, and training starts from its play.
    pub fn narrowed(mut self, widths: &[usize], samples: &[Vec<f32>]) -> Result<Mlp, WeightsError> {
        let have: Vec<usize> = self.hidden.iter().map(|d| d.outputs).collect();
        if widths.len() != have.len() || widths.contains(&0) {
            return Err(WeightsError::ShapeMismatch(format!("hidden layers {have:?} cannot narrow to {widths:?}")));
        }
        if samples.is_empty() || samples.iter().any(|s| s.len() != self.num_features()) {
            return Err(WeightsError::ShapeMismatch(format!("narrowing needs positions with {} features each", self.num_features())));
        }
        for k in 0..self.hidden.len() {
            let width = self.hidden[k].outputs;
            if widths[k] >= width {
                continue;
            }
            // Mean and spread of each unit's activation over the positions.
            let (mut sum, mut squares) = (vec![0.0f64; width], vec![0.0f64; width]);
            for features in samples {
                let mut a = features.clone();
                for layer in &self.hidden[..=k] {
                    let mut b = vec![0.0; layer.outputs];
                    layer.forward_f32(&a, &mut b);
                    a = b.into_iter().map(|v| v.max(0.0)).collect();
                }
                for (u, &v) in a.iter().enumerate() {
                    sum[u] += v as f64;
                    squares[u] += (v as f64) * (v as f64);
                }
            }
            let n = samples.len() as f64;
            let mean: Vec<f64> = sum.iter().map(|s| s / n).collect();
            let spread: Vec<f64> = squares.iter().zip(&mean).map(|(q, m)| (q / n - m * m).max(0.0).sqrt()).collect();
            // Each reader's outgoing sizes relative to their typical size, so that the value
            // head's two outputs weigh as much as the policy head's many.
            let readers: Vec<&Dense> = match self.hidden.get(k + 1) {
                Some(next) => vec![next],
                None => vec![&self.policy, &self.value],
            };
            let mut outgoing = vec![0.0f64; width];
            for reader in &readers {
                let norms: Vec<f64> = (0..width)
                    .map(|u| reader.weights[u * reader.outputs..(u + 1) * reader.outputs].iter().map(|&w| (w as f64) * (w as f64)).sum::<f64>().sqrt())
                    .collect();
                let typical = (norms.iter().map(|v| v * v).sum::<f64>() / width as f64).sqrt().max(1e-12);
                outgoing.iter_mut().zip(&norms).for_each(|(o, v)| *o += v / typical);
            }
            let mut order: Vec<usize> = (0..width).collect();
            order.sort_by(|&a, &b| (spread[b] * outgoing[b]).total_cmp(&(spread[a] * outgoing[a])).then(a.cmp(&b)));
            let mut keep = order[..widths[k]].to_vec();
            keep.sort_unstable();
            let layer = &mut self.hidden[k];
            let inputs = layer.inputs;
            layer.weights = (0..inputs).flat_map(|i| keep.iter().map(move |&u| (i, u))).map(|(i, u)| layer.weights[i * width + u]).collect();
            layer.bias = keep.iter().map(|&u| layer.bias[u]).collect();
            layer.outputs = keep.len();
            let readers: Vec<&mut Dense> = match self.hidden.get_mut(k + 1) {
                Some(next) => vec![next],
                None => vec![&mut self.policy, &mut self.value],
            };
            for reader in readers {
                let outs = reader.outputs;
                for u in (0..width).filter(|u| keep.binary_search(u).is_err()) {
                    for (o, b) in reader.bias.iter_mut().enumerate() {
                        *b += (mean[u] * reader.weights[u * outs + o] as f64) as f32;
                    }
                }
                reader.weights = keep.iter().flat_map(|&u| reader.weights[u * outs..(u + 1) * outs].to_vec()).collect();
                reader.inputs = keep.len();
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer with fixed, varied weights (a different pattern for each `seed`).
    fn dense(inputs: usize, outputs: usize, seed: f32) -> Dense {
        Dense {
            inputs,
            outputs,
            weights: (0..inputs * outputs).map(|i| ((i as f32 + seed) * 0.37).sin()).collect(),
            bias: (0..outputs).map(|o| (o as f32 * 0.11 + seed).cos() * 0.1).collect(),
        }
    }

    /// Units whose activation never varies are the ones dropped, and dropping them changes
    /// nothing: their mean moves into the next layer's biases.
    #[test]
    fn narrowing_drops_the_constant_units_and_keeps_the_outputs() {
        let mut net = Mlp { game: "g".into(), hidden: vec![dense(3, 5, 1.0), dense(5, 4, 2.0)], policy: dense(4, 6, 3.0), value: dense(4, 2, 4.0) };
        // Units 1 and 3 of the first layer read nothing: constant 0.7 and constant 0 (dead).
        for u in [1, 3] {
            (0..3).for_each(|i| net.hidden[0].weights[i * 5 + u] = 0.0);
        }
        net.hidden[0].bias[1] = 0.7;
        net.hidden[0].bias[3] = -0.2;
        let samples: Vec<Vec<f32>> = (0..40).map(|s| (0..3).map(|i| ((s * 3 + i) as f32 * 0.913).sin()).collect()).collect();
        let narrow = net.clone().narrowed(&[3, 4], &samples).unwrap();
        narrow.validate().unwrap();
        assert_eq!(narrow.hidden.iter().map(|d| d.outputs).collect::<Vec<_>>(), [3, 4]);
        let (mut before, mut after) = ([0.0; 6], [0.0; 6]);
        for x in &samples {
            let (v, w) = (net.forward_f32(x, &mut before), narrow.forward_f32(x, &mut after));
            assert!(v.iter().zip(&w).chain(before.iter().zip(&after)).all(|(a, b)| (a - b).abs() < 1e-5), "{v:?} {w:?}");
        }
        // The varying units are kept in their order: unit 0's incoming weights are the first column.
        assert_eq!(narrow.hidden[0].weights[0], net.hidden[0].weights[0]);
        assert_eq!(narrow.hidden[0].weights[2], net.hidden[0].weights[4]);
        // Dropping a varying unit changes the outputs; a wider request leaves a layer alone.
        let narrower = net.clone().narrowed(&[2, 9], &samples).unwrap();
        assert_eq!(narrower.hidden[1].outputs, 4);
        assert!(samples.iter().any(|x| narrower.forward_f32(x, &mut after) != net.forward_f32(x, &mut before)));
        assert!(net.clone().narrowed(&[3], &samples).is_err() && net.clone().narrowed(&[3, 4], &[]).is_err() && net.narrowed(&[0, 4], &samples).is_err());
    }

    /// A widened net ignores its new inputs (their weights are zero) and still reads the old ones.
    #[test]
    fn a_widened_net_computes_what_it_did() {
        let net = Mlp { game: "g".into(), hidden: vec![dense(5, 4, 1.0), dense(4, 3, 2.0)], policy: dense(3, 6, 3.0), value: dense(3, 2, 4.0) };
        let wide = net.clone().with_inputs(8).unwrap();
        wide.validate().unwrap();
        assert_eq!(wide.num_features(), 8);
        let x = [0.3, -1.0, 0.0, 2.0, 0.5];
        let (mut before, mut after) = ([0.0; 6], [0.0; 6]);
        let v = net.forward_f32(&x, &mut before);
        for extra in [[0.0, 0.0, 0.0], [1.0, -2.0, 0.7]] {
            let wide_x: Vec<f32> = x.iter().chain(&extra).copied().collect();
            assert_eq!(wide.forward_f32(&wide_x, &mut after), v);
            assert_eq!(after, before);
        }
        assert!(net.clone().with_inputs(4).is_err(), "narrowing would drop weights");

        let grown = net.clone().with_hidden(&[7, 3], 1).unwrap();
        grown.validate().unwrap();
        assert_eq!(grown.hidden.iter().map(|d| d.outputs).collect::<Vec<_>>(), [7, 3]);
        assert!(grown.hidden[0].weights.iter().any(|&w| w != 0.0 && !net.hidden[0].weights.contains(&w)), "new units get weights");
        assert_eq!(grown.forward_f32(&x, &mut after), v);
        assert_eq!(after, before);
        assert!(net.clone().with_hidden(&[3, 3], 1).is_err() && net.with_hidden(&[5], 1).is_err(), "no narrowing, same depth");
    }
    use crate::nn::*;
    use crate::rng::Rng;

    fn random_net(rng: &mut Rng) -> Mlp {
        let mut dense = |i, o| {
            let mut l = Dense::zeros(i, o);
            for v in l.weights.iter_mut().chain(l.bias.iter_mut()) {
                *v = rng.unit_f32() - 0.5;
            }
            l
        };
        Mlp { game: "connect4".into(), hidden: vec![dense(6, 5), dense(5, 4)], policy: dense(4, 3), value: dense(4, 2) }
    }

    #[test]
    fn bytes_round_trip() {
        let net = random_net(&mut Rng::new(1));
        let bytes = to_bytes(&net);
        assert_eq!(Mlp::from_bytes(&bytes, "connect4").unwrap(), net);
    }

    #[test]
    fn quantised_formats_round_trip_closely() {
        let net = random_net(&mut Rng::new(3));
        for (dtype, tolerance) in [(Storage::F16, 1e-3), (Storage::Int { bits: 8 }, 0.5 / 127.0), (Storage::Int { bits: 10 }, 0.5 / 511.0), (Storage::Int { bits: 3 }, 0.5 / 3.0)] {
            let bytes = to_bytes_as(&net, dtype).unwrap();
            assert_eq!(stored_as(&bytes), Some(dtype));
            let back = Mlp::from_bytes(&bytes, "connect4").unwrap();
            for (k, (a, b)) in net.layers().zip(back.layers()).enumerate() {
                assert_eq!(a.bias, b.bias, "biases stay f32");
                // int8 quantises the hidden layers only; the heads are f16.
                let tolerance = if k >= net.hidden.len() { 1e-3 } else { tolerance };
                for (x, y) in a.weights.iter().zip(&b.weights) {
                    assert!((x - y).abs() <= tolerance, "{dtype:?}: {x} vs {y}");
                }
            }
        }
        // On a Connect 4-sized net the payload is nearly all weights: i8 is about a quarter of f32.
        let big = Mlp { game: "connect4".into(), hidden: vec![Dense::zeros(128, 128), Dense::zeros(128, 128)], policy: Dense::zeros(128, 10), value: Dense::zeros(128, 2) };
        let (f32_size, i8_size) = (to_bytes(&big).len(), to_bytes_as(&big, Storage::Int { bits: 8 }).unwrap().len());
        assert!(i8_size * 10 < f32_size * 3, "{i8_size} vs {f32_size}");
    }

    /// Range-coded integers decode to exactly the weights the packed integers give, and take
    /// fewer bytes on peaked, long-tailed weights like trained ones (Laplace-distributed here;
    /// zeros and the largest magnitude of every output unit included).
    #[test]
    fn range_coded_integers_are_the_packed_ones_in_fewer_bytes() {
        let mut rng = Rng::new(9);
        let mut bell = |i, o| {
            let mut l = Dense::zeros(i, o);
            for v in l.weights.iter_mut() {
                let magnitude = -(1.0 - rng.unit_f32()).ln();
                *v = if rng.unit_f32() < 0.5 { -magnitude } else { magnitude };
            }
            l
        };
        let mut net = Mlp { game: "connect4".into(), hidden: vec![bell(200, 48), bell(48, 32)], policy: bell(32, 10), value: bell(32, 2) };
        net.hidden[0].weights[..48].fill(0.0);
        for bits in [3, 8, 10, 11, 16] {
            let packed = to_bytes_as(&net, Storage::Int { bits }).unwrap();
            let coded = to_bytes_as(&net, Storage::Coded { bits }).unwrap();
            assert_eq!(stored_as(&coded), Some(Storage::Coded { bits }));
            assert_eq!(Mlp::from_bytes(&coded, "connect4").unwrap(), Mlp::from_bytes(&packed, "connect4").unwrap(), "{bits} bits");
            // The low bits of wide integers are noise: the saving is in the high ones.
            if bits == 8 || bits == 10 {
                assert!(coded.len() * 100 < packed.len() * 95, "{bits} bits: {} coded vs {} packed", coded.len(), packed.len());
            }
        }
    }

    /// A layout stores each layer as named: the heads too when they are named, else f16 under
    /// integer hidden layers; each layer reads back within half of its own step.
    #[test]
    fn each_layer_keeps_the_storage_its_layout_names() {
        let net = random_net(&mut Rng::new(5));
        let calibration: Vec<Vec<f32>> = (0..20).map(|i| (0..6).map(|j| ((i * 7 + j) % 3) as f32).collect()).collect();
        let coded = |bits| Storage::Coded { bits };
        for (layout, steps) in [
            (vec![coded(6), coded(8)], [31.0, 127.0, 0.0, 0.0]),
            (vec![coded(6), coded(8), coded(8), coded(8)], [31.0, 127.0, 127.0, 127.0]),
        ] {
            let bytes = to_bytes_calibrated_by_layer(&net, &layout, &calibration).unwrap();
            assert_eq!(stored_as(&bytes), Some(coded(6)), "the header names the first layer's storage");
            let back = Mlp::from_bytes(&bytes, "connect4").unwrap();
            for (k, (a, b)) in net.layers().zip(back.layers()).enumerate() {
                let largest = a.weights.iter().fold(0.0f32, |m, w| m.max(w.abs()));
                // A zero step is an unnamed head: f16.
                let tolerance = if steps[k] == 0.0 { 1e-3 } else { largest / steps[k] };
                let worst = a.weights.iter().zip(&b.weights).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
                assert!(worst <= tolerance, "{layout:?}, layer {k}: off by {worst}, step {tolerance}");
                assert!(steps[k] == 0.0 || worst > 1e-3, "{layout:?}, layer {k} is stored as f16, not as named");
            }
        }
        assert_eq!(layout_name(&[coded(8), coded(8)], 2), "i8, range-coded");
        assert_eq!(layout_name(&[coded(6), coded(8)], 2), "i6/i8, range-coded");
        assert_eq!(layout_name(&[coded(6), coded(8), coded(8), coded(8)], 2), "i6/i8, heads i8, range-coded");
        assert_eq!(layout_name(&[Storage::F16, Storage::F16], 2), "f16");
    }

    #[test]
    fn export_fails_loudly_instead_of_clamping() {
        let mut net = random_net(&mut Rng::new(4));
        net.hidden[1].weights[3] = 1e6;
        assert!(matches!(to_bytes_as(&net, Storage::F16), Err(ExportError::F16Overflow { .. })));
        assert!(to_bytes_as(&net, Storage::Int { bits: 8 }).is_ok(), "int8 scales adapt to the range");
        net.value.weights[0] = f32::NAN;
        let err = to_bytes_as(&net, Storage::Int { bits: 8 }).unwrap_err();
        assert!(err.to_string().contains("value head"), "{err}");
    }

    #[test]
    fn half_precision_conversion() {
        for (v, h) in [(1.0f32, 0x3c00u16), (-2.0, 0xc000), (65504.0, 0x7bff), (5.960_464_5e-8, 0x0001), (0.0, 0)] {
            assert_eq!(f32_to_f16(v), h, "{v}");
            assert_eq!(f16_to_f32(h), v);
        }
        assert_eq!(f32_to_f16(1e6), 0x7c00, "overflow becomes infinity");
        let mut rng = Rng::new(8);
        for _ in 0..10_000 {
            let v = (rng.unit_f32() - 0.5) * 100.0;
            assert!((f16_to_f32(f32_to_f16(v)) - v).abs() <= v.abs() / 1024.0 + 1e-7);
        }
    }

    #[test]
    fn readers_name_the_problem() {
        let net = random_net(&mut Rng::new(2));
        let bytes = to_bytes(&net);
        assert_eq!(Mlp::from_bytes(b"nope", "connect4"), Err(WeightsError::NotAWeightFile));
        assert!(matches!(Mlp::from_bytes(&bytes, "zuniq"), Err(WeightsError::WrongGame { .. })));
        let mut corrupt = bytes.clone();
        corrupt[40] ^= 1;
        assert_eq!(Mlp::from_bytes(&corrupt, "connect4"), Err(WeightsError::ChecksumMismatch));
        let mut future = bytes.clone();
        future[4] = 9;
        let err = Mlp::from_bytes(&future, "connect4").unwrap_err();
        assert!(err.to_string().contains("version 9"), "{err}");
        assert!(Mlp::from_bytes(&bytes[..bytes.len() - 20], "connect4").is_err());
    }

    /// Found by `cupzero fuzz`: a file whose checksum holds but whose shapes ask for
    /// gigabytes, a text whose count does, and weights beyond any trained net's range are
    /// refused before anything large is allocated.
    #[test]
    fn hostile_shapes_and_values_are_refused() {
        let net = random_net(&mut Rng::new(2));
        let with_checksum = |mut bytes: Vec<u8>| {
            let body = bytes.len() - 8;
            let sum = crate::nn::fnv1a64(&bytes[..body]);
            bytes[body..].copy_from_slice(&sum.to_le_bytes());
            bytes
        };
        let mut huge = to_bytes(&net);
        // The input count follows magic (4), version (2), the name ("connect4", 1 + 8) and the
        // storage tag (2).
        huge[17..21].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = Mlp::from_bytes(&with_checksum(huge), "connect4").unwrap_err();
        assert!(err.to_string().contains("parameters"), "{err}");
        let mut wild = net.clone();
        wild.hidden[0].weights[3] = 1e9;
        let far = to_bytes(&wild);
        assert_eq!(Mlp::from_bytes(&far, "connect4"), Err(WeightsError::OutOfRange));
        // The same weight as a NaN (the writer refuses to store one).
        let at = far.windows(4).position(|w| w == 1e9f32.to_le_bytes()).unwrap();
        let mut nan = far.clone();
        nan[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert_eq!(Mlp::from_bytes(&with_checksum(nan), "connect4"), Err(WeightsError::OutOfRange));
    }
}
