//! What this CPU's vector multipliers allow an incremental evaluation, for
//! docs/BENCHMARKS.md: the throughput of the two AVX2 instructions the
//! dense layers are made of (`vpmaddubsw`, `vpmaddwd`), each timed in a
//! loop of eight independent instructions (no instruction waits for
//! another, so the loop runs at the multipliers' rate), then the least
//! time the first dense layer can take for each feature-transformer width:
//! the multiplies it issues (per group of four inputs and eight outputs,
//! one `maddubs` and a quarter of a `madd`: the kernel multiplies every
//! group and widens four groups' sums at once) at that rate, nothing else
//! counted.
//!
//! `cargo run --release -p shashki-nnue --example mul_bound`

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::asm;
    use std::arch::x86_64::{__m256i, _mm256_set1_epi8};
    use std::time::Instant;

    /// Nanoseconds per instruction of `body` (eight independent ones per
    /// loop turn), best of five runs of `turns` turns.
    fn time(turns: u64, body: unsafe fn(u64, __m256i, __m256i)) -> f64 {
        // SAFETY: AVX2 was detected by the caller; set1 needs nothing.
        let (x, w) = unsafe { (_mm256_set1_epi8(3), _mm256_set1_epi8(5)) };
        (0..5)
            .map(|_| {
                let start = Instant::now();
                // SAFETY: the loop only touches registers.
                unsafe { body(turns, x, w) };
                start.elapsed().as_secs_f64() * 1e9 / (turns * 8) as f64
            })
            .fold(f64::MAX, f64::min)
    }

    /// A loop of `turns` turns of eight independent instructions, `$even`
    /// and `$odd` alternating (each on its own accumulator register, from
    /// the same two inputs), so none waits for another.
    macro_rules! eight_a_turn {
        ($(#[$doc:meta])* $name:ident: $even:literal, $odd:literal) => {
            $(#[$doc])*
            #[target_feature(enable = "avx2")]
            unsafe fn $name(turns: u64, x: __m256i, w: __m256i) {
                // SAFETY: registers only; `turns` > 0.
                unsafe {
                    asm!(
                        "2:",
                        concat!($even, " {a0}, {x}, {w}"), concat!($odd, " {a1}, {x}, {w}"),
                        concat!($even, " {a2}, {x}, {w}"), concat!($odd, " {a3}, {x}, {w}"),
                        concat!($even, " {a4}, {x}, {w}"), concat!($odd, " {a5}, {x}, {w}"),
                        concat!($even, " {a6}, {x}, {w}"), concat!($odd, " {a7}, {x}, {w}"),
                        "dec {n}", "jnz 2b",
                        n = inout(reg) turns => _, x = in(ymm_reg) x, w = in(ymm_reg) w,
                        a0 = out(ymm_reg) _, a1 = out(ymm_reg) _, a2 = out(ymm_reg) _,
                        a3 = out(ymm_reg) _, a4 = out(ymm_reg) _, a5 = out(ymm_reg) _,
                        a6 = out(ymm_reg) _, a7 = out(ymm_reg) _,
                        options(nomem, nostack),
                    );
                }
            }
        };
    }

    eight_a_turn!(
        /// Eight independent `vpmaddubsw` a turn.
        maddubs: "vpmaddubsw", "vpmaddubsw"
    );
    eight_a_turn!(
        /// Eight independent `vpmaddwd` a turn.
        madd: "vpmaddwd", "vpmaddwd"
    );
    eight_a_turn!(
        /// Four of each a turn, interleaved (the kernel issues four
        /// `maddubs` to one `madd`, here one to one).
        mixed: "vpmaddubsw", "vpmaddwd"
    );

    pub fn run() {
        if !std::is_x86_feature_detected!("avx2") {
            println!("no AVX2 here: nothing to measure");
            return;
        }
        let turns = 50_000_000;
        let [ubs, wd, mix] = [maddubs as unsafe fn(_, _, _), madd, mixed].map(|f| time(turns, f));
        println!("vpmaddubsw: {ubs:.3} ns each ({:.2} a ns)", 1.0 / ubs);
        println!("vpmaddwd:   {wd:.3} ns each ({:.2} a ns)", 1.0 / wd);
        println!("mixed:      {mix:.3} ns each ({:.2} a ns)", 1.0 / mix);
        println!("first dense layer (2 ft -> 32), every group, four folded:");
        for ft in [128usize, 256, 512] {
            let groups = (2 * ft / 4) as f64;
            // Per group and register of eight outputs: one maddubs, and one
            // madd per four groups.
            let (bytes, words) = (groups * 4.0, groups * 4.0 / 4.0);
            // The two share the multipliers: the mixed loop's rate.
            let least = (bytes + words) * mix;
            println!(
                "  ft {ft}: {bytes:.0} vpmaddubsw + {words:.0} vpmaddwd, at least {least:.0} ns"
            );
        }
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    x86::run();
    #[cfg(not(target_arch = "x86_64"))]
    println!("x86_64 only");
}
