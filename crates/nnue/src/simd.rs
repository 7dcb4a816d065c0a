//! The integer kernels, scalar and AVX2 (x86_64, detected at run time).
//! Both do the same exact integer arithmetic (i16 sums wrap, pair sums of
//! u8 x i8 stay below i16 saturation by the quantization clip), so they
//! give identical results; the tests check it.

/// Which implementation runs the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernels {
    /// Plain loops, any CPU.
    Scalar,
    /// AVX2 on x86_64; only constructed when the CPU has it.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernels {
    /// The fastest implementation this CPU runs.
    pub fn detect() -> Kernels {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernels::Avx2;
        }
        Kernels::Scalar
    }

    /// Every implementation this CPU runs (for tests and benchmarks).
    pub fn available() -> Vec<Kernels> {
        let mut all = vec![Kernels::Scalar];
        if Kernels::detect() != Kernels::Scalar {
            all.push(Kernels::detect());
        }
        all
    }

    /// `dst = src + sum(rows added) - sum(rows removed)`, where a row is
    /// `weights[f * dst.len()..]`; i16 sums wrap. `dst.len()` is a
    /// multiple of 16.
    #[inline]
    pub fn update(
        self,
        dst: &mut [i16],
        src: &[i16],
        weights: &[i16],
        added: &[usize],
        removed: &[usize],
    ) {
        let n = dst.len();
        assert_eq!(src.len(), n);
        for &f in added.iter().chain(removed) {
            assert!((f + 1) * n <= weights.len(), "feature row out of range");
        }
        match self {
            Kernels::Scalar => scalar_update(dst, src, weights, added, removed),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only constructed when the CPU has AVX2; the
            // lengths were checked above.
            Kernels::Avx2 => unsafe { avx2::update(dst, src, weights, added, removed) },
        }
    }

    /// `dst[i] = clamp(src[i], 0, 127)` as u8; length a multiple of 16.
    #[inline]
    pub fn crelu16(self, src: &[i16], dst: &mut [u8]) {
        assert_eq!(src.len(), dst.len());
        assert!(src.len().is_multiple_of(16));
        match self {
            Kernels::Scalar => {
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = s.clamp(0, 127) as u8;
                }
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 is present; lengths checked.
            Kernels::Avx2 => unsafe { avx2::crelu16(src, dst) },
        }
    }

    /// A dense layer with clipped ReLU: `out[o] = clamp((bias[o] +
    /// sum_i weight[o][i] * input[i]) >> 6, 0, 127)`. `input.len()` is a
    /// multiple of 32 for AVX2.
    #[inline]
    pub fn dense_crelu(self, weight: &[i8], bias: &[i32], input: &[u8], out: &mut [u8]) {
        assert_eq!(weight.len(), input.len() * out.len());
        assert_eq!(bias.len(), out.len());
        match self {
            Kernels::Scalar => scalar_dense(weight, bias, input, out),
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx2 if input.len().is_multiple_of(32) => {
                // SAFETY: AVX2 is present; lengths checked.
                unsafe { avx2::dense(weight, bias, input, out) }
            }
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx2 => scalar_dense(weight, bias, input, out),
        }
    }
}

fn scalar_update(
    dst: &mut [i16],
    src: &[i16],
    weights: &[i16],
    added: &[usize],
    removed: &[usize],
) {
    let n = dst.len();
    dst.copy_from_slice(src);
    for &f in added {
        for (d, w) in dst.iter_mut().zip(&weights[f * n..(f + 1) * n]) {
            *d = d.wrapping_add(*w);
        }
    }
    for &f in removed {
        for (d, w) in dst.iter_mut().zip(&weights[f * n..(f + 1) * n]) {
            *d = d.wrapping_sub(*w);
        }
    }
}

fn scalar_dense(weight: &[i8], bias: &[i32], input: &[u8], out: &mut [u8]) {
    let n = input.len();
    for (o, slot) in out.iter_mut().enumerate() {
        let row = &weight[o * n..(o + 1) * n];
        let sum = bias[o]
            + row
                .iter()
                .zip(input)
                .map(|(&w, &a)| i32::from(w) * i32::from(a))
                .sum::<i32>();
        *slot = (sum >> 6).clamp(0, 127) as u8;
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// Chunks of 16 lanes; up to 16 x 16 = 256 accumulator values held in
    /// registers per pass would spill, so each chunk is loaded, updated by
    /// every row and stored.
    #[target_feature(enable = "avx2")]
    pub unsafe fn update(
        dst: &mut [i16],
        src: &[i16],
        weights: &[i16],
        added: &[usize],
        removed: &[usize],
    ) {
        let n = dst.len();
        for chunk in (0..n).step_by(16) {
            // SAFETY (all loads and stores): `chunk + 16 <= n` because n is a
            // multiple of 16, and every row was checked to lie in `weights`.
            unsafe {
                let mut acc = _mm256_loadu_si256(src.as_ptr().add(chunk).cast());
                for &f in added {
                    let w = _mm256_loadu_si256(weights.as_ptr().add(f * n + chunk).cast());
                    acc = _mm256_add_epi16(acc, w);
                }
                for &f in removed {
                    let w = _mm256_loadu_si256(weights.as_ptr().add(f * n + chunk).cast());
                    acc = _mm256_sub_epi16(acc, w);
                }
                _mm256_storeu_si256(dst.as_mut_ptr().add(chunk).cast(), acc);
            }
        }
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn crelu16(src: &[i16], dst: &mut [u8]) {
        let zero = _mm256_setzero_si256();
        let max = _mm256_set1_epi16(127);
        for chunk in (0..src.len()).step_by(16) {
            // SAFETY: 16 values in and out from `chunk`, inside both slices.
            unsafe {
                let x = _mm256_loadu_si256(src.as_ptr().add(chunk).cast());
                let x = _mm256_min_epi16(_mm256_max_epi16(x, zero), max);
                let packed =
                    _mm_packus_epi16(_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
                _mm_storeu_si128(dst.as_mut_ptr().add(chunk).cast(), packed);
            }
        }
    }

    #[target_feature(enable = "avx2")]
    fn horizontal_sum(v: __m256i) -> i32 {
        let sum128 = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let sum64 = _mm_add_epi32(sum128, _mm_unpackhi_epi64(sum128, sum128));
        let sum32 = _mm_add_epi32(sum64, _mm_shuffle_epi32::<1>(sum64));
        _mm_cvtsi128_si32(sum32)
    }

    /// `maddubs` multiplies u8 by i8 and adds pairs into i16 (no saturation:
    /// 2 x 128 x 127 < 32768), `madd` by ones widens pairs into i32. Four
    /// output rows at a time share one reduction (`hadd`).
    #[target_feature(enable = "avx2")]
    pub unsafe fn dense(weight: &[i8], bias: &[i32], input: &[u8], out: &mut [u8]) {
        let n = input.len();
        let ones = _mm256_set1_epi16(1);
        let row_sum = |o: usize| {
            let mut acc = _mm256_setzero_si256();
            for chunk in (0..n).step_by(32) {
                // SAFETY: n is a multiple of 32 and `weight` holds `out.len()`
                // rows of n.
                unsafe {
                    let a = _mm256_loadu_si256(input.as_ptr().add(chunk).cast());
                    let w = _mm256_loadu_si256(weight.as_ptr().add(o * n + chunk).cast());
                    let pairs = _mm256_maddubs_epi16(a, w);
                    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
                }
            }
            acc
        };
        let quads = out.len() / 4;
        for q in 0..quads {
            let o = 4 * q;
            let s01 = _mm256_hadd_epi32(row_sum(o), row_sum(o + 1));
            let s23 = _mm256_hadd_epi32(row_sum(o + 2), row_sum(o + 3));
            let s = _mm256_hadd_epi32(s01, s23);
            let sums = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
            // SAFETY: rows o..o + 4 exist, so do their biases.
            let b = unsafe { _mm_loadu_si128(bias.as_ptr().add(o).cast()) };
            let v = _mm_srai_epi32::<6>(_mm_add_epi32(sums, b));
            let v = _mm_min_epi32(_mm_max_epi32(v, _mm_setzero_si128()), _mm_set1_epi32(127));
            let mut lanes = [0i32; 4];
            // SAFETY: four i32 into a four-element array.
            unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), v) };
            for (slot, lane) in out[o..o + 4].iter_mut().zip(lanes) {
                *slot = lane as u8;
            }
        }
        for (o, slot) in out.iter_mut().enumerate().skip(4 * quads) {
            let sum = bias[o] + horizontal_sum(row_sum(o));
            *slot = (sum >> 6).clamp(0, 127) as u8;
        }
    }
}
