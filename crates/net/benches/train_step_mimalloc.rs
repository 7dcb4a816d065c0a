//! The learning step with mimalloc as the global allocator, as the
//! `shashki` binary runs it: burn allocates every activation and gradient
//! afresh, and the system allocator returns big blocks to the OS, so each
//! step pays page faults for them again (see `train_step/common.rs`).

#[path = "train_step/common.rs"]
mod common;

use criterion::{Criterion, criterion_group, criterion_main};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn steps(c: &mut Criterion) {
    common::bench_train_step(c, "mimalloc");
}

criterion_group!(benches, steps);
criterion_main!(benches);
