//! The NNUE layout options that `nnue-init` and `nnue-diagnose capacity`
//! share: one set of flags, one conversion to an [`Architecture`].

use shashki_nnue::{Architecture, Stacks};

/// `--ft`, `--hidden`, `--stacks`.
#[derive(clap::Args, Clone, Debug)]
pub struct NnueLayoutArgs {
    /// Accumulator width per perspective (a multiple of 16).
    #[arg(long, default_value_t = Architecture::default().ft)]
    pub ft: usize,
    /// Widths of the two hidden layers (the first a multiple of 32):
    /// `--hidden 64 32` or `--hidden 64,32`.
    #[arg(long, num_args = 1..=2, value_delimiter = ',', default_values_t = Architecture::default().hidden)]
    pub hidden: Vec<usize>,
    /// Output layer stacks by phase: single, phase4, pieces8.
    #[arg(long, default_value_t = Architecture::default().stacks)]
    pub stacks: Stacks,
}

impl NnueLayoutArgs {
    /// The architecture these options name; an error unless `--hidden`
    /// got exactly two widths.
    pub fn architecture(&self) -> anyhow::Result<Architecture> {
        let &[first, second] = self.hidden.as_slice() else {
            anyhow::bail!(
                "--hidden takes the widths of both hidden layers (`--hidden 64 32` or `--hidden 64,32`), got {:?}",
                self.hidden
            );
        };
        Ok(Architecture {
            ft: self.ft,
            hidden: [first, second],
            stacks: self.stacks,
        })
    }
}
