#!/usr/bin/env python3
"""Steps, games and positions an hour of a run over its first SECONDS of
run time, from the state saved with each checkpoint (the newest one at or
before SECONDS), and the evaluator's points (ratings.jsonl).

    python3 docs/results/evaluator/figures.py runs/evaluator/with 900
"""
import json
import sys
from pathlib import Path

run, limit = Path(sys.argv[1]), float(sys.argv[2])
states = [json.loads(p.read_text()) for p in (run / "checkpoints").glob("ckpt-*.state.json")]
state = max((s for s in states if s["seconds"] <= limit), key=lambda s: s["seconds"])
hours = state["seconds"] / 3600
print(
    f"{run.name}: at {state['seconds']:.0f} s: step {state['step']}, games {state['games']}, "
    f"positions {state['samples']}; an hour: {state['step'] / hours:,.0f} steps, "
    f"{state['games'] / hours:,.0f} games, {state['samples'] / hours:,.0f} positions"
)
ratings = run / "ratings.jsonl"
if ratings.exists():
    points = [json.loads(line) for line in ratings.read_text().splitlines() if line.strip()]
    rated = [p for p in points if "elo" in p]
    print(f"{len(rated)} rated points, {sum(p['games'] for p in rated)} games, "
          f"{sum(p['seconds'] for p in rated):.0f} s of rating")
    for p in rated[:: max(1, len(rated) // 12)] + rated[-1:]:
        print(f"  step {p['step']:>6} ({p['run_seconds']:>5.0f} s): {p['elo']:+7.1f} "
              f"[{p['elo_low']:+.1f}, {p['elo_high']:+.1f}] over {p['games']} games, wdl {p['wdl']}")
