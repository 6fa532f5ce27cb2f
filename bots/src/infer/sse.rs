//! The forward pass's 128-bit integer kernels, for CPUs without AVX2: SSE2 (every x86-64) and,
//! where the CPU has it (`WIDE_EXTEND`), SSE4.1's sign extension. Each is inlined into its
//! caller, so that code compiled for AVX (CodeCup's server: Sandy Bridge) takes AVX's
//! encodings. The exporter leaves this file out of bots for platforms whose CPUs all have AVX2.

use std::arch::x86_64::*;

/// Eight inputs' bits of [`super::input_masks`] from `c`: two 128-bit compares and `movemask`
/// (the same bits as the plain loop's). Eight floats from `c` must lie in `new` (and in `old`
/// when `DIFFER`).
#[inline(always)]
pub(super) unsafe fn mask_of_eight<const DIFFER: bool>(old: &[f32], new: &[f32], c: usize) -> u32 {
    (same_of_four::<DIFFER>(old, new, c) | same_of_four::<DIFFER>(old, new, c + 4) << 4) ^ 0xff
}

/// The bits of the four inputs from `at` that did not change (`DIFFER`) or are zero.
#[inline(always)]
unsafe fn same_of_four<const DIFFER: bool>(old: &[f32], new: &[f32], at: usize) -> u32 {
    let x = _mm_loadu_si128(new.as_ptr().add(at).cast());
    let same = if DIFFER { _mm_cmpeq_epi32(x, _mm_loadu_si128(old.as_ptr().add(at).cast())) } else { _mm_cmpeq_epi32(_mm_slli_epi32::<1>(x), _mm_setzero_si128()) };
    _mm_movemask_ps(_mm_castsi128_ps(same)) as u32
}

/// Eight i16 from `at`, sign-extended to two registers of four i32: SSE4.1's `pmovsxwd` with
/// `WIDE_EXTEND`, SSE2's unpack and shift without.
#[inline(always)]
unsafe fn widen<const WIDE_EXTEND: bool>(at: *const i16) -> (__m128i, __m128i) {
    let x = _mm_loadu_si128(at.cast());
    if WIDE_EXTEND {
        (_mm_cvtepi16_epi32(x), _mm_cvtepi16_epi32(_mm_srli_si128::<8>(x)))
    } else {
        (_mm_srai_epi32::<16>(_mm_unpacklo_epi16(x, x)), _mm_srai_epi32::<16>(_mm_unpackhi_epi16(x, x)))
    }
}

/// [`super::add_rows`]: blocks of `2 * PAIRS` registers of four sums kept in registers over
/// all the rows (the sums are read and written once a block, not once a row), then one of
/// what is left. `padded` is a multiple of 8.
#[inline(always)]
pub(super) unsafe fn add_rows<const WIDE_EXTEND: bool>(sums: &mut [i32], rows: &[i16], padded: usize, plus: &[u32], minus: &[u32]) {
    // Six pairs: twelve of x86-64's sixteen registers, 48 sums a block.
    const PAIRS: usize = 6;
    let mut start = 0;
    while start + 8 * PAIRS <= padded {
        add_rows_block::<WIDE_EXTEND, PAIRS>(sums, rows, padded, plus, minus, start, PAIRS);
        start += 8 * PAIRS;
    }
    if start < padded {
        add_rows_block::<WIDE_EXTEND, PAIRS>(sums, rows, padded, plus, minus, start, (padded - start) / 8);
    }
}

#[inline(always)]
unsafe fn add_rows_block<const WIDE_EXTEND: bool, const PAIRS: usize>(sums: &mut [i32], rows: &[i16], padded: usize, plus: &[u32], minus: &[u32], start: usize, pairs: usize) {
    let mut acc = [(_mm_setzero_si128(), _mm_setzero_si128()); PAIRS];
    let base = sums.as_mut_ptr().add(start);
    for (r, a) in acc.iter_mut().enumerate().take(pairs) {
        *a = (_mm_loadu_si128(base.add(8 * r).cast()), _mm_loadu_si128(base.add(8 * r + 4).cast()));
    }
    for &i in plus {
        let row = rows.as_ptr().add(i as usize * padded + start);
        for (r, a) in acc.iter_mut().enumerate().take(pairs) {
            let (low, high) = widen::<WIDE_EXTEND>(row.add(8 * r));
            *a = (_mm_add_epi32(a.0, low), _mm_add_epi32(a.1, high));
        }
    }
    for &i in minus {
        let row = rows.as_ptr().add(i as usize * padded + start);
        for (r, a) in acc.iter_mut().enumerate().take(pairs) {
            let (low, high) = widen::<WIDE_EXTEND>(row.add(8 * r));
            *a = (_mm_sub_epi32(a.0, low), _mm_sub_epi32(a.1, high));
        }
    }
    for (r, a) in acc.iter().enumerate().take(pairs) {
        _mm_storeu_si128(base.add(8 * r).cast(), a.0);
        _mm_storeu_si128(base.add(8 * r + 4).cast(), a.1);
    }
}

/// Four scaled rows' terms ([`super::scale_rows`]) four at a time, in SSE2's float registers;
/// `(a + R) - (b + R)` is exact (both lie in one binade), the same integer as the plain code's
/// difference of roundings.
#[inline(always)]
pub(super) unsafe fn scale_rows(sums: &mut [i32], rows: [(&[i16], f32, f32); 4]) {
    assert!(sums.len() % 8 == 0 && rows.iter().all(|r| r.0.len() >= sums.len()));
    let rounder = _mm_set1_ps(super::ROUNDER);
    let scales = rows.map(|(_, old, new)| (_mm_set1_ps(old), _mm_set1_ps(new)));
    // Four at a time: eight rows' two scales, the rounder and the terms fill most of SSE2's
    // sixteen registers.
    for o in (0..sums.len()).step_by(4) {
        let mut terms = _mm_setzero_ps();
        for (&(row, _, _), &(old, new)) in rows.iter().zip(&scales) {
            let x = _mm_loadl_epi64(row.as_ptr().add(o).cast());
            // Sign-extended to i32 (SSE2 has no instruction of its own for it), then floats.
            let w = _mm_cvtepi32_ps(_mm_srai_epi32::<16>(_mm_unpacklo_epi16(x, x)));
            terms = _mm_add_ps(terms, _mm_sub_ps(_mm_add_ps(_mm_mul_ps(w, new), rounder), _mm_add_ps(_mm_mul_ps(w, old), rounder)));
        }
        let at = sums.as_mut_ptr().add(o);
        _mm_storeu_si128(at.cast(), _mm_add_epi32(_mm_loadu_si128(at.cast()), _mm_cvtps_epi32(terms)));
    }
}

/// Adds every active pair's madd into `REGISTERS` registers of sums from `start`: a block of
/// constant width, so that the loop over registers unrolls.
#[inline(always)]
unsafe fn add_block<const REGISTERS: usize>(sums: &mut [i32], pairs: &[i16], padded: usize, active: &[(u32, i32)], start: usize, registers: usize) {
    let mut acc = [_mm_setzero_si128(); REGISTERS];
    let base = sums.as_mut_ptr().add(start);
    for (r, a) in acc.iter_mut().enumerate().take(registers) {
        *a = _mm_loadu_si128(base.add(4 * r).cast());
    }
    for &(k, packed) in active {
        let row = pairs.as_ptr().add((k as usize * padded + start) * 2);
        let both = _mm_set1_epi32(packed);
        for (r, a) in acc.iter_mut().enumerate().take(registers) {
            *a = _mm_add_epi32(*a, _mm_madd_epi16(both, _mm_loadu_si128(row.add(8 * r).cast())));
        }
    }
    for (r, a) in acc.iter().enumerate().take(registers) {
        _mm_storeu_si128(base.add(4 * r).cast(), *a);
    }
}

/// [`super::add_pairs`]: blocks of twelve registers of four sums (of x86-64's sixteen).
#[inline(always)]
pub(super) unsafe fn add_pairs(sums: &mut [i32], pairs: &[i16], padded: usize, active: &[(u32, i32)]) {
    const REGISTERS: usize = 12;
    let mut start = 0;
    while start + 4 * REGISTERS <= padded {
        add_block::<REGISTERS>(sums, pairs, padded, active, start, REGISTERS);
        start += 4 * REGISTERS;
    }
    if start < padded {
        add_block::<REGISTERS>(sums, pairs, padded, active, start, (padded - start) / 4);
    }
}

/// [`super::dot`].
#[inline(always)]
pub(super) unsafe fn dot(a: &[i16], w: &[i16]) -> i32 {
    // Two accumulators: each madd waits on the one before it in its own chain only.
    let (mut even, mut odd) = (_mm_setzero_si128(), _mm_setzero_si128());
    let mut i = 0;
    while i + 16 <= a.len() {
        let x0 = _mm_loadu_si128(a.as_ptr().add(i).cast());
        let y0 = _mm_loadu_si128(w.as_ptr().add(i).cast());
        let x1 = _mm_loadu_si128(a.as_ptr().add(i + 8).cast());
        let y1 = _mm_loadu_si128(w.as_ptr().add(i + 8).cast());
        even = _mm_add_epi32(even, _mm_madd_epi16(x0, y0));
        odd = _mm_add_epi32(odd, _mm_madd_epi16(x1, y1));
        i += 16;
    }
    let half = _mm_add_epi32(even, odd);
    let quarter = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0b01_00_11_10));
    let last = _mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, 0b10_11_00_01));
    _mm_cvtsi128_si32(last)
}
