//! The integer kernels, scalar and AVX2 (x86_64, detected at run time).
//! Both do the same exact integer arithmetic (i16 sums wrap, pair sums of
//! u8 x i8 stay below i16 saturation by the quantization clip), so they
//! give identical results; the tests check it.

use crate::aligned::AlignedVec;

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
        // The largest row, not a loop over the four: a chain of the two
        // arrays was copied through the stack and stalled the loads.
        let last = added[0].max(added[1]).max(removed[0]).max(removed[1]);
        assert!((last + 1) * n <= weights.len(), "feature row out of range");
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
        match self {
            Kernels::Scalar => scalar_dot(weight, input),
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx2 => {
                let whole = input.len() / 16 * 16;
                // SAFETY: AVX2 is present; `whole` values of each, a
                // multiple of 16.
                let head = unsafe { avx2::dot(&weight[..whole], &input[..whole]) };
                head + scalar_dot(&weight[whole..], &input[whole..])
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
    /// its outputs.
    #[inline]
    pub fn dense_crelu(self, layer: &GroupedLayer, bucket: usize, input: &[u8], out: &mut [u8]) {
        assert_eq!(input.len(), layer.inputs);
        assert!(input.len().is_multiple_of(32));
        assert_eq!(out.len(), layer.outputs);
        let (weight, bias) = layer.bucket(bucket);
        match self {
            Kernels::Scalar => scalar_dense(layer.rows(bucket), bias, input, out),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 is present; lengths checked above and by
            // `GroupedLayer::bucket`; `fold` only as far as its bound holds.
            Kernels::Avx2 => unsafe { avx2::dense(weight, bias, input, out, layer.fold) },
        }
    }
}

/// The layers after the accumulators, one output bucket's: the two
/// hidden layers (regrouped) and the output layer's weights.
#[derive(Clone, Copy, Debug)]
pub struct DenseStack<'a> {
    /// The first hidden layer: `2 ft` inputs.
    pub l1: &'a GroupedLayer,
    /// The second hidden layer.
    pub l2: &'a GroupedLayer,
    /// The output layer's weights (the bucket's row).
    pub out: &'a [i16],
    /// The bucket.
    pub bucket: usize,
}

/// The activations between the layers (one evaluator's, so that an
/// evaluation allocates nothing).
#[derive(Clone, Debug)]
pub struct Activations {
    input: Vec<u8>,
    a1: Vec<u8>,
    a2: Vec<u8>,
}

impl Activations {
    /// Buffers for `2 ft` inputs and hidden widths `h1`, `h2`.
    pub fn new(ft: usize, [h1, h2]: [usize; 2]) -> Activations {
        Activations {
            input: vec![0; 2 * ft],
            a1: vec![0; h1],
            a2: vec![0; h2],
        }
    }
}

impl Kernels {
    /// The output sum (without the output bias) of `stack` on the two
    /// accumulators, side to move's first: [`crelu16`](Kernels::crelu16)
    /// of both, [`dense_crelu`](Kernels::dense_crelu) twice and
    /// [`dot`](Kernels::dot), in one call (with AVX2, one function with
    /// the kernels inlined, where a second layer of one block of 32 feeds
    /// the output without storing its activations).
    pub fn propagate(
        self,
        stack: DenseStack,
        [own, opp]: [&[i16]; 2],
        act: &mut Activations,
    ) -> i32 {
        let Activations { input, a1, a2 } = act;
        let ft = own.len();
        assert!(opp.len() == ft && input.len() == 2 * ft && ft.is_multiple_of(16));
        let (l1, l2) = (stack.l1, stack.l2);
        assert!(l1.inputs == 2 * ft && l1.outputs == a1.len() && l2.inputs == a1.len());
        assert!(l1.inputs.is_multiple_of(32) && l2.inputs.is_multiple_of(32));
        assert!(l2.outputs == a2.len() && stack.out.len() == a2.len());
        match self {
            Kernels::Scalar => {
                self.crelu16(own, &mut input[..ft]);
                self.crelu16(opp, &mut input[ft..]);
                self.dense_crelu(l1, stack.bucket, input, a1);
                self.dense_crelu(l2, stack.bucket, a1, a2);
                self.dot(stack.out, a2)
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 is present; every length checked above (and the
            // buckets' by `GroupedLayer::bucket`); each `fold` only as far
            // as its bound holds.
            Kernels::Avx2 => unsafe { avx2::propagate(stack, [own, opp], act) },
        }
    }
}

/// A dense layer laid out for the kernels: per bucket, per group of four
/// inputs, each output's four i8 weights, outputs padded with zeros to a
/// multiple of 8 (the biases too). One broadcast of four inputs then feeds
/// eight outputs a register (`maddubs`) and no sum runs across lanes. Every
/// group is multiplied, zero or not: after the clipped ReLU nearly nine in
/// ten groups of the shipped nets' first layer hold a non-zero input, and
/// listing the others cost more than their multiplies (docs/BENCHMARKS.md,
/// "All groups, four at a time").
#[derive(Clone, Debug, PartialEq)]
pub struct GroupedLayer {
    /// How many groups' `maddubs` sums (1, 2 or 4) are added in i16 before
    /// one `madd` widens them: exact while the weights any one i16 lane
    /// sums stay within [`I16_LANE_LIMIT`] in absolute sum, which trained
    /// nets keep far below (the shipped ones: at most 159 over four groups).
    fold: usize,
    inputs: usize,
    outputs: usize,
    /// `outputs` rounded up to a multiple of 8.
    padded: usize,
    weight: AlignedVec<i8>,
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
            fold: [4, 2]
                .into_iter()
                .find(|&fold| lanes_fit(weight, inputs, fold))
                .unwrap_or(1),
            inputs,
            outputs,
            padded,
            weight: AlignedVec::from_slice(&grouped),
            bias: padded_bias,
            rows: weight.to_vec(),
        }
    }

    /// How many groups' pair sums the kernels add in i16 before widening
    /// them (1, 2 or 4).
    pub fn fold(&self) -> usize {
        self.fold
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
            &self.weight.as_slice()[b * len..(b + 1) * len],
            &self.bias[b * self.padded..(b + 1) * self.padded],
        )
    }
}

/// The largest sum of `|w|` over the weights one i16 lane adds up with
/// which its sum of activations up to 127 stays in i16: 127 x 258 =
/// 32,766 (the lanes wrap, so only the final sum must fit; one `maddubs`
/// pair, at most 2 x 127 x 128, never saturates).
pub const I16_LANE_LIMIT: i32 = 258;

/// Whether `fold` groups' `maddubs` sums add in i16 exactly: in every row of
/// `inputs` weights, for each run of `fold` groups of four, the `2 fold`
/// weights that share an i16 lane (inputs 0, 1 or 2, 3 of each group) stay
/// within [`I16_LANE_LIMIT`].
fn lanes_fit(weight: &[i8], inputs: usize, fold: usize) -> bool {
    weight.chunks_exact(inputs).all(|row| {
        row.chunks_exact(4 * fold).all(|run| {
            (0..2).all(|lane| {
                let sum: i32 = run
                    .chunks_exact(4)
                    .map(|group| {
                        i32::from(group[2 * lane]).abs() + i32::from(group[2 * lane + 1]).abs()
                    })
                    .sum();
                sum <= I16_LANE_LIMIT
            })
        })
    })
}

/// `sum_i weight[i] * input[i]`.
fn scalar_dot(weight: &[i16], input: &[u8]) -> i32 {
    weight
        .iter()
        .zip(input)
        .map(|(&w, &x)| i32::from(w) * i32::from(x))
        .sum()
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

    /// [`Kernels::propagate`], its lengths checked by it: every kernel
    /// below is inlined into this one function.
    #[target_feature(enable = "avx2")]
    pub unsafe fn propagate(
        stack: super::DenseStack,
        [own, opp]: [&[i16]; 2],
        act: &mut super::Activations,
    ) -> i32 {
        let super::Activations { input, a1, a2 } = act;
        let ft = own.len();
        let (l1, l2) = (stack.l1, stack.l2);
        let ((w1, b1), (w2, b2)) = (l1.bucket(stack.bucket), l2.bucket(stack.bucket));
        let whole = a2.len() / 16 * 16;
        // SAFETY: the caller checked every length.
        unsafe {
            crelu16(own, &mut input[..ft]);
            crelu16(opp, &mut input[ft..]);
            dense(w1, b1, input, a1, l1.fold);
            if b2.len() == 32 && a2.len() == 32 {
                // One block of 32: its activations go straight into the
                // output's products, never stored and loaded back.
                let acc = match l2.fold {
                    4 => sums::<4, 4>(w2, 32, a1, 0),
                    2 => sums::<4, 2>(w2, 32, a1, 0),
                    _ => sums::<4, 1>(w2, 32, a1, 0),
                };
                return clipped_dot4(&acc, b2.as_ptr(), stack.out.as_ptr());
            }
            dense(w2, b2, a1, a2, l2.fold);
            let head = dot(&stack.out[..whole], &a2[..whole]);
            head + super::scalar_dot(&stack.out[whole..], &a2[whole..])
        }
    }

    /// `sum_o clamp((acc[o] + bias[o]) >> 6, 0, 127) * weight[o]` over the
    /// 32 outputs of four registers of sums (i32 products: at most 127 x
    /// 32,767 each).
    ///
    /// # Safety
    /// 32 biases lie from `bias` and 32 weights from `weight`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn clipped_dot4(acc: &[__m256i; 4], bias: *const i32, weight: *const i16) -> i32 {
        let (zero, max) = (_mm256_setzero_si256(), _mm256_set1_epi32(127));
        let mut total = _mm256_setzero_si256();
        for (r, a) in acc.iter().enumerate() {
            // SAFETY: the caller's promise.
            unsafe {
                let b = _mm256_loadu_si256(bias.add(8 * r).cast());
                let v = _mm256_srai_epi32::<6>(_mm256_add_epi32(*a, b));
                let v = _mm256_min_epi32(_mm256_max_epi32(v, zero), max);
                let w = _mm256_cvtepi16_epi32(_mm_loadu_si128(weight.add(8 * r).cast()));
                total = _mm256_add_epi32(total, _mm256_mullo_epi32(v, w));
            }
        }
        horizontal_sum(total)
    }

    /// The sum of eight i32 lanes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn horizontal_sum(v: __m256i) -> i32 {
        let sum = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b01_00_11_10>(sum));
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b10_11_00_01>(sum));
        _mm_cvtsi128_si32(sum)
    }

    /// `sum weight[i] * input[i]` over a multiple of 16 values (inputs
    /// widened to i16; a `madd` pair of u8 x i16 products fits in i32).
    #[target_feature(enable = "avx2")]
    #[inline]
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
        horizontal_sum(acc)
    }

    /// 32 values a turn: `packus` clips below at 0 (and above at 255),
    /// `min` at 127; the pack interleaves the two registers' 128-bit lanes,
    /// which one permute puts back in order. A tail of 16 is done alone.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub unsafe fn crelu16(src: &[i16], dst: &mut [u8]) {
        let max = _mm256_set1_epi8(127);
        let whole = src.len() / 32 * 32;
        for chunk in (0..whole).step_by(32) {
            // SAFETY: 32 values in and out from `chunk + 32 <= src.len()`.
            unsafe {
                let a = _mm256_loadu_si256(src.as_ptr().add(chunk).cast());
                let b = _mm256_loadu_si256(src.as_ptr().add(chunk + 16).cast());
                let packed = _mm256_min_epu8(_mm256_packus_epi16(a, b), max);
                let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
                _mm256_storeu_si256(dst.as_mut_ptr().add(chunk).cast(), ordered);
            }
        }
        if whole < src.len() {
            // SAFETY: the last 16 values (the length is a multiple of 16).
            unsafe {
                let x = _mm256_loadu_si256(src.as_ptr().add(whole).cast());
                let packed =
                    _mm_packus_epi16(_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
                let clipped = _mm_min_epu8(packed, _mm_set1_epi8(127));
                _mm_storeu_si128(dst.as_mut_ptr().add(whole).cast(), clipped);
            }
        }
    }

    /// Outputs `first..first + 8 * R` (the [`sums`] of `R` registers),
    /// biased, shifted, clipped into `out`.
    #[target_feature(enable = "avx2")]
    fn block<const R: usize, const F: usize>(
        weight: &[i8],
        bias: &[i32],
        input: &[u8],
        first: usize,
        out: &mut [u8],
    ) {
        let acc = sums::<R, F>(weight, bias.len(), input, first);
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

    /// The `R` registers of eight i32 sums of outputs `first..first + 8 R`
    /// (of `padded`) over every group of four inputs, `F` groups at a
    /// time: their `maddubs` pair sums add in i16 before one `madd` widens
    /// them (the layer's weights were checked to allow it).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn sums<const R: usize, const F: usize>(
        weight: &[i8],
        padded: usize,
        input: &[u8],
        first: usize,
    ) -> [__m256i; R] {
        let ones = _mm256_set1_epi16(1);
        let mut acc = [_mm256_setzero_si256(); R];
        for start in (0..input.len() / 4).step_by(F) {
            // SAFETY (every load below): groups `start..start + F` lie in
            // `input` (its length is a multiple of 4 F) and their weights for
            // outputs `first..first + 8 R <= padded` in `weight` (checked by
            // the caller).
            let x: [__m256i; F] = if F == 4 {
                // One load of the 16 inputs, each group's four broadcast
                // by a shuffle (the loads are the scarcer port).
                let sixteen = unsafe {
                    _mm256_broadcastsi128_si256(_mm_loadu_si128(
                        input.as_ptr().add(4 * start).cast(),
                    ))
                };
                std::array::from_fn(|k| match k {
                    0 => _mm256_shuffle_epi32::<0x00>(sixteen),
                    1 => _mm256_shuffle_epi32::<0x55>(sixteen),
                    2 => _mm256_shuffle_epi32::<0xAA>(sixteen),
                    _ => _mm256_shuffle_epi32::<0xFF>(sixteen),
                })
            } else {
                std::array::from_fn(|k| unsafe {
                    let four = input.as_ptr().add(4 * (start + k)).cast::<i32>();
                    _mm256_set1_epi32(four.read_unaligned())
                })
            };
            let rows: [*const i8; F] = std::array::from_fn(|k| unsafe {
                weight.as_ptr().add(((start + k) * padded + first) * 4)
            });
            for (r, a) in acc.iter_mut().enumerate() {
                // SAFETY: as above.
                unsafe {
                    let product = |(x, row): (&__m256i, &*const i8)| {
                        _mm256_maddubs_epi16(*x, _mm256_loadu_si256(row.add(32 * r).cast()))
                    };
                    let mut products = x.iter().zip(&rows).map(product);
                    let first_sums = products.next().expect("F >= 1");
                    let sums = products.fold(first_sums, |s, p| _mm256_add_epi16(s, p));
                    *a = _mm256_add_epi32(*a, _mm256_madd_epi16(sums, ones));
                }
            }
        }
        acc
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
    /// 2 x 127 x 128 < 32768), `fold` groups' of them add in i16, `madd` by
    /// ones widens pairs into i32: each i32 lane is one output's sum over
    /// `fold` groups of four inputs.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub unsafe fn dense(weight: &[i8], bias: &[i32], input: &[u8], out: &mut [u8], fold: usize) {
        match fold {
            4 => blocks::<4>(weight, bias, input, out),
            2 => blocks::<2>(weight, bias, input, out),
            _ => blocks::<1>(weight, bias, input, out),
        }
    }

    /// Every output of [`dense`], 32 at a time, then eight at a time.
    #[target_feature(enable = "avx2")]
    fn blocks<const F: usize>(weight: &[i8], bias: &[i32], input: &[u8], out: &mut [u8]) {
        let padded = bias.len();
        let mut first = 0;
        while first + 32 <= padded {
            block::<4, F>(weight, bias, input, first, out);
            first += 32;
        }
        while first < padded {
            block::<1, F>(weight, bias, input, first, out);
            first += 8;
        }
    }
}
