//! The two convolution kernels of the hand-written diagonal net, scalar and
//! AVX2 + FMA (x86_64, detected at run time), one square row at a time:
//!
//! - f32: `y[s][o] = bias[o] + sum over taps (t, r) of s, inputs i of
//!   x[r][i] * w[t][i][o]`, one fused multiply-add per term in that order
//!   in both implementations, so they give bit-identical results;
//! - int8: `acc[s][o] = sum x[r][i] * w[t][i][o]` over the same terms with
//!   `x` u8 in `0..=127` and `w` i8 in `-127..=127`, exact in i32. AVX2's
//!   `maddubs` adds pairs of u8 x i8 products in i16 with saturation; the
//!   bounds keep a pair within `2 * 127 * 127 = 32,258`, below 32,767, so
//!   it never saturates and both implementations give the same integers.
//!
//! Taps are given per square as `(tap, source row)` pairs of the squares on
//! the board ([`TapPlan`]); off-board taps are skipped, not multiplied by
//! zero rows.

/// Which implementation runs the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Plain loops, any CPU.
    Scalar,
    /// AVX2 and FMA on x86_64; only constructed when the CPU has both.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Isa {
    /// The fastest implementation this CPU runs.
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Isa::Avx2;
        }
        Isa::Scalar
    }

    /// Every implementation this CPU runs (for tests and benchmarks).
    pub fn available() -> Vec<Isa> {
        let mut all = vec![Isa::Scalar];
        if Isa::detect() != Isa::Scalar {
            all.push(Isa::detect());
        }
        all
    }
}

/// For every square, the taps on the board: `(tap, source square)`.
#[derive(Clone, Debug)]
pub struct TapPlan {
    /// `(tap, row)` pairs of all squares, square after square.
    pairs: Vec<(usize, usize)>,
    /// `pairs[starts[s]..starts[s + 1]]` are square `s`'s.
    starts: Vec<usize>,
}

impl TapPlan {
    /// The plan of `taps` taps (1: the square alone).
    pub fn new(taps: usize) -> TapPlan {
        use crate::diag::{OFF_BOARD, SQUARES, tap_square};
        let mut pairs = Vec::new();
        let mut starts = vec![0];
        for s in 0..SQUARES {
            for t in 0..taps {
                let r = tap_square(s, t);
                if r != OFF_BOARD {
                    pairs.push((t, r));
                }
            }
            starts.push(pairs.len());
        }
        TapPlan { pairs, starts }
    }

    /// Square `s`'s on-board `(tap, row)` pairs.
    #[inline]
    pub fn of(&self, s: usize) -> &[(usize, usize)] {
        &self.pairs[self.starts[s]..self.starts[s + 1]]
    }

    /// Squares.
    pub fn squares(&self) -> usize {
        self.starts.len() - 1
    }

    /// Largest tap index plus one.
    fn taps(&self) -> usize {
        self.pairs.iter().map(|&(t, _)| t + 1).max().unwrap_or(0)
    }

    /// Largest source row plus one.
    fn rows(&self) -> usize {
        self.pairs.iter().map(|&(_, r)| r + 1).max().unwrap_or(0)
    }
}

/// Checks the buffer sizes every kernel relies on.
fn check(plan: &TapPlan, x: usize, cin: usize, w: usize, cout: usize, y: usize) {
    assert!(cout.is_multiple_of(8), "outputs padded to a multiple of 8");
    assert!(x >= plan.rows() * cin, "input rows");
    assert!(w >= plan.taps() * cin * cout, "weights");
    assert_eq!(y, plan.squares() * cout, "output rows");
}

/// f32 diagonal convolution: `x` `[rows][cin]`, `w` `[taps][cin][cout]`,
/// `bias` `[cout]`, `y` `[32][cout]`; `cout` a multiple of 8.
pub fn conv_f32(
    isa: Isa,
    plan: &TapPlan,
    x: &[f32],
    cin: usize,
    w: &[f32],
    bias: &[f32],
    y: &mut [f32],
) {
    let cout = bias.len();
    check(plan, x.len(), cin, w.len(), cout, y.len());
    match isa {
        Isa::Scalar => conv_f32_scalar(plan, x, cin, w, bias, y),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx2` is only constructed when the CPU has AVX2 and FMA;
        // the sizes were checked above.
        Isa::Avx2 => unsafe { avx2::conv_f32(plan, x, cin, w, bias, y) },
    }
}

fn conv_f32_scalar(plan: &TapPlan, x: &[f32], cin: usize, w: &[f32], bias: &[f32], y: &mut [f32]) {
    let cout = bias.len();
    for (s, out) in y.chunks_exact_mut(cout).enumerate() {
        out.copy_from_slice(bias);
        for &(t, r) in plan.of(s) {
            let xr = &x[r * cin..(r + 1) * cin];
            let wt = &w[t * cin * cout..(t + 1) * cin * cout];
            for (&xv, wr) in xr.iter().zip(wt.chunks_exact(cout)) {
                for (acc, &wv) in out.iter_mut().zip(wr) {
                    *acc = xv.mul_add(wv, *acc);
                }
            }
        }
    }
}

/// int8 diagonal convolution: `x` u8 `[rows][cin]` in `0..=127`, `w` i8
/// packed `[taps][cin / 4][cout][4]` in `-127..=127`, `acc` i32
/// `[32][cout]`; `cin` a multiple of 4, `cout` a multiple of 8.
pub fn conv_i8(isa: Isa, plan: &TapPlan, x: &[u8], cin: usize, w: &[i8], acc: &mut [i32]) {
    let cout = w.len() / (plan.taps().max(1) * cin.max(1));
    assert!(cin.is_multiple_of(4), "inputs padded to a multiple of 4");
    check(plan, x.len(), cin, w.len(), cout, acc.len());
    debug_assert!(x.iter().all(|&v| v <= 127), "activations within 0..=127");
    debug_assert!(w.iter().all(|&v| v != i8::MIN), "weights within -127..=127");
    match isa {
        Isa::Scalar => conv_i8_scalar(plan, x, cin, w, cout, acc),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `conv_f32`.
        Isa::Avx2 => unsafe { avx2::conv_i8(plan, x, cin, w, cout, acc) },
    }
}

fn conv_i8_scalar(plan: &TapPlan, x: &[u8], cin: usize, w: &[i8], cout: usize, acc: &mut [i32]) {
    for (s, out) in acc.chunks_exact_mut(cout).enumerate() {
        out.fill(0);
        for &(t, r) in plan.of(s) {
            let xr = &x[r * cin..(r + 1) * cin];
            let wt = &w[t * cin * cout..(t + 1) * cin * cout];
            for (x4, w4) in xr.chunks_exact(4).zip(wt.chunks_exact(4 * cout)) {
                for (o, sum) in out.iter_mut().enumerate() {
                    let wo = &w4[4 * o..4 * o + 4];
                    *sum += (0..4)
                        .map(|k| i32::from(x4[k]) * i32::from(wo[k]))
                        .sum::<i32>();
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::TapPlan;
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn conv_f32(
        plan: &TapPlan,
        x: &[f32],
        cin: usize,
        w: &[f32],
        bias: &[f32],
        y: &mut [f32],
    ) {
        let cout = bias.len();
        for s in 0..plan.squares() {
            let mut ob = 0;
            while ob + 32 <= cout {
                // SAFETY: sizes checked by the caller; `ob + 32 <= cout`.
                unsafe { block_f32::<4>(plan.of(s), x, cin, w, bias, ob, y, s) };
                ob += 32;
            }
            while ob < cout {
                // SAFETY: as above, `ob + 8 <= cout`.
                unsafe { block_f32::<1>(plan.of(s), x, cin, w, bias, ob, y, s) };
                ob += 8;
            }
        }
    }

    /// Outputs `ob..ob + 8 * B` of square `s`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn block_f32<const B: usize>(
        taps: &[(usize, usize)],
        x: &[f32],
        cin: usize,
        w: &[f32],
        bias: &[f32],
        ob: usize,
        y: &mut [f32],
        s: usize,
    ) {
        let cout = bias.len();
        // SAFETY (whole body): every pointer stays inside its slice: the
        // caller checked `x`, `w`, `y` against the plan and `ob + 8B <= cout`.
        unsafe {
            let mut acc = [_mm256_setzero_ps(); B];
            for (b, a) in acc.iter_mut().enumerate() {
                *a = _mm256_loadu_ps(bias.as_ptr().add(ob + 8 * b));
            }
            for &(t, r) in taps {
                let xr = x.as_ptr().add(r * cin);
                let wt = w.as_ptr().add(t * cin * cout + ob);
                for i in 0..cin {
                    let xv = _mm256_set1_ps(*xr.add(i));
                    let wr = wt.add(i * cout);
                    for (b, a) in acc.iter_mut().enumerate() {
                        *a = _mm256_fmadd_ps(xv, _mm256_loadu_ps(wr.add(8 * b)), *a);
                    }
                }
            }
            let out = y.as_mut_ptr().add(s * cout + ob);
            for (b, a) in acc.iter().enumerate() {
                _mm256_storeu_ps(out.add(8 * b), *a);
            }
        }
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn conv_i8(
        plan: &TapPlan,
        x: &[u8],
        cin: usize,
        w: &[i8],
        cout: usize,
        acc: &mut [i32],
    ) {
        for s in 0..plan.squares() {
            let mut ob = 0;
            while ob + 32 <= cout {
                // SAFETY: sizes checked by the caller; `ob + 32 <= cout`.
                unsafe { block_i8::<4>(plan.of(s), x, cin, w, cout, ob, acc, s) };
                ob += 32;
            }
            while ob < cout {
                // SAFETY: as above, `ob + 8 <= cout`.
                unsafe { block_i8::<1>(plan.of(s), x, cin, w, cout, ob, acc, s) };
                ob += 8;
            }
        }
    }

    /// Outputs `ob..ob + 8 * B` of square `s`: four inputs at a time, one
    /// 32-bit broadcast of their u8 values against 8 outputs x 4 inputs of
    /// i8 weights (`maddubs` then `madd` by ones gives 8 i32 sums).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn block_i8<const B: usize>(
        taps: &[(usize, usize)],
        x: &[u8],
        cin: usize,
        w: &[i8],
        cout: usize,
        ob: usize,
        acc: &mut [i32],
        s: usize,
    ) {
        // SAFETY (whole body): as in `block_f32`.
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut sums = [_mm256_setzero_si256(); B];
            for &(t, r) in taps {
                let xr = x.as_ptr().add(r * cin);
                let wt = w.as_ptr().add(t * cin * cout + 4 * ob);
                for i4 in 0..cin / 4 {
                    let xv = _mm256_set1_epi32((xr.add(4 * i4) as *const i32).read_unaligned());
                    let wr = wt.add(i4 * 4 * cout);
                    for (b, sum) in sums.iter_mut().enumerate() {
                        let wv = _mm256_loadu_si256(wr.add(32 * b) as *const __m256i);
                        let pairs = _mm256_maddubs_epi16(xv, wv);
                        *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(pairs, ones));
                    }
                }
            }
            let out = acc.as_mut_ptr().add(s * cout + ob);
            for (b, sum) in sums.iter().enumerate() {
                _mm256_storeu_si256(out.add(8 * b) as *mut __m256i, *sum);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn every_implementation_gives_the_same_bits() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for (taps, cin, cout) in [(5, 32, 32), (9, 8, 40), (1, 12, 8), (5, 64, 72)] {
            let plan = TapPlan::new(taps);
            let x: Vec<f32> = (0..33 * cin).map(|_| rng.random_range(-1.0..1.0)).collect();
            let w: Vec<f32> = (0..taps * cin * cout)
                .map(|_| rng.random_range(-1.0..1.0))
                .collect();
            let bias: Vec<f32> = (0..cout).map(|_| rng.random_range(-1.0..1.0)).collect();
            let xq: Vec<u8> = (0..33 * cin).map(|_| rng.random_range(0..=127)).collect();
            let wq: Vec<i8> = (0..taps * cin * cout)
                .map(|_| rng.random_range(-127..=127))
                .collect();
            let run = |isa| {
                let mut y = vec![0.0; 32 * cout];
                conv_f32(isa, &plan, &x, cin, &w, &bias, &mut y);
                let mut acc = vec![0; 32 * cout];
                conv_i8(isa, &plan, &xq, cin, &wq, &mut acc);
                (y, acc)
            };
            let (y0, acc0) = run(Isa::Scalar);
            // The scalar int8 kernel against a plain reading of the formula.
            for s in 0..32 {
                for o in 0..cout {
                    let mut want = 0i32;
                    for &(t, r) in plan.of(s) {
                        for i in 0..cin {
                            let wv = wq[t * cin * cout + (i / 4) * 4 * cout + 4 * o + i % 4];
                            want += i32::from(xq[r * cin + i]) * i32::from(wv);
                        }
                    }
                    assert_eq!(acc0[s * cout + o], want);
                }
            }
            // Extremes: the largest pair sums stay below i16 saturation.
            for isa in Isa::available() {
                let (y, acc) = run(isa);
                assert_eq!(y, y0, "{isa:?} f32");
                assert_eq!(acc, acc0, "{isa:?} int8");
                let mut big = vec![0; 32 * cout];
                let extreme_x = vec![127u8; 33 * cin];
                for sign in [127i8, -127] {
                    let extreme_w = vec![sign; taps * cin * cout];
                    conv_i8(isa, &plan, &extreme_x, cin, &extreme_w, &mut big);
                    let taps0 = plan.of(13).len() as i32;
                    assert_eq!(big[13 * cout], taps0 * cin as i32 * 127 * i32::from(sign));
                }
            }
        }
    }
}
