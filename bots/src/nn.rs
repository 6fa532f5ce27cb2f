//! The compact weight format and the std-only forward pass of the policy/value MLP.
//!
//! Net: `features -> [Linear -> ReLU] x k -> policy logits (NUM_ACTIONS)` and
//! `-> tanh(Linear) -> 2 values` (the player to move's utility, then the other player's).
//! Two values instead of one keep zero-sum, cooperative and margin games on one path.
//!
//! File layout, all little-endian:
//! ```text
//! magic "CZNN" | format version u16 | game name: u8 length + bytes | dtype u8
//! | num_features u32 | num_actions u32 | hidden layer count u8 | hidden widths u32...
//! | payload: for each layer (hidden..., policy, value): weights [inputs][outputs], then biases
//! | FNV-1a 64 checksum of everything before it (u64)
//! ```
//! Weights are stored input-major so that a sparse input row adds one contiguous weight row.

use std::fmt;

pub const MAGIC: &[u8; 4] = b"CZNN";
pub const FORMAT_VERSION: u16 = 1;
/// Outputs of the value head.
pub const VALUE_OUTPUTS: usize = 2;

/// How the payload's numbers are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    F32 = 0,
}

impl DType {
    fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(DType::F32),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum WeightsError {
    NotAWeightFile,
    UnsupportedVersion { found: u16 },
    WrongGame { found: String, expected: String },
    UnknownDType(u8),
    Truncated,
    ChecksumMismatch,
    ShapeMismatch(String),
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::NotAWeightFile => write!(f, "not a cupzero weight file (bad magic bytes)"),
            WeightsError::UnsupportedVersion { found } => write!(
                f,
                "weight format version {found} is not supported (this build reads version {FORMAT_VERSION}); re-export the checkpoint with this cupzero"
            ),
            WeightsError::WrongGame { found, expected } => write!(f, "these weights are for {found:?}, not {expected:?}"),
            WeightsError::UnknownDType(d) => write!(f, "unknown weight storage type {d}"),
            WeightsError::Truncated => write!(f, "weight file is truncated"),
            WeightsError::ChecksumMismatch => write!(f, "weight file is corrupt (checksum mismatch)"),
            WeightsError::ShapeMismatch(why) => write!(f, "weights do not fit this game: {why}"),
        }
    }
}

impl std::error::Error for WeightsError {}

/// FNV-1a, 64 bit: tiny, and enough to catch corruption (not an adversary).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A fully connected layer, weights input-major: `weights[i * outputs + o]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    pub inputs: usize,
    pub outputs: usize,
    pub weights: Vec<f32>,
    pub bias: Vec<f32>,
}

impl Dense {
    pub fn zeros(inputs: usize, outputs: usize) -> Self {
        Dense { inputs, outputs, weights: vec![0.0; inputs * outputs], bias: vec![0.0; outputs] }
    }

    /// `out = bias + x W`, skipping zero inputs (features are mostly 0/1, activations half 0).
    #[inline]
    pub fn forward(&self, x: &[f32], out: &mut [f32]) {
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

/// The policy/value MLP.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    pub game: String,
    pub hidden: Vec<Dense>,
    pub policy: Dense,
    pub value: Dense,
}

/// Reusable buffers for [`Mlp::forward`].
#[derive(Default)]
pub struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
}

impl Mlp {
    pub fn num_features(&self) -> usize {
        self.hidden.first().map_or(self.policy.inputs, |l| l.inputs)
    }

    pub fn num_actions(&self) -> usize {
        self.policy.outputs
    }

    pub fn hidden_widths(&self) -> Vec<usize> {
        self.hidden.iter().map(|l| l.outputs).collect()
    }

    pub fn num_parameters(&self) -> usize {
        self.layers().map(|l| l.weights.len() + l.bias.len()).sum()
    }

    fn layers(&self) -> impl Iterator<Item = &Dense> {
        self.hidden.iter().chain([&self.policy, &self.value])
    }

    /// Checks that the layer shapes chain up.
    pub fn validate(&self) -> Result<(), WeightsError> {
        let mut width = self.num_features();
        for (k, l) in self.hidden.iter().enumerate() {
            if l.inputs != width || l.weights.len() != l.inputs * l.outputs || l.bias.len() != l.outputs {
                return Err(WeightsError::ShapeMismatch(format!("hidden layer {k} has inconsistent sizes")));
            }
            width = l.outputs;
        }
        for (name, l, outputs) in [("policy", &self.policy, self.policy.outputs), ("value", &self.value, VALUE_OUTPUTS)] {
            if l.inputs != width || l.outputs != outputs || l.weights.len() != l.inputs * l.outputs || l.bias.len() != l.outputs {
                return Err(WeightsError::ShapeMismatch(format!("{name} head has inconsistent sizes")));
            }
        }
        Ok(())
    }

    /// Runs the net: `policy` gets the logits, the return value is `[mover, other]` in [-1, 1].
    pub fn forward(&self, features: &[f32], scratch: &mut Scratch, policy: &mut [f32]) -> [f32; VALUE_OUTPUTS] {
        let Scratch { a, b } = scratch;
        a.clear();
        a.extend_from_slice(features);
        for layer in &self.hidden {
            b.resize(layer.outputs, 0.0);
            layer.forward(a, b);
            for v in b.iter_mut() {
                *v = v.max(0.0);
            }
            std::mem::swap(a, b);
        }
        self.policy.forward(a, policy);
        let mut value = [0.0; VALUE_OUTPUTS];
        self.value.forward(a, &mut value);
        value.map(f32::tanh)
    }

    /// Serialises the net in the compact format (f32 payload).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.push(self.game.len() as u8);
        out.extend_from_slice(self.game.as_bytes());
        out.push(DType::F32 as u8);
        out.extend_from_slice(&(self.num_features() as u32).to_le_bytes());
        out.extend_from_slice(&(self.num_actions() as u32).to_le_bytes());
        out.push(self.hidden.len() as u8);
        for l in &self.hidden {
            out.extend_from_slice(&(l.outputs as u32).to_le_bytes());
        }
        for l in self.layers() {
            for &v in l.weights.iter().chain(&l.bias) {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        let sum = fnv1a64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads the compact format, checking magic, version, game, shapes and checksum.
    pub fn from_bytes(bytes: &[u8], expected_game: &str) -> Result<Mlp, WeightsError> {
        if bytes.len() < 4 || &bytes[..4] != MAGIC {
            return Err(WeightsError::NotAWeightFile);
        }
        let mut r = Reader { bytes, pos: 4 };
        let version = u16::from_le_bytes(r.take::<2>()?);
        if version != FORMAT_VERSION {
            return Err(WeightsError::UnsupportedVersion { found: version });
        }
        if bytes.len() < 8 {
            return Err(WeightsError::Truncated);
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a64(body) != u64::from_le_bytes(sum.try_into().unwrap()) {
            return Err(WeightsError::ChecksumMismatch);
        }
        let r = &mut Reader { bytes: body, pos: r.pos };
        let name_len = r.take::<1>()?[0] as usize;
        let game = String::from_utf8_lossy(r.slice(name_len)?).into_owned();
        if game != expected_game {
            return Err(WeightsError::WrongGame { found: game, expected: expected_game.to_string() });
        }
        let dtype = r.take::<1>()?[0];
        DType::from_u8(dtype).ok_or(WeightsError::UnknownDType(dtype))?;
        let num_features = r.u32()? as usize;
        let num_actions = r.u32()? as usize;
        let count = r.take::<1>()?[0] as usize;
        let widths = (0..count).map(|_| r.u32().map(|w| w as usize)).collect::<Result<Vec<_>, _>>()?;
        let mut read_layer = |inputs: usize, outputs: usize| -> Result<Dense, WeightsError> {
            let mut l = Dense::zeros(inputs, outputs);
            for v in l.weights.iter_mut().chain(l.bias.iter_mut()) {
                *v = f32::from_le_bytes(r.take::<4>()?);
            }
            Ok(l)
        };
        let mut hidden = Vec::with_capacity(count);
        let mut width = num_features;
        for &w in &widths {
            hidden.push(read_layer(width, w)?);
            width = w;
        }
        let policy = read_layer(width, num_actions)?;
        let value = read_layer(width, VALUE_OUTPUTS)?;
        if r.pos != body.len() {
            return Err(WeightsError::ShapeMismatch(format!("{} bytes left over after the last layer", body.len() - r.pos)));
        }
        let net = Mlp { game, hidden, policy, value };
        net.validate()?;
        Ok(net)
    }

    /// Checks that the net fits a game's feature and action counts.
    pub fn check_shape(&self, num_features: usize, num_actions: usize) -> Result<(), WeightsError> {
        if self.num_features() != num_features || self.num_actions() != num_actions {
            return Err(WeightsError::ShapeMismatch(format!(
                "net has {} inputs and {} actions, the game needs {num_features} and {num_actions}",
                self.num_features(),
                self.num_actions()
            )));
        }
        Ok(())
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn slice(&mut self, n: usize) -> Result<&[u8], WeightsError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(WeightsError::Truncated)?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn take<const N: usize>(&mut self) -> Result<[u8; N], WeightsError> {
        Ok(self.slice(N)?.try_into().unwrap())
    }
    fn u32(&mut self) -> Result<u32, WeightsError> {
        Ok(u32::from_le_bytes(self.take::<4>()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn forward_matches_a_hand_computation() {
        // One hidden unit: h = relu(1*2 + 0.5) = 2.5; logits = 2.5*[1,-1] + [0, 1]; v = tanh(2.5*[0.1,-0.1]).
        let net = Mlp {
            game: "g".into(),
            hidden: vec![Dense { inputs: 2, outputs: 1, weights: vec![1.0, 3.0], bias: vec![0.5] }],
            policy: Dense { inputs: 1, outputs: 2, weights: vec![1.0, -1.0], bias: vec![0.0, 1.0] },
            value: Dense { inputs: 1, outputs: 2, weights: vec![0.1, -0.1], bias: vec![0.0, 0.0] },
        };
        let mut logits = [0.0; 2];
        let v = net.forward(&[2.0, 0.0], &mut Scratch::default(), &mut logits);
        assert_eq!(logits, [2.5, -1.5]);
        assert!((v[0] - 0.25f32.tanh()).abs() < 1e-7 && (v[1] + 0.25f32.tanh()).abs() < 1e-7);
    }

    #[test]
    fn bytes_round_trip() {
        let net = random_net(&mut Rng::new(1));
        let bytes = net.to_bytes();
        assert_eq!(Mlp::from_bytes(&bytes, "connect4").unwrap(), net);
    }

    #[test]
    fn readers_name_the_problem() {
        let net = random_net(&mut Rng::new(2));
        let bytes = net.to_bytes();
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
}
