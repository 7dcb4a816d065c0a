//! Integer quantization and the integer forward pass.
//!
//! | tensor | type | scale |
//! |---|---|---|
//! | `ft.weight`, `ft.bias` | i16 | x 127 (`FT_SCALE`): an accumulator of 127 is an activation of 1.0 |
//! | `l1.weight`, `l2.weight` | i8 | x 64 (`WEIGHT_SCALE`), clipped to +-127 (float +-1.98) |
//! | `l1.bias`, `l2.bias`, `out.bias` | i32 | x 127 x 64 |
//! | `out.weight` | i16 | x 64 |
//!
//! Activations are u8 in `0..=127` (clipped ReLU). A dense layer sums
//! `bias + sum(w * a)` in i32 (scale 127 x 64), shifts right by 6 and
//! clips to `0..=127`. The output i32 (scale 127 x 64 per logit unit) becomes
//! centi-men as `floor(out * EVAL_CP_PER_UNIT / (127 * 64))`. All of it is
//! exact integer arithmetic, so every implementation (scalar, AVX2, numpy)
//! gives the same numbers; accumulator sums wrap in i16 like the SIMD lanes
//! (the quantization clip keeps real positions far from wrapping).

use crate::error::NnueError;
use crate::features::{PERSPECTIVES, active_features, perspective_index};
use crate::layers::{LAYERS, Layer, LayerId};
use crate::network::{Architecture, EVAL_CP_PER_UNIT, FloatNet, bucket_rows};
use safetensors::Dtype;
use shashki_rules::Position;

/// Accumulator units per float unit.
pub const FT_SCALE: f32 = 127.0;
/// Dense-weight units per float unit.
pub const WEIGHT_SCALE: f32 = 64.0;
/// Right shift taking a dense sum (127 x 64) back to activation units (127).
pub const DENSE_SHIFT: u32 = 6;
/// Largest activation.
pub const ACTIVATION_MAX: i32 = 127;
/// Output units per logit unit.
pub const OUTPUT_SCALE: i32 = 127 * 64;
/// Largest |feature transformer value| after quantization: 25 of them (24
/// pieces and the bias) stay inside i16.
pub const FT_CLIP: i16 = 1300;
/// Largest |dense weight| after quantization (u8 x i8 pair sums stay in i16).
pub const WEIGHT_CLIP: i8 = 127;
/// The float clip training applies to the hidden dense weights so that
/// quantization never saturates them.
pub const FLOAT_WEIGHT_CLIP: f32 = 127.0 / 64.0;

/// The quantized network: each layer's integer types are chosen here, its
/// shapes and scales in [`LayerId`].
#[derive(Clone, Debug, PartialEq)]
pub struct QuantNet {
    /// Layer sizes.
    pub arch: Architecture,
    /// The feature transformer: i16 weight and bias.
    pub ft: Layer<i16, i16>,
    /// The first dense layer: i8 weight, i32 bias.
    pub l1: Layer<i8, i32>,
    /// The second dense layer: i8 weight, i32 bias.
    pub l2: Layer<i8, i32>,
    /// The output layer: i16 weight, i32 bias.
    pub out: Layer<i16, i32>,
}

/// An integer type of a quantized tensor, with its scale and clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quant {
    /// Integer units per float unit.
    pub scale: f32,
    /// Largest |integer| after rounding.
    pub clip: f32,
}

impl LayerId {
    /// The quantization of the weight and of the bias (the table above).
    pub fn quant(self) -> (Quant, Quant) {
        let dense_bias = Quant {
            scale: FT_SCALE * WEIGHT_SCALE,
            clip: 1.0e9,
        };
        match self {
            LayerId::Ft => {
                let ft = Quant {
                    scale: FT_SCALE,
                    clip: f32::from(FT_CLIP),
                };
                (ft, ft)
            }
            LayerId::L1 | LayerId::L2 => (
                Quant {
                    scale: WEIGHT_SCALE,
                    clip: f32::from(WEIGHT_CLIP),
                },
                dense_bias,
            ),
            LayerId::Out => (
                Quant {
                    scale: WEIGHT_SCALE,
                    clip: f32::from(i16::MAX),
                },
                dense_bias,
            ),
        }
    }
}

/// An integer type a quantized tensor is stored in.
pub trait QuantInt: Copy + Default {
    /// Its safetensors type.
    const DTYPE: Dtype;
    /// Bytes per value.
    const SIZE: usize;
    /// `x` rounded to nearest at `quant`'s scale, then clipped.
    fn quantize(x: f32, quant: Quant) -> Self;
    /// Little-endian bytes.
    fn write(self, out: &mut Vec<u8>);
    /// From little-endian bytes (`SIZE` of them).
    fn read(bytes: &[u8]) -> Self;
}

fn round_clip(x: f32, quant: Quant) -> f32 {
    (x * quant.scale).round().clamp(-quant.clip, quant.clip)
}

macro_rules! quant_int {
    ($t:ty, $dtype:expr) => {
        impl QuantInt for $t {
            const DTYPE: Dtype = $dtype;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn quantize(x: f32, quant: Quant) -> Self {
                round_clip(x, quant) as $t
            }
            fn write(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("SIZE bytes"))
            }
        }
    };
}

quant_int!(i8, Dtype::I8);
quant_int!(i16, Dtype::I16);
quant_int!(i32, Dtype::I32);

/// Looks a tensor up by name, shape and type: its bytes, or why not.
pub type TensorSource<'a> = dyn FnMut(&str, &[usize], Dtype) -> Result<Vec<u8>, NnueError> + 'a;

/// One tensor of a quantized file: name, type, shape, bytes.
pub type QuantTensor = (&'static str, Dtype, Vec<usize>, Vec<u8>);

/// A quantized layer, whatever its integer types: it writes and reads its
/// own parameters.
pub trait QuantLayer {
    /// The layer's two tensors (`id` names and shapes them).
    fn tensors(&self, id: LayerId, arch: &Architecture) -> [QuantTensor; 2];
    /// The layer from its tensors' bytes; `read` looks a tensor up by
    /// name, shape and type.
    fn read_from(
        &mut self,
        id: LayerId,
        arch: &Architecture,
        read: &mut TensorSource<'_>,
    ) -> Result<(), NnueError>;
    /// Lengths of the weight and the bias.
    fn lengths(&self) -> (usize, usize);
}

impl<W: QuantInt, B: QuantInt> Layer<W, B> {
    /// `layer` quantized as `id` says.
    pub fn quantize(layer: &Layer<f32, f32>, id: LayerId) -> Layer<W, B> {
        let (weight, bias) = id.quant();
        Layer {
            weight: layer
                .weight
                .iter()
                .map(|&x| W::quantize(x, weight))
                .collect(),
            bias: layer.bias.iter().map(|&x| B::quantize(x, bias)).collect(),
        }
    }
}

fn to_bytes<T: QuantInt>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * T::SIZE);
    for &v in values {
        v.write(&mut out);
    }
    out
}

fn from_bytes<T: QuantInt>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::SIZE).map(T::read).collect()
}

impl<W: QuantInt, B: QuantInt> QuantLayer for Layer<W, B> {
    fn tensors(&self, id: LayerId, arch: &Architecture) -> [QuantTensor; 2] {
        [
            (
                id.weight_name(),
                W::DTYPE,
                id.weight_shape(arch),
                to_bytes(&self.weight),
            ),
            (
                id.bias_name(),
                B::DTYPE,
                vec![id.bias_len(arch)],
                to_bytes(&self.bias),
            ),
        ]
    }

    fn read_from(
        &mut self,
        id: LayerId,
        arch: &Architecture,
        read: &mut TensorSource<'_>,
    ) -> Result<(), NnueError> {
        self.weight = from_bytes(&read(id.weight_name(), &id.weight_shape(arch), W::DTYPE)?);
        self.bias = from_bytes(&read(id.bias_name(), &[id.bias_len(arch)], B::DTYPE)?);
        Ok(())
    }

    fn lengths(&self) -> (usize, usize) {
        (self.weight.len(), self.bias.len())
    }
}

/// Output units to centi-men (floor division, as numpy's `//`).
#[inline]
pub fn output_to_cp(out: i32) -> i32 {
    (i64::from(out) * i64::from(EVAL_CP_PER_UNIT)).div_euclid(i64::from(OUTPUT_SCALE)) as i32
}

impl QuantNet {
    /// Quantizes float weights (round to nearest, then clip).
    pub fn quantize(net: &FloatNet) -> QuantNet {
        QuantNet {
            arch: net.arch.clone(),
            ft: Layer::quantize(&net.ft, LayerId::Ft),
            l1: Layer::quantize(&net.l1, LayerId::L1),
            l2: Layer::quantize(&net.l2, LayerId::L2),
            out: Layer::quantize(&net.out, LayerId::Out),
        }
    }

    /// An empty net of `arch`, for [`QuantNet::read_tensors`] to fill.
    fn empty(arch: &Architecture) -> QuantNet {
        QuantNet {
            arch: arch.clone(),
            ft: Layer::default(),
            l1: Layer::default(),
            l2: Layer::default(),
            out: Layer::default(),
        }
    }

    /// The layer `id`, whatever its integer types.
    fn layer(&self, id: LayerId) -> &dyn QuantLayer {
        match id {
            LayerId::Ft => &self.ft,
            LayerId::L1 => &self.l1,
            LayerId::L2 => &self.l2,
            LayerId::Out => &self.out,
        }
    }

    fn layer_mut(&mut self, id: LayerId) -> &mut dyn QuantLayer {
        match id {
            LayerId::Ft => &mut self.ft,
            LayerId::L1 => &mut self.l1,
            LayerId::L2 => &mut self.l2,
            LayerId::Out => &mut self.out,
        }
    }

    /// Every tensor in file order, as the quantized file stores it.
    pub fn tensors(&self) -> Vec<QuantTensor> {
        LAYERS
            .iter()
            .flat_map(|&id| self.layer(id).tensors(id, &self.arch))
            .collect()
    }

    /// The net of `arch` from its tensors; `read` looks one up by name,
    /// shape and type (the error says what is wrong). The lengths are the
    /// caller's to check ([`QuantNet::check_lengths`]).
    pub fn read_tensors(
        arch: &Architecture,
        read: &mut TensorSource<'_>,
    ) -> Result<QuantNet, NnueError> {
        let mut net = QuantNet::empty(arch);
        for id in LAYERS {
            net.layer_mut(id).read_from(id, arch, read)?;
        }
        Ok(net)
    }

    /// Checks that every vector has its architecture's length.
    pub fn check_lengths(&self) -> Result<(), String> {
        for id in LAYERS {
            let (weight, bias) = self.layer(id).lengths();
            let expected: (usize, usize) = (
                id.weight_shape(&self.arch).iter().product(),
                id.bias_len(&self.arch),
            );
            for (name, found, expected) in [
                (id.weight_name(), weight, expected.0),
                (id.bias_name(), bias, expected.1),
            ] {
                if found != expected {
                    return Err(format!("{name} has {found} values, expected {expected}"));
                }
            }
        }
        Ok(())
    }

    /// The integer accumulator of one perspective, computed from scratch.
    pub fn refresh(&self, pos: &Position, perspective: shashki_rules::Color, acc: &mut [i16]) {
        let ft = self.arch.ft;
        acc.copy_from_slice(&self.ft.bias);
        for f in active_features(pos, perspective) {
            for (a, w) in acc.iter_mut().zip(&self.ft.weight[f * ft..(f + 1) * ft]) {
                *a = a.wrapping_add(*w);
            }
        }
    }

    /// The integer reference: full refresh, plain loops, no SIMD. Output
    /// units from the side to move's view.
    pub fn reference_output(&self, pos: &Position) -> i32 {
        let ft = self.arch.ft;
        let mut accs = [vec![0i16; ft], vec![0i16; ft]];
        for (p, acc) in PERSPECTIVES.iter().zip(accs.iter_mut()) {
            self.refresh(pos, *p, acc);
        }
        let stm = pos.side_to_move();
        let own = &accs[perspective_index(stm)];
        let opp = &accs[perspective_index(stm.opponent())];
        let input: Vec<i32> = own
            .iter()
            .chain(opp)
            .map(|&x| i32::from(x).clamp(0, ACTIVATION_MAX))
            .collect();
        let layer = |weight: &[i8], bias: &[i32], input: &[i32]| -> Vec<i32> {
            bias.iter()
                .enumerate()
                .map(|(o, b)| {
                    let row = &weight[o * input.len()..(o + 1) * input.len()];
                    let sum = b + row
                        .iter()
                        .zip(input)
                        .map(|(&w, &a)| i32::from(w) * a)
                        .sum::<i32>();
                    (sum >> DENSE_SHIFT).clamp(0, ACTIVATION_MAX)
                })
                .collect()
        };
        let [h1, h2] = self.arch.hidden;
        let b = self.arch.stacks.bucket(pos);
        let a1 = layer(
            bucket_rows(&self.l1.weight, b, h1 * 2 * ft),
            bucket_rows(&self.l1.bias, b, h1),
            &input,
        );
        let a2 = layer(
            bucket_rows(&self.l2.weight, b, h2 * h1),
            bucket_rows(&self.l2.bias, b, h2),
            &a1,
        );
        self.out.bias[b]
            + bucket_rows(&self.out.weight, b, h2)
                .iter()
                .zip(&a2)
                .map(|(&w, &a)| i32::from(w) * a)
                .sum::<i32>()
    }
}
