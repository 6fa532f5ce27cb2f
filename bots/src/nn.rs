//! The compact weight format and the std-only forward pass of the policy/value MLP.
//!
//! Net: `features -> [Linear -> ReLU] x k -> policy logits (NUM_ACTIONS)` and
//! `-> tanh(Linear) -> 2 values` (the player to move's utility, then the other player's).
//! Two values instead of one keep zero-sum, cooperative and margin games on one path.
//!
//! File layout, all little-endian:
//! ```text
//! magic "CZNN" | format version u16 | game name: u8 length + bytes | storage of the hidden
//! layers (2 bytes, as below) | num_features u32 | num_actions u32 | hidden layer count u8
//! | hidden widths u32...
//! | payload: for each layer (hidden..., policy, value): storage (kind u8, bits u8), then
//! |   f32 (0, 32): weights [inputs][outputs] f32, biases f32
//! |   f16 (1, 16): weights [inputs][outputs] as IEEE half, biases f32
//! |   int (2, B):  one f32 scale per output, then the weights [inputs][outputs] as B-bit two's
//! |                complement integers packed LSB first (w = q * scale[output], |q| < 2^(B-1)),
//! |                padded to a byte, then biases f32
//! |   coded (3, B): the same integers entropy-coded: scales, the code's length u32, the code
//! |                (see [`RangeDecoder`] and [`IntModel`]), then biases f32
//! | FNV-1a 64 checksum of everything before it (u64)
//! ```
//! Weights are stored input-major so that a sparse input row adds one contiguous weight row.
//! Quantised weights are turned back into f32 when loaded: the forward pass is the same for
//! every storage type, only the file (and the exported bot) is smaller. Writing lives in
//! `nn_write`, which submissions do not need.

use std::fmt;
use std::convert::TryInto;

pub const MAGIC: &[u8; 4] = b"CZNN";
pub const FORMAT_VERSION: u16 = 1;
/// Outputs of the value head.
pub const VALUE_OUTPUTS: usize = 2;
/// The most parameters a weight file may hold (67 MB as f32; the shipped nets hold 35k-145k).
pub const MAX_PARAMETERS: usize = 1 << 24;

/// How a layer's weights are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    F32,
    F16,
    /// Symmetric integers of `bits` bits (2..=16), one scale per output unit
    /// (`max |w| / (2^(bits-1) - 1)`).
    Int { bits: u8 },
    /// The same integers, range-coded: most weights are small, so they take fewer bits than
    /// `bits` (about 8.4 for 10-bit Connect 4 weights).
    Coded { bits: u8 },
}

/// A storage without its width: which reader a weight file needs.
#[cfg(not(bundle))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StorageKind {
    F32,
    F16,
    Int,
    Coded,
}

impl Storage {
    #[cfg(not(bundle))]
    pub fn kind(self) -> StorageKind {
        match self {
            Storage::F32 => StorageKind::F32,
            Storage::F16 => StorageKind::F16,
            Storage::Int { .. } => StorageKind::Int,
            Storage::Coded { .. } => StorageKind::Coded,
        }
    }

    pub fn tag(self) -> [u8; 2] {
        match self {
            Storage::F32 => [0, 32],
            Storage::F16 => [1, 16],
            Storage::Int { bits } => [2, bits],
            Storage::Coded { bits } => [3, bits],
        }
    }

    /// The integer width of `Int` storage.
    #[cfg(not(no_int_weights))]
    pub fn packed_bits(self) -> Option<u8> {
        match self {
            Storage::Int { bits } => Some(bits),
            _ => None,
        }
    }

    /// The integer width of `Coded` storage.
    #[cfg(not(no_coded_weights))]
    pub fn coded_bits(self) -> Option<u8> {
        match self {
            Storage::Coded { bits } => Some(bits),
            _ => None,
        }
    }

    /// The integer width of `Int` and `Coded` storage.
    pub fn int_bits(self) -> Option<u8> {
        match self {
            Storage::Int { bits } | Storage::Coded { bits } => Some(bits),
            _ => None,
        }
    }

    pub fn from_tag(tag: [u8; 2]) -> Option<Self> {
        match tag {
            [0, 32] => Some(Storage::F32),
            [1, 16] => Some(Storage::F16),
            [2, bits] if (2..=16).contains(&bits) => Some(Storage::Int { bits }),
            [3, bits] if (2..=16).contains(&bits) => Some(Storage::Coded { bits }),
            _ => None,
        }
    }

    /// Largest integer magnitude of `Int` storage.
    pub fn int_max(bits: u8) -> i32 {
        (1 << (bits - 1)) - 1
    }
}

/// Largest finite half-precision value.
pub const F16_MAX: f32 = 65504.0;

/// IEEE half to f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let mant = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if mant == 0 {
            sign
        } else {
            let (mut e, mut m) = (127 - 15 + 1, mant);
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | (e << 23) | ((m & 0x3ff) << 13)
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (mant << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (mant << 13)
    };
    f32::from_bits(bits)
}

#[derive(Clone, Debug, PartialEq)]
pub enum WeightsError {
    NotAWeightFile,
    UnsupportedVersion { found: u16 },
    WrongGame { found: String, expected: String },
    UnknownStorage([u8; 2]),
    Truncated,
    BadText,
    ChecksumMismatch,
    ShapeMismatch(String),
    OutOfRange,
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::NotAWeightFile => write!(f, "not a cupzero weight file (bad magic bytes)"),
            WeightsError::UnsupportedVersion { found } => write!(
                f,
                "weight format version {found} is not supported (this build reads {FORMAT_VERSION}); re-export with this cupzero"
            ),
            WeightsError::WrongGame { found, expected } => write!(f, "these weights are for {found:?}, not {expected:?}"),
            WeightsError::UnknownStorage(t) => write!(f, "unknown weight storage {t:?}"),
            WeightsError::Truncated => write!(f, "weight file is truncated"),
            WeightsError::BadText => write!(f, "embedded weight text is damaged"),
            WeightsError::ChecksumMismatch => write!(f, "weight file is corrupt (checksum mismatch)"),
            WeightsError::ShapeMismatch(why) => write!(f, "weights do not fit this game: {why}"),
            WeightsError::OutOfRange => write!(f, "weight file holds a NaN or a weight beyond the f16 range"),
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
}

/// The policy/value MLP.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    pub game: String,
    pub hidden: Vec<Dense>,
    pub policy: Dense,
    pub value: Dense,
}

impl Mlp {
    pub fn num_features(&self) -> usize {
        self.hidden.first().map_or(self.policy.inputs, |l| l.inputs)
    }

    pub fn num_actions(&self) -> usize {
        self.policy.outputs
    }

    pub fn layers(&self) -> impl Iterator<Item = &Dense> {
        self.hidden.iter().chain([&self.policy, &self.value])
    }

    /// Checks that there is a hidden layer and that the layer shapes chain up.
    pub fn validate(&self) -> Result<(), WeightsError> {
        if self.hidden.is_empty() {
            return Err(WeightsError::ShapeMismatch("no hidden layer".into()));
        }
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
        // No net cupzero trains comes near the f16 range; a value beyond it is damage.
        if !self.layers().all(|l| l.weights.iter().chain(&l.bias).all(|w| w.abs() <= 65504.0)) {
            return Err(WeightsError::OutOfRange);
        }
        Ok(())
    }

    /// Reads the compact format, checking magic, version, game, shapes and checksum.
    pub fn from_bytes(bytes: &[u8], expected_game: &str) -> Result<Mlp, WeightsError> {
        Mlp::read(bytes, expected_game, &mut Vec::new())
    }

    /// The storage of each layer of a weight file, hidden layers first, then the policy and
    /// value heads (what an exported bot must read).
    #[cfg(not(bundle))]
    pub fn storages(bytes: &[u8], expected_game: &str) -> Result<Vec<Storage>, WeightsError> {
        let mut storages = Vec::new();
        Mlp::read(bytes, expected_game, &mut storages)?;
        Ok(storages)
    }

    /// [`Mlp::from_bytes`], listing each layer's storage in `storages`.
    fn read(bytes: &[u8], expected_game: &str, storages: &mut Vec<Storage>) -> Result<Mlp, WeightsError> {
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
        // The hidden layers' storage, for information; each layer names its own below.
        let tag = r.take::<2>()?;
        Storage::from_tag(tag).ok_or(WeightsError::UnknownStorage(tag))?;
        let num_features = r.u32()? as usize;
        let num_actions = r.u32()? as usize;
        let count = r.take::<1>()?[0] as usize;
        let widths = (0..count).map(|_| r.u32().map(|w| w as usize)).collect::<Result<Vec<_>, _>>()?;
        // Shapes come before their weights: bound them before anything is allocated, so a
        // damaged or hostile file cannot ask for gigabytes.
        let trunk = widths.last().copied().unwrap_or(num_features);
        let hidden_shapes = std::iter::once(num_features).chain(widths.iter().copied()).zip(widths.iter().copied());
        let mut parameters = 0usize;
        for (inputs, outputs) in hidden_shapes.chain([(trunk, num_actions), (trunk, VALUE_OUTPUTS)]) {
            let layer = inputs.checked_mul(outputs).and_then(|w| w.checked_add(outputs));
            parameters = layer.and_then(|l| parameters.checked_add(l)).filter(|&p| p <= MAX_PARAMETERS).ok_or_else(|| {
                WeightsError::ShapeMismatch(format!("more than {MAX_PARAMETERS} parameters ({num_features} inputs, hidden {widths:?}, {num_actions} actions)"))
            })?;
        }
        let mut read_layer = |inputs: usize, outputs: usize| -> Result<Dense, WeightsError> {
            let mut l = Dense::zeros(inputs, outputs);
            let tag = r.take::<2>()?;
            let storage = Storage::from_tag(tag).ok_or(WeightsError::UnknownStorage(tag))?;
            storages.push(storage);
            // Each storage a statement of its own: an exported bot carries the readers of the
            // storages its weights use, the exporter leaves the others out (their markers).
            let mut read = false;
            #[cfg(not(no_f32_weights))]
            if storage == Storage::F32 {
                for v in l.weights.iter_mut() {
                    *v = f32::from_le_bytes(r.take::<4>()?);
                }
                read = true;
            }
            #[cfg(not(no_f16_weights))]
            if storage == Storage::F16 {
                for v in l.weights.iter_mut() {
                    *v = f16_to_f32(u16::from_le_bytes(r.take::<2>()?));
                }
                read = true;
            }
            #[cfg(not(no_int_weights))]
            if let Some(bits) = storage.packed_bits() {
                let scales = (0..outputs).map(|_| r.take::<4>().map(f32::from_le_bytes)).collect::<Result<Vec<_>, _>>()?;
                let packed = r.slice((inputs * outputs * bits as usize + 7) / 8)?;
                let (mut acc, mut held, mut next) = (0u32, 0u32, 0usize);
                for (i, v) in l.weights.iter_mut().enumerate() {
                    while held < bits as u32 {
                        acc |= (packed[next] as u32) << held;
                        next += 1;
                        held += 8;
                    }
                    let raw = acc & ((1 << bits) - 1);
                    acc >>= bits;
                    held -= bits as u32;
                    // Sign-extend the B-bit two's complement value.
                    let q = ((raw << (32 - bits as u32)) as i32) >> (32 - bits as u32);
                    *v = q as f32 * scales[i % outputs];
                }
                read = true;
            }
            #[cfg(not(no_coded_weights))]
            if let Some(bits) = storage.coded_bits() {
                let scales = (0..outputs).map(|_| r.take::<4>().map(f32::from_le_bytes)).collect::<Result<Vec<_>, _>>()?;
                let len = r.u32()? as usize;
                let mut decoder = RangeDecoder::new(r.slice(len)?);
                let mut model = IntModel::new(bits);
                for (i, v) in l.weights.iter_mut().enumerate() {
                    *v = model.decode(&mut decoder) as f32 * scales[i % outputs];
                }
                read = true;
            }
            if !read {
                return Err(WeightsError::UnknownStorage(tag));
            }
            for v in l.bias.iter_mut() {
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

/// Probabilities are 11-bit: `p` is the chance of a 0 bit in 2048ths.
const PROB_BITS: u32 = 11;
/// Adaptation speed of a probability (LZMA's).
const MOVE_BITS: u32 = 5;

/// A binary range decoder in the style of LZMA's: each bit is read against an adaptive
/// probability. Reading past the end of the code reads zeros (the checksum catches damage).
pub struct RangeDecoder<'a> {
    bytes: &'a [u8],
    next: usize,
    range: u32,
    code: u32,
}

impl<'a> RangeDecoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        let mut d = RangeDecoder { bytes, next: 0, range: u32::MAX, code: 0 };
        for _ in 0..5 {
            d.code = (d.code << 8) | d.byte();
        }
        d
    }
    fn byte(&mut self) -> u32 {
        let b = self.bytes.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        b as u32
    }
    /// One bit read against `prob`, which learns from it.
    pub fn bit(&mut self, prob: &mut u16) -> bool {
        let bound = (self.range >> PROB_BITS) * *prob as u32;
        let one = self.code >= bound;
        if one {
            self.code -= bound;
            self.range -= bound;
            *prob -= *prob >> MOVE_BITS;
        } else {
            self.range = bound;
            *prob += ((1 << PROB_BITS) - *prob) >> MOVE_BITS;
        }
        if self.range < 1 << 24 {
            self.range <<= 8;
            self.code = (self.code << 8) | self.byte();
        }
        one
    }
}

/// An adaptive model of a layer's integers `q` (`|q| < 2^(bits-1)`): whether `q` is zero, its
/// sign, the bit length of `|q|` in unary, then the bits below its leading one, each with
/// probabilities of its own (per length and position). Encoder and decoder keep the same model.
#[derive(Clone)]
pub struct IntModel {
    pub(crate) zero: u16,
    pub(crate) sign: u16,
    pub(crate) length: Vec<u16>,
    /// `[length][bit]` below the leading one.
    pub(crate) mantissa: Vec<Vec<u16>>,
}

impl IntModel {
    pub fn new(bits: u8) -> Self {
        let half = 1 << (PROB_BITS - 1);
        let lengths = bits as usize;
        IntModel { zero: half, sign: half, length: vec![half; lengths], mantissa: (0..lengths).map(|n| vec![half; n]).collect() }
    }
    /// The longest bit length of `|q|` (the unary code stops there without a closing 0).
    fn max_length(&self) -> usize {
        self.length.len() - 2
    }
    pub fn decode(&mut self, d: &mut RangeDecoder) -> i32 {
        if !d.bit(&mut self.zero) {
            return 0;
        }
        let negative = d.bit(&mut self.sign);
        let mut n = 0;
        while n < self.max_length() && d.bit(&mut self.length[n]) {
            n += 1;
        }
        let mut m = 1i32;
        for j in (0..n).rev() {
            m = (m << 1) | d.bit(&mut self.mantissa[n][j]) as i32;
        }
        if negative { -m } else { m }
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
