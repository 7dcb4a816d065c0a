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
        // Every AVX2 CPU has POPCNT; the dense kernel counts with it.
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
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

    /// Both perspectives after a quiet move, in one call: `dst` and `src`
    /// hold two halves of `n = dst.len() / 2` values (a multiple of 16),
    /// and half `p` gets row `added[p]` in and row `removed[p]` out (rows
    /// of `n` values); i16 sums wrap.
    #[inline]
    pub fn update_quiet(
        self,
        dst: &mut [i16],
        src: &[i16],
        weights: &[i16],
        added: [usize; 2],
        removed: [usize; 2],
    ) {
        let n = dst.len() / 2;
        assert_eq!(src.len(), 2 * n);
        assert!(n.is_multiple_of(16));
        for f in added.into_iter().chain(removed) {
            assert!((f + 1) * n <= weights.len(), "feature row out of range");
        }
        match self {
            Kernels::Scalar => {
                for p in 0..2 {
                    let half = p * n..(p + 1) * n;
                    let (dst, src) = (&mut dst[half.clone()], &src[half]);
                    scalar_update(dst, src, weights, &[added[p]], &[removed[p]]);
                }
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 is present; the lengths and rows checked above.
            Kernels::Avx2 => unsafe { avx2::update_quiet(dst, src, weights, added, removed) },
        }
    }

    /// `sum_i weight[i] * input[i]` (the output layer), `input.len()`
    /// equal to `weight.len()`.
    #[inline]
    pub fn dot(self, weight: &[i16], input: &[u8]) -> i32 {
        assert_eq!(weight.len(), input.len());
        let scalar = |w: &[i16], x: &[u8]| -> i32 {
            w.iter()
                .zip(x)
                .map(|(&w, &x)| i32::from(w) * i32::from(x))
                .sum()
        };
        match self {
            Kernels::Scalar => scalar(weight, input),
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx2 => {
                let whole = input.len() / 16 * 16;
                // SAFETY: AVX2 is present; `whole` values of each, a
                // multiple of 16.
                let head = unsafe { avx2::dot(&weight[..whole], &input[..whole]) };
                head + scalar(&weight[whole..], &input[whole..])
            }
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

    /// A dense layer with clipped ReLU on bucket `bucket` of `layer`:
    /// `out[o] = clamp((bias[o] + sum_i weight[o][i] * input[i]) >> 6, 0,
    /// 127)`. `input.len()` is the layer's inputs (a multiple of 32), `out`
    /// its outputs; `nonzero` has room for `input.len() / 4 + 8` group
    /// numbers (scratch, so the hot path allocates and clears nothing).
    #[inline]
    pub fn dense_crelu(
        self,
        layer: &GroupedLayer,
        bucket: usize,
        input: &[u8],
        out: &mut [u8],
        nonzero: &mut [u16],
    ) {
        assert_eq!(input.len(), layer.inputs);
        assert!(input.len().is_multiple_of(32));
        assert_eq!(out.len(), layer.outputs);
        assert!(nonzero.len() >= input.len() / 4 + 8);
        let (weight, bias) = layer.bucket(bucket);
        match self {
            Kernels::Scalar => scalar_dense(layer.rows(bucket), bias, input, out),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 is present; lengths checked above and by
            // `GroupedLayer::bucket`; `paired` only where its bound holds.
            Kernels::Avx2 => unsafe {
                avx2::dense(weight, bias, input, out, nonzero, layer.paired)
            },
        }
    }
}

/// A dense layer laid out for the kernels: per bucket, per group of four
/// inputs, each output's four i8 weights, outputs padded with zeros to a
/// multiple of 8 (the biases too). One broadcast of four inputs then feeds
/// eight outputs a register (`maddubs`), no sum runs across lanes, and a
/// group of four zero inputs (most of them, after the clipped ReLU) is
/// skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupedLayer {
    /// Two groups' `maddubs` pair sums may be added in i16 before they are
    /// widened (one `madd` for two groups instead of two): exact when no
    /// output's pair of weights exceeds [`PAIRED_WEIGHT_LIMIT`] in absolute
    /// sum, which trained nets keep far below (the shipped ones: 96 and 72).
    paired: bool,
    inputs: usize,
    outputs: usize,
    /// `outputs` rounded up to a multiple of 8.
    padded: usize,
    weight: Vec<i8>,
    bias: Vec<i32>,
    /// The weights as given, row-major (the scalar kernel's layout: each
    /// output's sum over contiguous inputs vectorizes).
    rows: Vec<i8>,
}

impl GroupedLayer {
    /// From row-major `[bucket][output][input]` weights and `[bucket][output]`
    /// biases.
    pub fn new(weight: &[i8], bias: &[i32], inputs: usize, outputs: usize) -> GroupedLayer {
        assert!(inputs.is_multiple_of(4));
        assert!(bias.len().is_multiple_of(outputs));
        let buckets = bias.len() / outputs;
        assert_eq!(weight.len(), buckets * outputs * inputs);
        let padded = outputs.next_multiple_of(8);
        let groups = inputs / 4;
        let mut grouped = vec![0i8; buckets * groups * padded * 4];
        for (row, values) in weight.chunks_exact(inputs).enumerate() {
            let (b, o) = (row / outputs, row % outputs);
            for (i, &w) in values.iter().enumerate() {
                grouped[((b * groups + i / 4) * padded + o) * 4 + i % 4] = w;
            }
        }
        let mut padded_bias = vec![0; buckets * padded];
        for (row, &b) in bias.iter().enumerate() {
            padded_bias[(row / outputs) * padded + row % outputs] = b;
        }
        GroupedLayer {
            paired: paired_sums_fit(weight),
            inputs,
            outputs,
            padded,
            weight: grouped,
            bias: padded_bias,
            rows: weight.to_vec(),
        }
    }

    /// Whether the kernels add two groups' pair sums before widening them.
    pub fn paired(&self) -> bool {
        self.paired
    }

    /// Bucket `b`'s row-major weights.
    fn rows(&self, b: usize) -> &[i8] {
        let len = self.inputs * self.outputs;
        &self.rows[b * len..(b + 1) * len]
    }

    /// Bucket `b`'s weights and (padded) biases.
    fn bucket(&self, b: usize) -> (&[i8], &[i32]) {
        let len = self.inputs * self.padded;
        (
            &self.weight[b * len..(b + 1) * len],
            &self.bias[b * self.padded..(b + 1) * self.padded],
        )
    }
}

/// The largest `|w[2k]| + |w[2k + 1]|` with which two `maddubs` pair sums
/// of activations up to 127 add without leaving i16: 2 x 127 x 129 = 32,766.
pub const PAIRED_WEIGHT_LIMIT: i32 = 129;

/// Whether every pair of neighbouring weights (the pairs `maddubs` sums;
/// rows have an even length) stays within [`PAIRED_WEIGHT_LIMIT`].
fn paired_sums_fit(weight: &[i8]) -> bool {
    weight
        .chunks_exact(2)
        .all(|p| i32::from(p[0]).abs() + i32::from(p[1]).abs() <= PAIRED_WEIGHT_LIMIT)
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

fn scalar_dense(rows: &[i8], bias: &[i32], input: &[u8], out: &mut [u8]) {
    let n = input.len();
    for (o, slot) in out.iter_mut().enumerate() {
        let sum = rows[o * n..(o + 1) * n]
            .iter()
            .zip(input)
            .map(|(&w, &a)| i32::from(w) * i32::from(a))
            .sum::<i32>();
        *slot = ((bias[o] + sum) >> 6).clamp(0, 127) as u8;
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
        // A quiet move (most of a search's): one row in, one out, with the
        // rows' addresses taken once instead of per chunk.
        if let (&[a], &[r]) = (added, removed) {
            // SAFETY: rows `a` and `r` lie in `weights` (checked by the
            // caller), `src` and `dst` hold n values, n a multiple of 16.
            unsafe { move_row(dst.as_mut_ptr(), src.as_ptr(), weights, a, r, n) };
            return;
        }
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

    /// `dst[..n] = src[..n] + row a - row r` (rows of `n` values in
    /// `weights`): a quiet move's update of one accumulator, with the rows'
    /// addresses taken once instead of per chunk.
    ///
    /// # Safety
    /// `src` and `dst` point to `n` values, `n` a multiple of 16, and rows
    /// `a` and `r` lie in `weights`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn move_row(
        dst: *mut i16,
        src: *const i16,
        weights: &[i16],
        a: usize,
        r: usize,
        n: usize,
    ) {
        // SAFETY: the caller's promise; `chunk + 16 <= n`.
        unsafe {
            let (a, r) = (weights.as_ptr().add(a * n), weights.as_ptr().add(r * n));
            for chunk in (0..n).step_by(16) {
                let acc = _mm256_loadu_si256(src.add(chunk).cast());
                let acc = _mm256_add_epi16(acc, _mm256_loadu_si256(a.add(chunk).cast()));
                let acc = _mm256_sub_epi16(acc, _mm256_loadu_si256(r.add(chunk).cast()));
                _mm256_storeu_si256(dst.add(chunk).cast(), acc);
            }
        }
    }

    /// [`move_row`] for both halves (see
    /// [`Kernels::update_quiet`](super::Kernels::update_quiet)).
    #[target_feature(enable = "avx2")]
    pub unsafe fn update_quiet(
        dst: &mut [i16],
        src: &[i16],
        weights: &[i16],
        added: [usize; 2],
        removed: [usize; 2],
    ) {
        let n = dst.len() / 2;
        for p in 0..2 {
            // SAFETY: rows `added[p]` and `removed[p]` lie in `weights`, and
            // half p's n values in `src` and `dst`, n a multiple of 16
            // (checked by the caller).
            unsafe {
                let (src, dst) = (src.as_ptr().add(p * n), dst.as_mut_ptr().add(p * n));
                move_row(dst, src, weights, added[p], removed[p], n);
            }
        }
    }

    /// `sum weight[i] * input[i]` over a multiple of 16 values (inputs
    /// widened to i16; a `madd` pair of u8 x i16 products fits in i32).
    #[target_feature(enable = "avx2")]
    pub unsafe fn dot(weight: &[i16], input: &[u8]) -> i32 {
        let mut acc = _mm256_setzero_si256();
        for chunk in (0..input.len()).step_by(16) {
            // SAFETY: 16 values of each from `chunk` (lengths a multiple of
            // 16, checked by the caller).
            unsafe {
                let x = _mm256_cvtepu8_epi16(_mm_loadu_si128(input.as_ptr().add(chunk).cast()));
                let w = _mm256_loadu_si256(weight.as_ptr().add(chunk).cast());
                acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, w));
            }
        }
        let sum = _mm_add_epi32(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256::<1>(acc),
        );
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b01_00_11_10>(sum));
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b10_11_00_01>(sum));
        _mm_cvtsi128_si32(sum)
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

    /// For each byte, the positions of its set bits, in order.
    const BIT_POSITIONS: [[u16; 8]; 256] = {
        let mut table = [[0u16; 8]; 256];
        let mut byte = 0;
        while byte < 256 {
            let (mut bit, mut n) = (0, 0);
            while bit < 8 {
                if byte & (1 << bit) != 0 {
                    table[byte][n] = bit as u16;
                    n += 1;
                }
                bit += 1;
            }
            byte += 1;
        }
        table
    };

    /// The groups of four inputs that are not all zero, into `nonzero`
    /// (which has 8 entries of slack); returns how many. `input.len()` is a
    /// multiple of 32. Branch-free: eight group numbers are stored per
    /// 32 inputs and the count moves by the ones among them.
    #[target_feature(enable = "avx2,popcnt")]
    fn nonzero_groups(input: &[u8], nonzero: &mut [u16]) -> usize {
        let mut count = 0;
        for chunk in (0..input.len()).step_by(32) {
            // SAFETY: `chunk + 32 <= input.len()`, and `count + 8 <=
            // chunk / 4 + 8 <= nonzero.len()` (checked by the caller).
            unsafe {
                let v = _mm256_loadu_si256(input.as_ptr().add(chunk).cast());
                let zero = _mm256_cmpeq_epi32(v, _mm256_setzero_si256());
                let bits = !_mm256_movemask_ps(_mm256_castsi256_ps(zero)) as usize & 0xFF;
                let base = _mm_set1_epi16((chunk / 4) as i16);
                let positions = _mm_loadu_si128(BIT_POSITIONS[bits].as_ptr().cast());
                let slot = nonzero.as_mut_ptr().add(count).cast();
                _mm_storeu_si128(slot, _mm_add_epi16(base, positions));
                count += bits.count_ones() as usize;
            }
        }
        count
    }

    /// Group `g`'s four inputs broadcast to every i32 lane, and the address
    /// of its weights for outputs `first..`.
    ///
    /// # Safety
    /// Inputs `4 g..4 g + 4` lie in `input`; weights from `(g * padded +
    /// first) * 4` lie in `weight`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn group(
        input: &[u8],
        weight: &[i8],
        g: u16,
        padded: usize,
        first: usize,
    ) -> (__m256i, *const i8) {
        let g = usize::from(g);
        // SAFETY: the caller's promise.
        unsafe {
            let four = input.as_ptr().add(4 * g).cast::<i32>().read_unaligned();
            let row = weight.as_ptr().add((g * padded + first) * 4);
            (_mm256_set1_epi32(four), row)
        }
    }

    /// Outputs `first..first + 8 * R` over the non-zero groups, clipped
    /// into `out` (`R` registers of eight i32 sums). With `PAIRED`, two
    /// groups' i16 pair sums are added before one `madd` widens them (the
    /// layer's weights were checked to allow it).
    #[target_feature(enable = "avx2")]
    fn block<const R: usize, const PAIRED: bool>(
        weight: &[i8],
        bias: &[i32],
        input: &[u8],
        groups: &[u16],
        first: usize,
        out: &mut [u8],
    ) {
        let padded = bias.len();
        let ones = _mm256_set1_epi16(1);
        let mut acc = [_mm256_setzero_si256(); R];
        // SAFETY (every `group` and load below): group g's four inputs and
        // its `padded * 4` weights lie inside `input` and `weight` (checked
        // by the caller), and `first + 8 * R <= padded`.
        let singles = if PAIRED {
            let pairs = groups.chunks_exact(2);
            let rest = pairs.remainder();
            for pair in pairs {
                // SAFETY: see above.
                let ((x0, row0), (x1, row1)) = unsafe {
                    (
                        group(input, weight, pair[0], padded, first),
                        group(input, weight, pair[1], padded, first),
                    )
                };
                for (r, a) in acc.iter_mut().enumerate() {
                    // SAFETY: as above.
                    unsafe {
                        let w0 = _mm256_loadu_si256(row0.add(32 * r).cast());
                        let w1 = _mm256_loadu_si256(row1.add(32 * r).cast());
                        let sums = _mm256_add_epi16(
                            _mm256_maddubs_epi16(x0, w0),
                            _mm256_maddubs_epi16(x1, w1),
                        );
                        *a = _mm256_add_epi32(*a, _mm256_madd_epi16(sums, ones));
                    }
                }
            }
            rest
        } else {
            groups
        };
        for &g in singles {
            // SAFETY: see above.
            let (x, row) = unsafe { group(input, weight, g, padded, first) };
            for (r, a) in acc.iter_mut().enumerate() {
                // SAFETY: as above.
                unsafe {
                    let w = _mm256_loadu_si256(row.add(32 * r).cast());
                    *a = _mm256_add_epi32(*a, _mm256_madd_epi16(_mm256_maddubs_epi16(x, w), ones));
                }
            }
        }
        if R == 4 && first + 32 <= out.len() {
            // SAFETY: 32 biases from `first + 32 <= padded`, 32 bytes out
            // from `first + 32 <= out.len()`.
            unsafe {
                store_clipped4(
                    &acc[..4],
                    bias.as_ptr().add(first),
                    out.as_mut_ptr().add(first),
                )
            };
            return;
        }
        let max = _mm256_set1_epi32(127);
        for (r, a) in acc.into_iter().enumerate() {
            let at = first + 8 * r;
            let mut lanes = [0i32; 8];
            // SAFETY: eight biases from `at < padded`; eight i32 into an
            // eight-element array.
            unsafe {
                let b = _mm256_loadu_si256(bias.as_ptr().add(at).cast());
                let v = _mm256_srai_epi32::<6>(_mm256_add_epi32(a, b));
                let v = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_setzero_si256()), max);
                _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v);
            }
            let slots = out.iter_mut().skip(at).take(8);
            for (slot, lane) in slots.zip(lanes) {
                *slot = lane as u8;
            }
        }
    }

    /// Four registers of eight sums (32 outputs) plus their biases,
    /// shifted and clipped to 0..=127, stored as 32 bytes in output order.
    ///
    /// # Safety
    /// `acc` holds four registers, 32 biases lie from `bias` and 32 bytes
    /// are writable from `out`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn store_clipped4(acc: &[__m256i], bias: *const i32, out: *mut u8) {
        let (zero, max) = (_mm256_setzero_si256(), _mm256_set1_epi32(127));
        // SAFETY: the caller's promise.
        let v: [__m256i; 4] = std::array::from_fn(|r| unsafe {
            let b = _mm256_loadu_si256(bias.add(8 * r).cast());
            let v = _mm256_srai_epi32::<6>(_mm256_add_epi32(acc[r], b));
            _mm256_min_epi32(_mm256_max_epi32(v, zero), max)
        });
        // The packs interleave 128-bit lanes: dwords come out as 0lo 1lo
        // 2lo 3lo 0hi 1hi 2hi 3hi (register, half), put back in order.
        let bytes = _mm256_packus_epi16(
            _mm256_packs_epi32(v[0], v[1]),
            _mm256_packs_epi32(v[2], v[3]),
        );
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        // SAFETY: 32 bytes writable from `out`.
        unsafe { _mm256_storeu_si256(out.cast(), _mm256_permutevar8x32_epi32(bytes, order)) };
    }

    /// `maddubs` multiplies u8 by i8 and adds pairs into i16 (no saturation:
    /// 2 x 127 x 127 < 32768), `madd` by ones widens pairs into i32: each
    /// i32 lane is one output's sum over a group of four inputs.
    #[target_feature(enable = "avx2,popcnt")]
    pub unsafe fn dense(
        weight: &[i8],
        bias: &[i32],
        input: &[u8],
        out: &mut [u8],
        nonzero: &mut [u16],
        paired: bool,
    ) {
        let padded = bias.len();
        let count = nonzero_groups(input, nonzero);
        let groups = &nonzero[..count];
        let mut first = 0;
        while first + 32 <= padded {
            if paired {
                block::<4, true>(weight, bias, input, groups, first, out);
            } else {
                block::<4, false>(weight, bias, input, groups, first, out);
            }
            first += 32;
        }
        while first < padded {
            if paired {
                block::<1, true>(weight, bias, input, groups, first, out);
            } else {
                block::<1, false>(weight, bias, input, groups, first, out);
            }
            first += 8;
        }
    }
}
