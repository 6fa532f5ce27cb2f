//! The forward pass's AVX float kernel, for CPUs with AVX but not AVX2 (CodeCup's server:
//! Sandy Bridge): 256-bit float registers, 128-bit integer ones. Inlined into code compiled for
//! AVX after the CPU was checked. The exporter leaves this file out of bots for platforms whose
//! CPUs all have AVX2.

use std::arch::x86_64::*;

/// Four scaled rows' terms ([`super::scale_rows`]) eight at a time: the products in 256-bit
/// float registers, the sums in two 128-bit integer ones. `(a + R) - (b + R)` is exact (both lie
/// in one binade), the same integer as the plain code's difference of roundings.
#[inline(always)]
pub(super) unsafe fn scale_rows(sums: &mut [i32], rows: [(&[i16], f32, f32); 4]) {
    assert!(sums.len() % 8 == 0 && rows.iter().all(|r| r.0.len() >= sums.len()));
    let rounder = _mm256_set1_ps(super::ROUNDER);
    let scales = rows.map(|(_, old, new)| (_mm256_set1_ps(old), _mm256_set1_ps(new)));
    for o in (0..sums.len()).step_by(8) {
        let mut terms = _mm256_setzero_ps();
        for (&(row, _, _), &(old, new)) in rows.iter().zip(&scales) {
            let x = _mm_loadu_si128(row.as_ptr().add(o).cast());
            let (low, high) = (_mm_cvtepi16_epi32(x), _mm_cvtepi16_epi32(_mm_srli_si128::<8>(x)));
            let weights = _mm256_cvtepi32_ps(_mm256_insertf128_si256::<1>(_mm256_castsi128_si256(low), high));
            // Integers below 2^21 in magnitude: their float sums are exact too.
            terms = _mm256_add_ps(terms, _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(weights, new), rounder), _mm256_add_ps(_mm256_mul_ps(weights, old), rounder)));
        }
        let terms = _mm256_cvtps_epi32(terms);
        let at = sums.as_mut_ptr().add(o);
        _mm_storeu_si128(at.cast(), _mm_add_epi32(_mm_loadu_si128(at.cast()), _mm256_castsi256_si128(terms)));
        _mm_storeu_si128(at.add(4).cast(), _mm_add_epi32(_mm_loadu_si128(at.add(4).cast()), _mm256_extractf128_si256::<1>(terms)));
    }
}
