// How much cheaper are a first layer's row additions into i16 sums than into i32 sums (AVX2)?
// 256 outputs (UTTT's first layer), 451 rows, 60 rows added a position (a fresh computation)
// or 8 changed (an update).
use std::arch::x86_64::*;
use std::time::Instant;

#[target_feature(enable = "avx2")]
unsafe fn add_i32(sums: &mut [i32; 256], rows: &[i16], list: &[u32]) {
    for block in 0..4 {
        let mut acc = [_mm256_setzero_si256(); 8];
        for r in 0..8 { acc[r] = _mm256_loadu_si256(sums.as_ptr().add(64 * block + 8 * r).cast()); }
        for &i in list {
            let row = rows.as_ptr().add(i as usize * 256 + 64 * block);
            for r in 0..8 { acc[r] = _mm256_add_epi32(acc[r], _mm256_cvtepi16_epi32(_mm_loadu_si128(row.add(8 * r).cast()))); }
        }
        for r in 0..8 { _mm256_storeu_si256(sums.as_mut_ptr().add(64 * block + 8 * r).cast(), acc[r]); }
    }
}

#[target_feature(enable = "avx2")]
unsafe fn add_i16(sums: &mut [i16; 256], rows: &[i16], list: &[u32]) {
    for block in 0..2 {
        let mut acc = [_mm256_setzero_si256(); 8];
        for r in 0..8 { acc[r] = _mm256_loadu_si256(sums.as_ptr().add(128 * block + 16 * r).cast()); }
        for &i in list {
            let row = rows.as_ptr().add(i as usize * 256 + 128 * block);
            for r in 0..8 { acc[r] = _mm256_add_epi16(acc[r], _mm256_loadu_si256(row.add(16 * r).cast())); }
        }
        for r in 0..8 { _mm256_storeu_si256(sums.as_mut_ptr().add(128 * block + 16 * r).cast(), acc[r]); }
    }
}

fn main() {
    let mut seed = 12345u64;
    let mut next = || { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; seed };
    let rows: Vec<i16> = (0..451 * 256).map(|_| (next() % 2001) as i16 - 1000).collect();
    for &count in &[60usize, 8] {
        let lists: Vec<Vec<u32>> = (0..1024).map(|_| (0..count).map(|_| (next() % 451) as u32).collect()).collect();
        let n = if count == 60 { 400_000 } else { 2_000_000 };
        for _round in 0..3 {
            let mut s32 = [0i32; 256];
            let t = Instant::now();
            for k in 0..n { unsafe { add_i32(&mut s32, &rows, &lists[k & 1023]) } }
            let a = t.elapsed().as_nanos() as f64 / n as f64;
            let mut s16 = [0i16; 256];
            let t = Instant::now();
            for k in 0..n { unsafe { add_i16(&mut s16, &rows, &lists[k & 1023]) } }
            let b = t.elapsed().as_nanos() as f64 / n as f64;
            println!("{count} rows: i32 {a:.0} ns, i16 {b:.0} ns, ratio {:.2} ({} {})", a / b, s32[7], s16[7]);
        }
    }
}
