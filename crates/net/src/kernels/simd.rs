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

/// For every square, the taps on the board: `(tap, source square)`; and
/// the same by tap: `(square, source square)`.
#[derive(Clone, Debug)]
pub struct TapPlan {
    /// `(tap, row)` pairs of all squares, square after square.
    pairs: Vec<(usize, usize)>,
    /// `pairs[starts[s]..starts[s + 1]]` are square `s`'s.
    starts: Vec<usize>,
    /// `by_tap[t]`: `(square, row)` of the squares whose tap `t` is on the
    /// board, squares in order.
    by_tap: Vec<Vec<(usize, usize)>>,
    /// Largest tap index plus one, largest source row plus one.
    taps: usize,
    rows: usize,
}

impl TapPlan {
    /// The plan of `taps` taps (1: the square alone).
    pub fn new(taps: usize) -> TapPlan {
        use crate::diag::{OFF_BOARD, SQUARES, tap_square};
        let mut pairs = Vec::new();
        let mut starts = vec![0];
        let mut by_tap = vec![Vec::new(); taps];
        for s in 0..SQUARES {
            for (t, list) in by_tap.iter_mut().enumerate() {
                let r = tap_square(s, t);
                if r != OFF_BOARD {
                    pairs.push((t, r));
                    list.push((s, r));
                }
            }
            starts.push(pairs.len());
        }
        TapPlan {
            taps: pairs.iter().map(|&(t, _)| t + 1).max().unwrap_or(0),
            rows: pairs.iter().map(|&(_, r)| r + 1).max().unwrap_or(0),
            pairs,
            starts,
            by_tap,
        }
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
        self.taps
    }

    /// Largest source row plus one.
    fn rows(&self) -> usize {
        self.rows
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

/// `(min(0, x...), max(0, x...))`; exact in any order (no NaN expected).
pub fn min_max(isa: Isa, x: &[f32]) -> (f32, f32) {
    match isa {
        Isa::Scalar => min_max_scalar(x),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx2` is only constructed when the CPU has AVX2.
        Isa::Avx2 => unsafe { avx2::min_max(x) },
    }
}

fn min_max_scalar(x: &[f32]) -> (f32, f32) {
    x.iter()
        .fold((0.0f32, 0.0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)))
}

/// `out[k] = (x[k] * inverse + offset) as u8` (truncation: the callers add
/// 0.5 to round half up), the same single roundings in both
/// implementations; the values must land in `0.0..128.0`. `x.len()` a
/// multiple of 32.
pub fn quantize(isa: Isa, x: &[f32], inverse: f32, offset: f32, out: &mut Vec<u8>) {
    assert!(x.len().is_multiple_of(32));
    out.clear();
    match isa {
        Isa::Scalar => out.extend(x.iter().map(|&v| (v * inverse + offset) as u8)),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `min_max`; `out` is resized inside.
        Isa::Avx2 => unsafe { avx2::quantize(x, inverse, offset, out) },
    }
}

/// `y[s][o] = (acc[s][o] - shift[s][o]) as f32 * scale[o] + bias[o]` (no
/// shift: none taken off), a multiply then an add in both implementations.
pub fn dequantize(
    isa: Isa,
    acc: &[i32],
    shift: Option<&[i32]>,
    scale: &[f32],
    bias: &[f32],
    y: &mut [f32],
) {
    let cout = bias.len();
    assert!(cout.is_multiple_of(8) && scale.len() == cout);
    assert!(acc.len() == y.len() && shift.is_none_or(|s| s.len() == y.len()));
    match isa {
        Isa::Scalar => {
            for (k, (y, &a)) in y.iter_mut().zip(acc).enumerate() {
                let sum = shift.map_or(a, |s| a - s[k]);
                *y = sum as f32 * scale[k % cout] + bias[k % cout];
            }
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `min_max`; sizes checked above.
        Isa::Avx2 => unsafe { avx2::dequantize(acc, shift, scale, bias, y) },
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! Tap by tap: for one tap, the squares whose tap is on the board, two
    //! at a time (eight independent accumulators for 32 outputs hide the
    //! FMA latency and every weight load serves both squares). Each
    //! output's terms are still added bias first, then tap by tap, input
    //! by input: the scalar order.

    use super::TapPlan;
    use std::arch::x86_64::*;

    /// The walk both convolutions share, for inputs `$x`, weights `$w` and
    /// outputs `$y`: `$walk` goes tap by tap, the squares whose tap is on
    /// the board two at a time (one tile updates both), then the odd one;
    /// `$row` covers one tap's outputs 32 at a time, then 8, with `$tile`.
    macro_rules! tap_walk {
        ($walk:ident, $row:ident, $tile:ident, $x:ty, $w:ty, $y:ty) => {
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn $walk(
                plan: &TapPlan,
                x: &[$x],
                cin: usize,
                w: &[$w],
                cout: usize,
                y: &mut [$y],
            ) {
                for (t, list) in plan.by_tap.iter().enumerate() {
                    let mut pairs = list.chunks_exact(2);
                    for pair in &mut pairs {
                        let squares = [pair[0], pair[1]];
                        // SAFETY: sizes checked by the caller.
                        unsafe { $row::<2>(squares, t, x, cin, w, cout, y) };
                    }
                    for &single in pairs.remainder() {
                        // SAFETY: as above.
                        unsafe { $row::<1>([single], t, x, cin, w, cout, y) };
                    }
                }
            }

            /// Adds tap `t`'s terms to every output of `S` squares.
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn $row<const S: usize>(
                squares: [(usize, usize); S],
                t: usize,
                x: &[$x],
                cin: usize,
                w: &[$w],
                cout: usize,
                y: &mut [$y],
            ) {
                let mut ob = 0;
                while ob + 32 <= cout {
                    // SAFETY: `ob + 32 <= cout`, the rest checked by the caller.
                    unsafe { $tile::<4, S>(squares, t, x, cin, w, cout, ob, y) };
                    ob += 32;
                }
                while ob < cout {
                    // SAFETY: `ob + 8 <= cout` (`cout` a multiple of 8).
                    unsafe { $tile::<1, S>(squares, t, x, cin, w, cout, ob, y) };
                    ob += 8;
                }
            }
        };
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn min_max(x: &[f32]) -> (f32, f32) {
        let mut chunks = x.chunks_exact(8);
        // SAFETY: loads of whole 8-float chunks.
        let (lo, hi) = unsafe {
            let (mut lo, mut hi) = (_mm256_setzero_ps(), _mm256_setzero_ps());
            for chunk in &mut chunks {
                let v = _mm256_loadu_ps(chunk.as_ptr());
                lo = _mm256_min_ps(lo, v);
                hi = _mm256_max_ps(hi, v);
            }
            let (mut l, mut h) = ([0.0f32; 8], [0.0f32; 8]);
            _mm256_storeu_ps(l.as_mut_ptr(), lo);
            _mm256_storeu_ps(h.as_mut_ptr(), hi);
            (l, h)
        };
        let (rl, rh) = super::min_max_scalar(chunks.remainder());
        let lo = lo.iter().fold(rl, |m, &v| m.min(v));
        let hi = hi.iter().fold(rh, |m, &v| m.max(v));
        (lo, hi)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn quantize(x: &[f32], inverse: f32, offset: f32, out: &mut Vec<u8>) {
        out.resize(x.len(), 0);
        // SAFETY: whole 32-float chunks in, 32 bytes out at the same place.
        unsafe {
            let (inv, off) = (_mm256_set1_ps(inverse), _mm256_set1_ps(offset));
            let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
            for (k, chunk) in x.chunks_exact(32).enumerate() {
                let q = |j: usize| {
                    let v = _mm256_loadu_ps(chunk.as_ptr().add(8 * j));
                    _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(v, inv), off))
                };
                let ab = _mm256_packs_epi32(q(0), q(1));
                let cd = _mm256_packs_epi32(q(2), q(3));
                let bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), order);
                _mm256_storeu_si256(out.as_mut_ptr().add(32 * k) as *mut __m256i, bytes);
            }
        }
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dequantize(
        acc: &[i32],
        shift: Option<&[i32]>,
        scale: &[f32],
        bias: &[f32],
        y: &mut [f32],
    ) {
        let cout = bias.len();
        // SAFETY: sizes checked by the caller; 8-lane chunks within a row.
        unsafe {
            for k in (0..y.len()).step_by(8) {
                let o = k % cout;
                let mut sum = _mm256_loadu_si256(acc.as_ptr().add(k) as *const __m256i);
                if let Some(shift) = shift {
                    let s = _mm256_loadu_si256(shift.as_ptr().add(k) as *const __m256i);
                    sum = _mm256_sub_epi32(sum, s);
                }
                let v = _mm256_mul_ps(
                    _mm256_cvtepi32_ps(sum),
                    _mm256_loadu_ps(scale.as_ptr().add(o)),
                );
                let v = _mm256_add_ps(v, _mm256_loadu_ps(bias.as_ptr().add(o)));
                _mm256_storeu_ps(y.as_mut_ptr().add(k), v);
            }
        }
    }

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
        for row in y.chunks_exact_mut(cout) {
            row.copy_from_slice(bias);
        }
        // SAFETY: sizes checked by the caller.
        unsafe { walk_f32(plan, x, cin, w, cout, y) };
    }

    tap_walk!(walk_f32, row_f32, tile_f32, f32, f32, f32);

    /// Outputs `ob..ob + 8 * B` of `S` squares, tap `t`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile_f32<const B: usize, const S: usize>(
        squares: [(usize, usize); S],
        t: usize,
        x: &[f32],
        cin: usize,
        w: &[f32],
        cout: usize,
        ob: usize,
        y: &mut [f32],
    ) {
        // SAFETY (whole body): every pointer stays inside its slice: the
        // caller checked `x`, `w`, `y` against the plan and `ob + 8B <= cout`.
        unsafe {
            let mut acc = [[_mm256_setzero_ps(); B]; S];
            for (k, &(s, _)) in squares.iter().enumerate() {
                for (b, a) in acc[k].iter_mut().enumerate() {
                    *a = _mm256_loadu_ps(y.as_ptr().add(s * cout + ob + 8 * b));
                }
            }
            let wt = w.as_ptr().add(t * cin * cout + ob);
            for i in 0..cin {
                let wr = wt.add(i * cout);
                let mut wv = [_mm256_setzero_ps(); B];
                for (b, v) in wv.iter_mut().enumerate() {
                    *v = _mm256_loadu_ps(wr.add(8 * b));
                }
                for (k, &(_, r)) in squares.iter().enumerate() {
                    let xv = _mm256_set1_ps(*x.as_ptr().add(r * cin + i));
                    for (a, v) in acc[k].iter_mut().zip(&wv) {
                        *a = _mm256_fmadd_ps(xv, *v, *a);
                    }
                }
            }
            for (k, &(s, _)) in squares.iter().enumerate() {
                for (b, a) in acc[k].iter().enumerate() {
                    _mm256_storeu_ps(y.as_mut_ptr().add(s * cout + ob + 8 * b), *a);
                }
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
        acc.fill(0);
        // SAFETY: sizes checked by the caller.
        unsafe { walk_i8(plan, x, cin, w, cout, acc) };
    }

    tap_walk!(walk_i8, row_i8, tile_i8, u8, i8, i32);

    /// Outputs `ob..ob + 8 * B` of `S` squares, tap `t`: four inputs at a
    /// time, one 32-bit broadcast of their u8 values against 8 outputs x 4
    /// inputs of i8 weights (`maddubs` then `madd` by ones: 8 i32 sums).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile_i8<const B: usize, const S: usize>(
        squares: [(usize, usize); S],
        t: usize,
        x: &[u8],
        cin: usize,
        w: &[i8],
        cout: usize,
        ob: usize,
        acc: &mut [i32],
    ) {
        // SAFETY (whole body): as in `tile_f32`.
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut sums = [[_mm256_setzero_si256(); B]; S];
            for (k, &(s, _)) in squares.iter().enumerate() {
                for (b, sum) in sums[k].iter_mut().enumerate() {
                    let at = acc.as_ptr().add(s * cout + ob + 8 * b);
                    *sum = _mm256_loadu_si256(at as *const __m256i);
                }
            }
            let wt = w.as_ptr().add(t * cin * cout + 4 * ob);
            for i4 in 0..cin / 4 {
                let wr = wt.add(i4 * 4 * cout);
                let mut wv = [_mm256_setzero_si256(); B];
                for (b, v) in wv.iter_mut().enumerate() {
                    *v = _mm256_loadu_si256(wr.add(32 * b) as *const __m256i);
                }
                for (k, &(_, r)) in squares.iter().enumerate() {
                    let four = (x.as_ptr().add(r * cin + 4 * i4) as *const i32).read_unaligned();
                    let xv = _mm256_set1_epi32(four);
                    for (sum, v) in sums[k].iter_mut().zip(&wv) {
                        let pairs = _mm256_maddubs_epi16(xv, *v);
                        *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(pairs, ones));
                    }
                }
            }
            for (k, &(s, _)) in squares.iter().enumerate() {
                for (b, sum) in sums[k].iter().enumerate() {
                    let at = acc.as_mut_ptr().add(s * cout + ob + 8 * b);
                    _mm256_storeu_si256(at as *mut __m256i, *sum);
                }
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
