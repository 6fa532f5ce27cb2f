//! Bytes as the text of a Rust string literal, and back: how an exported bot carries its
//! weights. The writer (the exporter) and the reader (the bot) share this module.
//!
//! Two alphabets, one per way a platform counts a file:
//! - [`Alphabet::Ascii`]: the 93 printable ASCII characters that need no escape, 13 bits per
//!   two characters (6.5 bits a character or a byte). For platforms that count bytes (CodeCup),
//!   where a wider character costs 3 bytes for its 15 bits.
//! - [`Alphabet::Wide`]: 32,768 letters of the Basic Multilingual Plane, 15 bits a character.
//!   For platforms that count characters as UTF-16 code units (CodinGame), where each of them
//!   counts 1. The symbols are taken, in order, from CJK Extension A (U+3400-4DBF), CJK
//!   Unified Ideographs (U+4E00-9FFF) and the start of Hangul Syllables (U+AC00-C03F): assigned
//!   letters (category Lo) that no Unicode normalisation (NFC, NFKC) changes, none a surrogate,
//!   private use, noncharacter, control, space, format character or combining mark. The
//!   packing follows Base32768's idea of 15 bits per BMP character; the blocks are our choice.
//!
//! A text is the byte count, a mark naming the alphabet (`:` ASCII, `=` wide), then the
//! characters, with line breaks anywhere (ignored when read).

use crate::nn::WeightsError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alphabet {
    Ascii,
    Wide,
}

/// (first character, symbols taken) of each block of the wide alphabet, in symbol order.
const WIDE_BLOCKS: [(u32, u32); 3] = [(0x3400, 6592), (0x4E00, 20992), (0xAC00, 5184)];
/// Bits a wide character carries.
const WIDE_BITS: u32 = 15;

impl Alphabet {
    fn mark(self) -> char {
        match self {
            Alphabet::Ascii => ':',
            Alphabet::Wide => '=',
        }
    }

    /// Bits per group of characters, and characters per group.
    /// Bits carried by one character: 6.5 or 15.
    pub fn bits_per_character(self) -> f64 {
        let (bits, chars) = self.group();
        bits as f64 / chars as f64
    }

    fn group(self) -> (u32, usize) {
        match self {
            Alphabet::Ascii => (13, 2),
            Alphabet::Wide => (WIDE_BITS, 1),
        }
    }
}

/// The 93 printable ASCII characters that need no escape in a Rust string literal.
pub fn ascii_alphabet() -> Vec<u8> {
    (0x20u8..=0x7e).filter(|&c| c != b'"' && c != b'\\').collect()
}

/// The wide alphabet's character for `symbol` (below 2^15).
pub fn wide_char(symbol: u32) -> char {
    let mut rest = symbol;
    for (first, count) in WIDE_BLOCKS {
        if rest < count {
            return char::from_u32(first + rest).expect("a letter of the BMP");
        }
        rest -= count;
    }
    panic!("symbol {symbol} is past the wide alphabet");
}

/// The symbol of a wide character, `None` for any other character.
pub fn wide_symbol(c: char) -> Option<u32> {
    let mut before = 0;
    for (first, count) in WIDE_BLOCKS {
        let offset = (c as u32).wrapping_sub(first);
        if offset < count {
            return Some(before + offset);
        }
        before += count;
    }
    None
}

/// `bytes` as text in `alphabet`, a line break every `line` characters (0: none).
pub fn bytes_to_text(bytes: &[u8], alphabet: Alphabet, line: usize) -> String {
    let ascii = ascii_alphabet();
    let (group_bits, _) = alphabet.group();
    let mut out = format!("{}{}", bytes.len(), alphabet.mark());
    let (mut acc, mut bits, mut column) = (0u32, 0u32, 0usize);
    let mut emit = |v: u32, out: &mut String| {
        let chars = match alphabet {
            Alphabet::Ascii => vec![ascii[(v % 93) as usize] as char, ascii[(v / 93) as usize] as char],
            Alphabet::Wide => vec![wide_char(v)],
        };
        for c in chars {
            if line > 0 && column == line {
                out.push('\n');
                column = 0;
            }
            out.push(c);
            column += 1;
        }
    };
    for &b in bytes {
        acc |= (b as u32) << bits;
        bits += 8;
        if bits >= group_bits {
            emit(acc & ((1 << group_bits) - 1), &mut out);
            acc >>= group_bits;
            bits -= group_bits;
        }
    }
    if bits > 0 {
        emit(acc, &mut out);
    }
    out
}

/// Reads what [`bytes_to_text`] wrote, in either alphabet.
pub fn text_to_bytes(text: &str) -> Result<Vec<u8>, WeightsError> {
    let split = text.find([':', '=']).ok_or(WeightsError::BadText)?;
    let alphabet = if text[split..].starts_with(':') { Alphabet::Ascii } else { Alphabet::Wide };
    let count: usize = text[..split].trim().parse().map_err(|_| WeightsError::BadText)?;
    // Each alphabet's reading a statement of its own: an exported bot carries the one its
    // platform's text is written in (the exporter leaves the other out, by its marker).
    #[cfg(not(no_ascii_text))]
    let ascii = {
        let mut digits = [u8::MAX; 128];
        for (i, &c) in ascii_alphabet().iter().enumerate() {
            digits[c as usize] = i as u8;
        }
        digits
    };
    let (group_bits, group_chars) = alphabet.group();
    let mut chars = text[split + 1..].chars().filter(|&c| c != '\n' && c != '\r');
    // A character carries at most 15 bits: the body bounds what a damaged count may reserve.
    let mut out = Vec::with_capacity(count.min(2 * (text.len() - split)));
    let (mut acc, mut bits) = (0u32, 0u32);
    while out.len() < count {
        let mut v = 0u32;
        let mut place = 1u32;
        for _ in 0..group_chars {
            let c = chars.next().ok_or(WeightsError::Truncated)?;
            let mut digit = None;
            #[cfg(not(no_ascii_text))]
            if alphabet == Alphabet::Ascii {
                digit = ascii.get(c as usize).copied().filter(|&d| d != u8::MAX).map(u32::from);
            }
            #[cfg(not(no_wide_text))]
            if alphabet == Alphabet::Wide {
                digit = wide_symbol(c);
            }
            v += place * digit.ok_or(WeightsError::BadText)?;
            place *= 93;
        }
        if v >= 1 << group_bits {
            return Err(WeightsError::BadText);
        }
        acc |= v << bits;
        bits += group_bits;
        while bits >= 8 && out.len() < count {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
    Ok(out)
}

/// Characters as a platform that counts UTF-16 code units counts them (CodinGame): one for
/// a character of the Basic Multilingual Plane, two for any other.
pub fn utf16_units(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn random_bytes_round_trip_in_both_alphabets_at_their_density() {
        let mut rng = Rng::new(6);
        for alphabet in [Alphabet::Ascii, Alphabet::Wide] {
            for n in [0usize, 1, 2, 3, 12, 13, 14, 15, 16, 100, 4097, 30_001] {
                let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                let text = bytes_to_text(&bytes, alphabet, 100);
                assert!(!text.contains('"') && !text.contains('\\'));
                assert_eq!(text_to_bytes(&text).unwrap(), bytes, "{alphabet:?}, {n} bytes");
                let body = text.chars().filter(|&c| c != '\n').count() - format!("{n}:").len();
                let bits_per_char = if alphabet == Alphabet::Ascii { 6.5 } else { 15.0 };
                assert!(body <= (n as f64 * 8.0 / bits_per_char).ceil() as usize + 1, "{alphabet:?}: {body} characters for {n} bytes");
            }
        }
    }

    #[test]
    fn every_wide_symbol_is_one_bmp_letter_and_reads_back() {
        let mut previous = None;
        for symbol in 0..1u32 << WIDE_BITS {
            let c = wide_char(symbol);
            assert_eq!(c.len_utf16(), 1, "U+{:04X} is one UTF-16 unit", c as u32);
            assert!(c.is_alphabetic() && !c.is_whitespace() && !c.is_control(), "U+{:04X}", c as u32);
            assert_eq!(wide_symbol(c), Some(symbol));
            assert!(previous.map_or(true, |p| p < c), "symbols in order, each character once");
            previous = Some(c);
        }
        for outside in ['a', ':', '\u{33FF}', '\u{4DC0}', '\u{4DFF}', '\u{A000}', '\u{ABFF}', '\u{C040}', '\u{D7FF}', '\u{E000}'] {
            assert_eq!(wide_symbol(outside), None, "U+{:04X}", outside as u32);
        }
    }

    #[test]
    fn damaged_text_is_an_error_never_a_panic() {
        let wide = bytes_to_text(&[1, 2, 3, 4], Alphabet::Wide, 0);
        assert_eq!(text_to_bytes("3:ab"), Err(WeightsError::Truncated));
        assert_eq!(text_to_bytes("1:\u{7f}a"), Err(WeightsError::BadText));
        assert_eq!(text_to_bytes("xyz"), Err(WeightsError::BadText));
        assert_eq!(text_to_bytes("4294967296000:ab"), Err(WeightsError::Truncated));
        assert_eq!(text_to_bytes(&wide.replace('=', ":")), Err(WeightsError::BadText), "wide characters read as ASCII");
        assert_eq!(text_to_bytes("2=ab"), Err(WeightsError::BadText), "ASCII read as wide");
        assert_eq!(text_to_bytes(&wide[..wide.len() - 3]), Err(WeightsError::Truncated));
        assert_eq!(text_to_bytes("9999999999=\u{3400}"), Err(WeightsError::Truncated));
    }

    #[test]
    fn utf16_units_count_bmp_characters_once_and_others_twice() {
        assert_eq!(utf16_units("ab"), 2);
        assert_eq!(utf16_units("\u{4E00}\u{AC00}"), 2);
        assert_eq!(utf16_units("\u{1F600}"), 2);
        assert_eq!("\u{4E00}".len(), 3, "three UTF-8 bytes for one unit");
    }
}
