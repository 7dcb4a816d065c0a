//! The network as the kernels read it: the weights laid out once per
//! network ([`KernelNet`], shared by every fork of an evaluator); an
//! evaluator's buffers between them are its [`Activations`].

use crate::aligned::AlignedVec;
use crate::network::bucket_rows;
use crate::quant::QuantNet;
use crate::simd::{Activations, DenseStack, GroupedLayer, Kernels};

/// The feature transformer's rows from a cache-line boundary and the two
/// hidden layers regrouped.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelNet {
    /// `ft.weight`: feature `f`'s row of `ft` values at `f * ft`.
    pub ft: AlignedVec<i16>,
    l1: GroupedLayer,
    l2: GroupedLayer,
}

impl KernelNet {
    /// `net`'s weights, laid out.
    pub fn new(net: &QuantNet) -> KernelNet {
        let [h1, h2] = net.arch.hidden;
        let inputs = 2 * net.arch.ft;
        KernelNet {
            ft: AlignedVec::from_slice(&net.ft.weight),
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
        accumulators: [&[i16]; 2],
        act: &mut Activations,
    ) -> i32 {
        let stack = DenseStack {
            l1: &self.l1,
            l2: &self.l2,
            out: bucket_rows(&net.out.weight, bucket, net.arch.hidden[1]),
            bucket,
        };
        net.out.bias[bucket] + kernels.propagate(stack, accumulators, act)
    }
}
