//! Probe speed: WDL probes of random positions from the tables up to 4
//! pieces (generated into a temporary folder first, a few seconds), and
//! the cost of the index computation alone as the baseline.

use criterion::{Criterion, criterion_group, criterion_main};
use shashki_rules::{DrawCounters, DrawRules, Position};
use shashki_tablebase::{Material, generate};
use std::hint::black_box;

fn positions(tb: &shashki_tablebase::Tablebases, n: usize) -> Vec<Position> {
    let mut out = Vec::new();
    let mut state = 12345u64;
    let tables: Vec<_> = tb.tables().filter(|t| t.material().pieces() == 4).collect();
    while out.len() < n {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let table = tables[(state >> 33) as usize % tables.len()];
        let ix = shashki_tablebase::Indexer::new(table.material());
        if let Some(pos) = ix.position((state >> 7) % ix.len()) {
            out.push(pos);
        }
    }
    out
}

fn probe(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("shashki-tb-bench-{}", std::process::id()));
    let rules = DrawRules::default();
    let tb = generate(&dir, 4, &rules, &mut |_| {}).expect("generate");
    let sample = positions(&tb, 4096);
    let counters: Vec<DrawCounters> = sample.iter().map(DrawCounters::start).collect();
    let mut i = 0;
    c.bench_function("probe_wdl_4_pieces", |b| {
        b.iter(|| {
            i = (i + 1) % sample.len();
            black_box(tb.probe(black_box(&sample[i]), &counters[i]))
        })
    });
    let mut j = 0;
    c.bench_function("material_of_baseline", |b| {
        b.iter(|| {
            j = (j + 1) % sample.len();
            black_box(Material::of(black_box(&sample[j])))
        })
    });
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, probe);
criterion_main!(benches);
