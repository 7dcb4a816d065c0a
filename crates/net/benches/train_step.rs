//! The learning step with the system allocator (see `train_step/common.rs`).
//!
//! `cargo bench -p shashki-net --bench train_step --bench train_step_mimalloc`

#[path = "train_step/common.rs"]
mod common;

use criterion::{Criterion, criterion_group, criterion_main};

fn steps(c: &mut Criterion) {
    common::bench_train_step(c, "system-alloc");
}

criterion_group!(benches, steps);
criterion_main!(benches);
