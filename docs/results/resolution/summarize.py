#!/usr/bin/env python3
"""The resolution table (docs/RESULTS.md, issue 34): per cell the draw rate, nElo [95 %] and the resolution per game pair
(mean pair score minus 1/2 over the pairs' standard deviation, the issue's 'score / pair sd')."""
import json, math, sys, glob, os
seed = sys.argv[1] if len(sys.argv) > 1 else '11'
pairs = {'a': '2x nodes (100k vs 50k)', 'b': 'depth 11 vs 10', 'c': 'vs early (step 200), 50k nodes'}
books = ['builtin', 'openings8', '40..80', '80..140', '140..400']
res = {}
print('| pair | book | games | W/D/L | draws | pentanomial | nElo [95 %] | resolution |')
print('|---|---|---|---|---|---|---|---|')
for p in 'abc':
    for b in books:
        f = f'cell-s{seed}-{p}-{b}.json'
        if not os.path.exists(f):
            continue
        m = json.load(open(f))['matches'][0]
        pe = m['pentanomial']; n = sum(pe)
        xs = [0, .25, .5, .75, 1]
        mu = sum(c*x for c, x in zip(pe, xs))/n
        var = sum(c*(x-mu)**2 for c, x in zip(pe, xs))/n
        r = (mu-.5)/math.sqrt(var) if var > 0 else float('nan')
        res[(p, b)] = r
        w = m['wdl']; ne = m['normalized_elo']
        print(f"| ({p}) {pairs[p]} | {b} | {m['games']} | +{w['wins']} ={w['draws']} -{w['losses']} | {100*m['draw_ratio']:.0f} % | {pe} | {ne['elo']:+.0f} [{ne['lower']:+.0f}, {ne['upper']:+.0f}] | {r:.2f} |")
print()
for p in 'abc':
    base = res.get((p, 'openings8'))
    if base:
        print(p, ' '.join(f"{b}:{res[(p,b)]/base:.2f}x" for b in books if (p, b) in res))
