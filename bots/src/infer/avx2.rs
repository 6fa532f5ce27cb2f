//! The forward pass's 256-bit AVX2 kernels (Haswell on: CodinGame's judges). Each is called
//! only from code compiled for AVX2 after the CPU was checked (`crate::cpu`).

use std::arch::x86_64::*;

/// Eight inputs' bits of [`super::input_masks`] from `c`: one 256-bit compare and `movemask`
/// (the same bits as the plain loop's). Eight floats from `c` must lie in `new` (and in `old`
/// when `DIFFER`).
#[inline(always)]
pub(super) unsafe fn mask_of_eight<const DIFFER: bool>(old: &[f32], new: &[f32], c: usize) -> u32 {
    let x = _mm256_loadu_si256(new.as_ptr().add(c).cast());
    let same = if DIFFER { _mm256_cmpeq_epi32(x, _mm256_loadu_si256(old.as_ptr().add(c).cast())) } else { _mm256_cmpeq_epi32(_mm256_slli_epi32::<1>(x), _mm256_setzero_si256()) };
    (_mm256_movemask_ps(_mm256_castsi256_ps(same)) as u32) ^ 0xff
}

/// [`super::add_rows`]: blocks of eight registers of eight sums, then of four, then of one;
/// each of a constant width, so that its loop over the registers unrolls.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn add_rows(sums: &mut [i32], rows: &[i16], padded: usize, plus: &[u32], minus: &[u32]) {
    let mut start = 0;
    while start + 64 <= padded {
        add_rows_block::<8>(sums, rows, padded, plus, minus, start);
        start += 64;
    }
    while start + 32 <= padded {
        add_rows_block::<4>(sums, rows, padded, plus, minus, start);
        start += 32;
    }
    while start < padded {
        add_rows_block::<1>(sums, rows, padded, plus, minus, start);
        start += 8;
    }
}

#[inline(always)]
unsafe fn add_rows_block<const REGISTERS: usize>(sums: &mut [i32], rows: &[i16], padded: usize, plus: &[u32], minus: &[u32], start: usize) {
    let mut acc = [_mm256_setzero_si256(); REGISTERS];
    let base = sums.as_mut_ptr().add(start);
    for (r, a) in acc.iter_mut().enumerate() {
        *a = _mm256_loadu_si256(base.add(8 * r).cast());
    }
    for &i in plus {
        let row = rows.as_ptr().add(i as usize * padded + start);
        for (r, a) in acc.iter_mut().enumerate() {
            *a = _mm256_add_epi32(*a, _mm256_cvtepi16_epi32(_mm_loadu_si128(row.add(8 * r).cast())));
        }
    }
    for &i in minus {
        let row = rows.as_ptr().add(i as usize * padded + start);
        for (r, a) in acc.iter_mut().enumerate() {
            *a = _mm256_sub_epi32(*a, _mm256_cvtepi16_epi32(_mm_loadu_si128(row.add(8 * r).cast())));
        }
    }
    for (r, a) in acc.iter().enumerate() {
        _mm256_storeu_si256(base.add(8 * r).cast(), *a);
    }
}

/// Adds every active pair's madd into `REGISTERS` registers of sums from `start`: a block of
/// constant width, so that the loop over registers unrolls.
#[inline(always)]
unsafe fn add_block<const REGISTERS: usize>(sums: &mut [i32], pairs: &[i16], padded: usize, active: &[(u32, i32)], start: usize, registers: usize) {
    let mut acc = [_mm256_setzero_si256(); REGISTERS];
    let base = sums.as_mut_ptr().add(start);
    for (r, a) in acc.iter_mut().enumerate().take(registers) {
        *a = _mm256_loadu_si256(base.add(8 * r).cast());
    }
    for &(k, packed) in active {
        let row = pairs.as_ptr().add((k as usize * padded + start) * 2);
        let both = _mm256_set1_epi32(packed);
        for (r, a) in acc.iter_mut().enumerate().take(registers) {
            *a = _mm256_add_epi32(*a, _mm256_madd_epi16(both, _mm256_loadu_si256(row.add(16 * r).cast())));
        }
    }
    for (r, a) in acc.iter().enumerate().take(registers) {
        _mm256_storeu_si256(base.add(8 * r).cast(), *a);
    }
}

/// [`super::add_pairs`]: blocks of eight registers of eight sums, then what is left.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn add_pairs(sums: &mut [i32], pairs: &[i16], padded: usize, active: &[(u32, i32)]) {
    const REGISTERS: usize = 8;
    let mut start = 0;
    while start + 8 * REGISTERS <= padded {
        add_block::<REGISTERS>(sums, pairs, padded, active, start, REGISTERS);
        start += 8 * REGISTERS;
    }
    if start < padded {
        add_block::<REGISTERS>(sums, pairs, padded, active, start, (padded - start) / 8);
    }
}

/// [`super::dot`].
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dot(a: &[i16], w: &[i16]) -> i32 {
    let mut acc = _mm256_setzero_si256();
    let mut i = 0;
    while i + 16 <= a.len() {
        let x = _mm256_loadu_si256(a.as_ptr().add(i).cast());
        let y = _mm256_loadu_si256(w.as_ptr().add(i).cast());
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, y));
        i += 16;
    }
    let half = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    let quarter = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0b01_00_11_10));
    let last = _mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, 0b10_11_00_01));
    _mm_cvtsi128_si32(last)
}
