#!/usr/bin/env python3
"""Plots a training run for docs/RESULTS.md: tensorboard curves (losses,
game length, W/D/L shares, throughput) and Elo against training time from a
`shashki rate --json` file.

    pip install matplotlib
    scripts/plot_results.py --run runs/cpu-2h --ratings docs/results/ratings.json \
        --out docs/results
"""

import argparse
import glob
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tb_events  # noqa: E402


def smooth(values, weight=0.8):
    """Tensorboard's exponential moving average."""
    out, last = [], None
    for v in values:
        last = v if last is None else weight * last + (1 - weight) * v
        out.append(last)
    return out


def run_start(tb_dir):
    """The run's start: the time stamp in its first event file's name."""
    names = sorted(glob.glob(os.path.join(tb_dir, "events.out.tfevents.*")))
    return min(int(os.path.basename(n).split(".")[3]) for n in names)


def hours(series, t0):
    return [(wall - t0) / 3600 for _, wall, _ in series]


def panel(ax, scalars, t0, tags, title, ylabel, smoothing=0.8, scale=1.0):
    for tag, label in tags:
        series = scalars.get(tag)
        if not series:
            continue
        values = [v * scale for _, _, v in series]
        x = hours(series, t0)
        line = ax.plot(x, smooth(values, smoothing), label=label)[0]
        ax.plot(x, values, color=line.get_color(), alpha=0.2, linewidth=0.8)
    ax.set_title(title)
    ax.set_xlabel("training time (hours)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend()


def plot_training(scalars, t0, out):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    panel(axes[0], scalars, t0, [("loss/policy", "policy"), ("loss/total", "total")],
          "Policy and total loss", "cross-entropy")
    panel(axes[1], scalars, t0, [("loss/value", "value (W/D/L)"), ("loss/plies_left", "plies left")],
          "Value loss", "loss")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "losses.png"), dpi=110)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    panel(axes[0], scalars, t0, [("selfplay/avg_game_length", "plies per game")],
          "Self-play game length", "plies")
    panel(axes[1], scalars, t0, [("selfplay/white_wins", "White wins"), ("selfplay/draws", "draws"),
                                 ("selfplay/black_wins", "Black wins")],
          "Self-play results", "share of games (%)", scale=100.0)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "selfplay.png"), dpi=110)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    panel(axes[0], scalars, t0, [("selfplay/positions_per_second", "game positions/s"),
                                 ("train/samples_per_second", "training samples/s")],
          "Throughput", "per second", smoothing=0.6)
    panel(axes[1], scalars, t0, [("selfplay/evaluations_per_second", "network evaluations/s")],
          "Network evaluations (self-play)", "per second", smoothing=0.6)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "throughput.png"), dpi=110)


def step_time(scalars, t0):
    """Training step -> hours since the start, from the loss log."""
    series = scalars["loss/total"]
    return {step: (wall - t0) / 3600 for step, wall, _ in series}


def plot_elo(ratings, scalars, t0, out):
    times = step_time(scalars, t0)
    steps = sorted(times)
    points, ladder = [], []
    for p in ratings["players"]:
        m = re.search(r"(?:ckpt|best)-(\d+)", p["name"])
        if m:
            step = int(m.group(1))
            # The checkpoint was written with that step's log line.
            t = times.get(step, times[min(steps, key=lambda s: abs(s - step))]) if step else 0.0
            points.append((t, step, p["elo"], p["ci95"]))
        else:
            ladder.append((p["name"], p["elo"]))
    points.sort()
    fig, ax = plt.subplots(figsize=(9, 5.5))
    ax.errorbar([p[0] for p in points], [p[2] for p in points], yerr=[p[3] for p in points],
                marker="o", capsize=4, label="checkpoints (64 simulations)")
    for t, step, elo, _ in points:
        ax.annotate(f"{step}", (t, elo), textcoords="offset points", xytext=(4, -12), fontsize=8)
    for name, elo in ladder:
        ax.axhline(elo, linestyle="--", linewidth=0.9, color="gray")
        ax.text(0.01, elo, f" {name}", va="bottom", fontsize=8, color="dimgray",
                transform=ax.get_yaxis_transform())
    ax.set_title("Elo against training time (labels: training steps)")
    ax.set_xlabel("training time (hours)")
    ax.set_ylabel("Elo (random = 0), 95% intervals")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "elo_vs_time.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", required=True, help="run folder (with tb/)")
    ap.add_argument("--ratings", help="JSON written by `shashki rate --json`")
    ap.add_argument("--out", required=True, help="folder for the PNG files")
    args = ap.parse_args()
    tb_dir = os.path.join(args.run, "tb")
    scalars = tb_events.read_scalars(tb_dir)
    if not scalars:
        sys.exit(f"no tensorboard scalars under {tb_dir}")
    t0 = run_start(tb_dir)
    os.makedirs(args.out, exist_ok=True)
    plot_training(scalars, t0, args.out)
    if args.ratings:
        with open(args.ratings) as f:
            plot_elo(json.load(f), scalars, t0, args.out)
    print(f"plots written to {args.out}")


if __name__ == "__main__":
    main()
