#!/usr/bin/env python3
"""Reference forward pass of an exported Shashki Zero model, numpy only.

Loads `model.json` + `model.safetensors` (written by `shashki export`),
encodes a position itself (Russian checkers move generation included),
runs the network and prints the same JSON as `shashki eval --json`:

    {"wdl": [w, d, l], "policy": {"c3-d4": p, ...}}

Usage:
    reference_forward.py --model DIR --fen FEN
    reference_forward.py --model DIR --fens-file FILE   # one JSON line per FEN

Needs: python3, numpy, safetensors (`pip install numpy safetensors`).
docs/MODEL.md documents every format this script reads.
"""

import argparse
import json
import sys

import numpy as np
from safetensors.numpy import load_file

ENCODING_VERSION = 1
POLICY_LAYOUT_VERSION = 1

# ---------------------------------------------------------------- board
# Square index = 4 * rank + file // 2 (a1 = 0, c1 = 1, ..., h8 = 31).
FILE = [2 * (s % 4) + (s // 4) % 2 for s in range(32)]
RANK = [s // 4 for s in range(32)]
CELL = [8 * RANK[s] + FILE[s] for s in range(32)]
NONE = 32
# Directions: up-left, up-right, down-left, down-right (Rust's order).
STEPS = [(-1, 1), (1, 1), (-1, -1), (1, -1)]


def _neighbour(s, d):
    f, r = FILE[s] + STEPS[d][0], RANK[s] + STEPS[d][1]
    return 4 * r + f // 2 if 0 <= f < 8 and 0 <= r < 8 else NONE


NB = [[_neighbour(s, d) for d in range(4)] for s in range(32)]
# Taps of a diag32 convolution: the square, its four one-step diagonal
# neighbours (up-left, up-right, down-left, down-right), then the four two
# steps away in the same order; NONE (32) = off the board, a zero row.
TAP_STEPS = [(0, 0), (-1, 1), (1, 1), (-1, -1), (1, -1), (-2, 2), (2, 2), (-2, -2), (2, -2)]


def _tap(s, t):
    f, r = FILE[s] + TAP_STEPS[t][0], RANK[s] + TAP_STEPS[t][1]
    return 4 * r + f // 2 if 0 <= f < 8 and 0 <= r < 8 else NONE


TAPS = np.array([[_tap(s, t) for t in range(9)] for s in range(32)])
RANK_1 = 0x0000000F
RANK_8 = 0xF0000000


def bits(mask):
    """Square indices of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def slide(s, d, occupied):
    """Empty squares from s along d (mask) and the first occupied one (or NONE)."""
    empty, cur = 0, NB[s][d]
    while cur != NONE:
        if occupied >> cur & 1:
            return empty, cur
        empty |= 1 << cur
        cur = NB[cur][d]
    return empty, NONE


def name(s):
    return "abcdefgh"[FILE[s]] + str(RANK[s] + 1)


def parse_square(text):
    text = text.strip()
    if text.isdigit():  # numeric: 1 = b8 ... 32 = g1
        n = int(text)
        if not 1 <= n <= 32:
            raise ValueError(f"bad square {text!r}")
        row_from_top = (n - 1) // 4
        return 4 * (7 - row_from_top) + (n - 1) % 4
    if len(text) == 2 and text[0] in "abcdefgh" and text[1] in "12345678":
        f, r = "abcdefgh".index(text[0]), int(text[1]) - 1
        if (f + r) % 2 == 0:
            return 4 * r + f // 2
    raise ValueError(f"bad square {text!r}")


def parse_fen(fen):
    """Returns (white, black, kings, white_to_move) masks."""
    parts = fen.strip().strip('"').strip().rstrip(".").split(":")
    side = parts[0].strip().upper()
    if side not in ("W", "B"):
        raise ValueError(f"bad side to move in {fen!r}")
    masks = {"W": 0, "B": 0}
    kings = 0
    for part in parts[1:]:
        part = part.strip()
        color, items = part[0].upper(), part[1:]
        for token in filter(None, (t.strip() for t in items.split(","))):
            king = token[0] in "Kk"
            token = token[1:] if king else token
            if "-" in token:
                a, b = (int(x) for x in token.split("-"))
                squares = [parse_square(str(n)) for n in range(a, b + 1)]
            else:
                squares = [parse_square(token)]
            for s in squares:
                masks[color] |= 1 << s
                if king:
                    kings |= 1 << s
    return masks["W"], masks["B"], kings, side == "W"


# ---------------------------------------------------------------- moves
def legal_moves(white, black, kings, white_to_move):
    """Legal moves as (path, captured) pairs, one per (start, end, captured
    set) with the first path found kept, as the Rust generator does."""
    us, them = (white, black) if white_to_move else (black, white)
    promotion = RANK_8 if white_to_move else RANK_1
    moves = []
    for start in bits(us):
        occupied = (white | black) & ~(1 << start)
        first_of_piece = len(moves)
        path = [start]

        def emit(captured):
            to = path[-1]
            for other_path, other_captured in moves[first_of_piece:]:
                if other_captured == captured and other_path[-1] == to:
                    return
            moves.append((list(path), captured))

        def jump(sq, d, captured):
            _, victim = slide(sq, d, occupied)
            if victim == NONE or not them >> victim & 1 or captured >> victim & 1:
                return None
            landings, _ = slide(victim, d, occupied)
            return (victim, landings) if landings else None

        def can_continue(sq, arrived, captured):
            back = 3 - arrived
            for d in range(4):
                if d == back:
                    continue
                _, hit = slide(sq, d, occupied)
                if hit == NONE or not them >> hit & 1 or captured >> hit & 1:
                    continue
                beyond = NB[hit][d]
                if beyond != NONE and not occupied >> beyond & 1:
                    return True
            return False

        def king(sq, captured):
            continued = False
            for d in range(4):
                found = jump(sq, d, captured)
                if found is None:
                    continue
                continued = True
                victim, landings = found
                now = captured | 1 << victim
                going_on = [l for l in bits(landings) if can_continue(l, d, now)]
                for land in going_on or bits(landings):
                    path.append(land)
                    if going_on:
                        king(land, now)
                    else:
                        emit(now)
                    path.pop()
            if not continued and len(path) > 1:
                emit(captured)

        def man(sq, captured):
            continued = False
            for d in range(4):
                over = NB[sq][d]
                if over == NONE or not them >> over & 1 or captured >> over & 1:
                    continue
                land = NB[over][d]
                if land == NONE or occupied >> land & 1:
                    continue
                continued = True
                path.append(land)
                if promotion >> land & 1:
                    king(land, captured | 1 << over)  # promoted mid-capture
                else:
                    man(land, captured | 1 << over)
                path.pop()
            if not continued and len(path) > 1:
                emit(captured)

        if kings >> start & 1:
            king(start, 0)
        else:
            man(start, 0)
    if moves:
        return moves
    occupied = white | black
    forward = (0, 1) if white_to_move else (2, 3)
    for s in bits(us):
        if kings >> s & 1:
            for d in range(4):
                moves += [([s, t], 0) for t in bits(slide(s, d, occupied)[0])]
        else:
            for d in forward:
                t = NB[s][d]
                if t != NONE and not occupied >> t & 1:
                    moves.append(([s, t], 0))
    return moves


def notation(move):
    path, captured = move
    return (":" if captured else "-").join(name(s) for s in path)


# ---------------------------------------------------------------- encoding
def encode(white, black, kings, white_to_move, repetitions, plies_to_draw, horizon):
    planes = np.zeros((7, 64))
    own, enemy = (white, black) if white_to_move else (black, white)
    rel = (lambda s: s) if white_to_move else (lambda s: 31 - s)
    for plane, mask in enumerate(
        [own & ~kings, own & kings, enemy & ~kings, enemy & kings]
    ):
        for s in bits(mask):
            planes[plane, CELL[rel(s)]] = 1.0
    planes[4, :] = min(max(repetitions - 1, 0), 2) / 2.0
    if plies_to_draw is not None:
        planes[5, :] = 1.0 - min(plies_to_draw, horizon) / horizon
    planes[6, :] = 1.0
    return planes.reshape(7, 8, 8)


def policy_index(move, white_to_move):
    path, _ = move
    rel = (lambda s: s) if white_to_move else (lambda s: 31 - s)
    return rel(path[0]) * 32 + rel(path[-1])


# ---------------------------------------------------------------- network
class Net:
    def __init__(self, model_dir):
        with open(f"{model_dir}/model.json") as f:
            meta = json.load(f)
        if meta.get("format") != "shashki-zero-model":
            raise ValueError("not a shashki-zero-model folder")
        if meta["encoding_version"] != ENCODING_VERSION:
            raise ValueError(f"encoding version {meta['encoding_version']} unsupported")
        if meta["policy_layout_version"] != POLICY_LAYOUT_VERSION:
            raise ValueError("policy layout version unsupported")
        if meta["batch_norm"]["folded"]:
            raise ValueError("folded batch norm is not written by this version")
        self.arch = meta["architecture"]
        self.kind = self.arch.get("kind", "resnet8x8")  # files before kinds: 8x8
        if self.kind not in ("resnet8x8", "diag32"):
            raise ValueError(f"network kind {self.kind!r} unsupported")
        self.eps = meta["batch_norm"]["epsilon"]
        self.plies_scale = meta["plies_left_scale"]
        self.horizon = meta["plies_to_draw_horizon"]
        tensors = load_file(f"{model_dir}/model.safetensors")
        self.t = {k: v.astype(np.float64) for k, v in tensors.items()}

    def conv(self, x, prefix, bias=False):
        w = self.t[prefix + ".weight"]
        out_c, in_c, k, _ = w.shape
        if k == 1:
            y = np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0])
        else:
            pad = k // 2
            xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
            n, _, h, wd = x.shape
            patches = np.stack(
                [xp[:, :, dy : dy + h, dx : dx + wd] for dy in range(k) for dx in range(k)],
                axis=2,
            )
            y = np.einsum("nckhw,ock->nohw", patches, w.reshape(out_c, in_c, k * k))
        if bias:
            y = y + self.t[prefix + ".bias"][None, :, None, None]
        return y

    def bn(self, x, prefix):
        g, b = self.t[prefix + ".gamma"], self.t[prefix + ".beta"]
        m, v = self.t[prefix + ".running_mean"], self.t[prefix + ".running_var"]
        scale = g / np.sqrt(v + self.eps)
        return (x - m[None, :, None, None]) * scale[None, :, None, None] + b[None, :, None, None]

    def linear(self, x, prefix):
        return x @ self.t[prefix + ".weight"].T + self.t[prefix + ".bias"]

    @staticmethod
    def pool(x):
        n, c = x.shape[:2]
        flat = x.reshape(n, c, -1)
        return np.concatenate([flat.mean(axis=2), flat.max(axis=2)], axis=1)

    def forward(self, x):
        if self.kind == "diag32":
            return self.forward_diag(x)
        relu = lambda a: np.maximum(a, 0.0)
        x = relu(self.bn(self.conv(x, "stem.conv"), "stem.bn"))
        every = self.arch["global_pool_every"]
        for i in range(self.arch["blocks"]):
            p = f"blocks.{i}."
            h = relu(self.bn(self.conv(x, p + "conv1"), p + "bn1"))
            if every > 0 and (i + 1) % every == 0:
                h = h + self.linear(self.pool(h), p + "pool")[:, :, None, None]
            x = relu(self.bn(self.conv(h, p + "conv2"), p + "bn2") + x)
        p = relu(self.bn(self.conv(x, "policy.conv"), "policy.bn"))
        out = self.conv(p, "policy.out", bias=True)  # [n, 32 (to), 8, 8]
        n = out.shape[0]
        gathered = out.reshape(n, 32, 64)[:, :, CELL]  # [n, to, from]
        policy = gathered.transpose(0, 2, 1).reshape(n, 1024)  # from * 32 + to
        v = relu(self.bn(self.conv(x, "value.conv"), "value.bn"))
        hidden = relu(self.linear(self.pool(v), "value.fc"))
        wdl = self.linear(hidden, "value.wdl")
        return policy, wdl


    # ------------------------------------------------------------ diag32
    # Activations are [n, 32 squares, channels]; weights [out, in, taps].
    def diag_conv(self, x, prefix, bias=False):
        w = self.t[prefix + ".weight"]
        taps = w.shape[2]
        n, _, c = x.shape
        padded = np.concatenate([x, np.zeros((n, 1, c))], axis=1)
        gathered = padded[:, TAPS[:, :taps], :]  # [n, 32, taps, c]
        y = np.einsum("nstc,oct->nso", gathered, w)
        if bias:
            y = y + self.t[prefix + ".bias"]
        return y

    def diag_bn(self, x, prefix):
        g, b = self.t[prefix + ".gamma"], self.t[prefix + ".beta"]
        m, v = self.t[prefix + ".running_mean"], self.t[prefix + ".running_var"]
        return (x - m) * (g / np.sqrt(v + self.eps)) + b

    @staticmethod
    def diag_pool(x):
        return np.concatenate([x.mean(axis=1), x.max(axis=1)], axis=1)

    def forward_diag(self, planes):
        relu = lambda a: np.maximum(a, 0.0)
        n = planes.shape[0]
        x = planes.reshape(n, 7, 64)[:, :, CELL].transpose(0, 2, 1)  # [n, 32, 7]
        x = relu(self.diag_bn(self.diag_conv(x, "stem.conv"), "stem.bn"))
        every = self.arch["global_pool_every"]
        for i in range(self.arch["blocks"]):
            p = f"blocks.{i}."
            h = relu(self.diag_bn(self.diag_conv(x, p + "conv1"), p + "bn1"))
            if every > 0 and (i + 1) % every == 0:
                h = h + self.linear(self.diag_pool(h), p + "pool")[:, None, :]
            x = relu(self.diag_bn(self.diag_conv(h, p + "conv2"), p + "bn2") + x)
        p = relu(self.diag_bn(self.diag_conv(x, "policy.conv"), "policy.bn"))
        policy = self.diag_conv(p, "policy.out", bias=True).reshape(n, 1024)  # [from, to]
        v = relu(self.diag_bn(self.diag_conv(x, "value.conv"), "value.bn"))
        hidden = relu(self.linear(self.diag_pool(v), "value.fc"))
        wdl = self.linear(hidden, "value.wdl")
        return policy, wdl


def softmax(v):
    e = np.exp(v - v.max())
    return e / e.sum()


def evaluate(net, fens, repetitions=0, plies_to_draw=None):
    positions = [parse_fen(f) for f in fens]
    x = np.stack(
        [encode(*p, repetitions, plies_to_draw, net.horizon) for p in positions]
    )
    policy, wdl = net.forward(x)
    results = []
    for i, pos in enumerate(positions):
        moves = legal_moves(*pos)
        priors = {}
        if moves:
            idx = [policy_index(m, pos[3]) for m in moves]
            logits = policy[i, idx]
            share = np.array([idx.count(j) for j in idx], dtype=np.float64)
            weights = np.exp(logits - logits.max()) / share  # shared index: split
            probs = weights / weights.sum()
            priors = {notation(m): float(p) for m, p in zip(moves, probs)}
        ordered = dict(sorted(priors.items(), key=lambda kv: (-kv[1], kv[0])))
        results.append({"wdl": [float(v) for v in softmax(wdl[i])], "policy": ordered})
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="exported model folder")
    parser.add_argument("--fen", help="one position")
    parser.add_argument("--fens-file", help="file with one FEN per line")
    parser.add_argument("--repetitions", type=int, default=0)
    parser.add_argument("--plies-to-draw", type=int, default=None)
    args = parser.parse_args()
    if (args.fen is None) == (args.fens_file is None):
        parser.error("give exactly one of --fen and --fens-file")
    if args.fen is not None:
        fens = [args.fen]
    else:
        with open(args.fens_file) as f:
            fens = [line.strip() for line in f if line.strip()]
    net = Net(args.model)
    for result in evaluate(net, fens, args.repetitions, args.plies_to_draw):
        print(json.dumps(result))


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)
