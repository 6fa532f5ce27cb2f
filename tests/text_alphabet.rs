//! The wide alphabet the CodinGame bots carry their weights in: every one of its 32,768
//! symbols is a character no editor, transfer or Unicode normalisation changes, and each counts
//! as one UTF-16 unit, as CodinGame counts.

use bots::text::{bytes_to_text, text_to_bytes, utf16_units, wide_char, wide_symbol, Alphabet};
use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_normalization::UnicodeNormalization;

#[test]
fn every_wide_symbol_is_a_plain_bmp_letter_that_normalisation_leaves_alone() {
    let mut seen = std::collections::HashSet::new();
    for symbol in 0..32_768u32 {
        let c = wide_char(symbol);
        let code = c as u32;
        assert!(code <= 0xFFFF && c.len_utf16() == 1, "U+{code:04X}: in the Basic Multilingual Plane");
        assert!(!(0xD800..=0xDFFF).contains(&code), "U+{code:04X}: a surrogate");
        assert!(!(0xE000..=0xF8FF).contains(&code), "U+{code:04X}: private use");
        assert!(!(0xFDD0..=0xFDEF).contains(&code) && code & 0xFFFE != 0xFFFE, "U+{code:04X}: a noncharacter");
        // An assigned letter: not a control, space, format character or (combining) mark.
        assert_eq!(get_general_category(c), GeneralCategory::OtherLetter, "U+{code:04X}");
        assert!(!c.is_whitespace() && !c.is_control(), "U+{code:04X}");
        let one = c.to_string();
        assert_eq!(one.nfc().collect::<String>(), one, "U+{code:04X}: NFC changes it");
        assert_eq!(one.nfkc().collect::<String>(), one, "U+{code:04X}: NFKC changes it");
        assert_eq!(wide_symbol(c), Some(symbol));
        assert!(seen.insert(c), "U+{code:04X} twice");
    }
}

/// A whole text survives normalisation too (no two neighbours compose), and reads back.
#[test]
fn a_wide_text_survives_normalisation_and_counts_one_unit_a_character() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let bytes: Vec<u8> = (0..50_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let text = bytes_to_text(&bytes, Alphabet::Wide, 1000);
    assert_eq!(text.nfc().collect::<String>(), text);
    assert_eq!(text.nfkc().collect::<String>(), text);
    assert_eq!(text_to_bytes(&text).unwrap(), bytes);
    // 15 bits a character: 2.3 times ASCII's 6.5.
    assert_eq!(utf16_units(&text), text.chars().count());
    let body = text.chars().filter(|&c| c != '\n').count() - "50000=".len();
    assert_eq!(body, (50_000 * 8 + 14) / 15);
}
