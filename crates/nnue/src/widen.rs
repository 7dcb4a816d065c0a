//! Room in a trained net: its feature transformer made wider with the
//! function kept (Net2WiderNet, Chen, Goodfellow and Shlens 2016). The new
//! accumulator units start as a fresh net's do (seeded random weights, so
//! they differ from one another and get gradients); the first dense
//! layer's weights from them start at zero, so the wider net's output is
//! the narrower one's, float and integer, until training moves them. A run
//! goes on from its checkpoint with the capacity a wider net has and
//! nothing it learned lost.

use crate::error::NnueError;
use crate::layers::Layer;
use crate::network::{Architecture, FloatNet};

/// `net` with a feature transformer `ft` wide (more than its own), the
/// new units' weights drawn from a fresh net of seed `seed`.
pub fn widen(net: &FloatNet, ft: usize, seed: u64) -> Result<FloatNet, NnueError> {
    let old = net.arch.ft;
    if ft <= old {
        return Err(NnueError::Architecture(format!(
            "widening to ft = {ft}: the net is {old} wide already"
        )));
    }
    let arch = Architecture {
        ft,
        ..net.arch.clone()
    };
    let fresh = FloatNet::random(&arch, seed)?;
    // The transformer is input-major: one row of `ft` per feature; a row's
    // first `old` values are the trained ones, the rest the fresh net's.
    let rows = net.ft.weight.len() / old;
    let mut ft_weight = fresh.ft.weight.clone();
    for r in 0..rows {
        ft_weight[r * ft..r * ft + old].copy_from_slice(&net.ft.weight[r * old..(r + 1) * old]);
    }
    let mut ft_bias = fresh.ft.bias.clone();
    ft_bias[..old].copy_from_slice(&net.ft.bias);
    // The first dense layer reads [side to move's ft | opponent's ft]: each
    // row keeps its two trained halves in place and reads the new units with
    // zero weights.
    let outputs = net.l1.weight.len() / (2 * old);
    let mut l1_weight = vec![0.0; outputs * 2 * ft];
    for o in 0..outputs {
        let (src, dst) = (&net.l1.weight[o * 2 * old..], &mut l1_weight[o * 2 * ft..]);
        dst[..old].copy_from_slice(&src[..old]);
        dst[ft..ft + old].copy_from_slice(&src[old..2 * old]);
    }
    Ok(FloatNet {
        arch,
        ft: Layer {
            weight: ft_weight,
            bias: ft_bias,
        },
        l1: Layer {
            weight: l1_weight,
            bias: net.l1.bias.clone(),
        },
        // The layers after the first dense one read nothing of the
        // accumulator: kept as they are.
        ..net.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::QuantNet;
    use crate::stacks::Stacks;
    use shashki_rules::{Game, Position};

    fn positions() -> Vec<Position> {
        let mut game = Game::new(Position::startpos());
        let mut out = vec![*game.position()];
        for i in 0..40 {
            let moves = game.legal_moves();
            if moves.is_empty() || game.is_over() {
                break;
            }
            game.play(&moves[(i * 7) % moves.len()]);
            out.push(*game.position());
        }
        out
    }

    #[test]
    fn a_widened_net_evaluates_as_the_narrow_one_float_and_integer() {
        for stacks in [Stacks::Single, Stacks::Phase4] {
            let arch = Architecture {
                ft: 32,
                hidden: [32, 8],
                stacks,
            };
            let narrow = FloatNet::random(&arch, 3).unwrap();
            let wide = widen(&narrow, 64, 9).unwrap();
            assert_eq!(wide.arch.ft, 64);
            assert_eq!(wide.ft.weight.len(), 2 * narrow.ft.weight.len());
            let (qn, qw) = (QuantNet::quantize(&narrow), QuantNet::quantize(&wide));
            for pos in positions() {
                let (a, b) = (narrow.forward(&pos), wide.forward(&pos));
                assert!((a - b).abs() < 1e-5, "{a} vs {b}");
                assert_eq!(qn.reference_output(&pos), qw.reference_output(&pos));
            }
            // The new units are live: they differ from one another.
            assert_ne!(wide.ft.weight[32..48], wide.ft.weight[48..64]);
        }
    }

    #[test]
    fn widening_only_grows() {
        let narrow = FloatNet::random(&Architecture::default(), 1).unwrap();
        assert!(widen(&narrow, 128, 1).is_err());
        assert!(
            widen(&narrow, 136, 1).is_err(),
            "ft must stay a multiple of 16"
        );
    }
}
