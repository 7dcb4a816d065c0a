//! The dense layers as the kernels run them: the weights regrouped once
//! per network ([`DenseLayers`], shared by every fork of an evaluator) and
//! one evaluator's buffers ([`Scratch`]), so an evaluation allocates and
//! clears nothing.

use crate::network::bucket_rows;
use crate::quant::QuantNet;
use crate::simd::{GroupedLayer, Kernels};

/// The two hidden layers' weights in the kernels' layout.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseLayers {
    l1: GroupedLayer,
    l2: GroupedLayer,
}

/// Activations between the layers, and the non-zero input groups.
#[derive(Clone, Debug)]
pub struct Scratch {
    input: Vec<u8>,
    a1: Vec<u8>,
    a2: Vec<u8>,
    nonzero: Vec<u16>,
}

impl Scratch {
    /// Buffers for `net`'s sizes.
    pub fn new(net: &QuantNet) -> Scratch {
        let [h1, h2] = net.arch.hidden;
        let inputs = 2 * net.arch.ft;
        Scratch {
            input: vec![0; inputs],
            a1: vec![0; h1],
            a2: vec![0; h2],
            nonzero: vec![0; inputs.max(h1) / 4 + 8],
        }
    }
}

impl DenseLayers {
    /// `net`'s hidden layers, regrouped.
    pub fn new(net: &QuantNet) -> DenseLayers {
        let [h1, h2] = net.arch.hidden;
        let inputs = 2 * net.arch.ft;
        DenseLayers {
            l1: GroupedLayer::new(&net.l1.weight, &net.l1.bias, inputs, h1),
            l2: GroupedLayer::new(&net.l2.weight, &net.l2.bias, h1, h2),
        }
    }

    /// The dense layers of output bucket `bucket` on the two accumulators
    /// (side to move's first), with `kernels`; returns output units.
    pub fn propagate(
        &self,
        net: &QuantNet,
        kernels: Kernels,
        bucket: usize,
        [own, opp]: [&[i16]; 2],
        scratch: &mut Scratch,
    ) -> i32 {
        let h2 = net.arch.hidden[1];
        let ft = net.arch.ft;
        let Scratch {
            input,
            a1,
            a2,
            nonzero,
        } = scratch;
        kernels.crelu16(own, &mut input[..ft]);
        kernels.crelu16(opp, &mut input[ft..]);
        kernels.dense_crelu(&self.l1, bucket, input, a1, nonzero);
        kernels.dense_crelu(&self.l2, bucket, a1, a2, nonzero);
        net.out.bias[bucket] + kernels.dot(bucket_rows(&net.out.weight, bucket, h2), a2)
    }
}
