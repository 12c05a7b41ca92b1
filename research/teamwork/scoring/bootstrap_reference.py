"""Reference values for research/teamwork/scoring/scoreRuns.test.ts (run: python3 research/teamwork/scoring/bootstrap_reference.py).

Re-implements mulberry32 (lib/stats/seededRandom.ts) and the stratified resampling of
stratifiedBootstrap.ts (for each stratum in order, n draws of floor(u * n)), then numpy.percentile
(linear) at 2.5 and 97.5, on the hand-built runs of the test: per task (test passes, test n) over gated tasks
(runs score pass/fail: the 0.5 "firm" run of A t3 counts 0). p_higher = share of B − A replicates > 0, ties half.
The overall is undefined (None) when any dimension has no gated task among those drawn.
"""
import numpy as np

def mulberry32(seed):
    state = seed & 0xFFFFFFFF
    def imul(a, b):
        return (a * b) & 0xFFFFFFFF
    def nxt():
        nonlocal state
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = state
        t = imul(t ^ (t >> 15), t | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF
        t &= 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296
    return nxt

# (test sum, test n) of each model's tasks; None = not gated
A = {"t1": (1, 2), "t2": None, "t3": (0, 2), "t4": (2, 2)}
B = {"t1": (2, 2), "t2": (0, 2), "t3": (2, 2), "t4": None}
DIMS = {"d1": ["t1", "t2"], "d2": ["t3", "t4"]}

def dim_value(model, tasks):
    s = sum(model[t][0] for t in tasks if model.get(t)); n = sum(model[t][1] for t in tasks if model.get(t))
    return s / n if n else None

def overall(model, drawn):
    vals = [dim_value(model, g) for g in drawn]
    return None if not vals or any(v is None for v in vals) else sum(vals) / len(vals)

def values(strata, stat, reps=4000, seed=7):
    rnd = mulberry32(seed); out = []
    for _ in range(reps):
        drawn = [[s[int(np.floor(rnd() * len(s)))] for _ in s] for s in strata]
        v = stat(drawn)
        if v is not None: out.append(v)
    return out

def ci(strata, stat, reps=4000, seed=7):
    out = values(strata, stat, reps, seed)
    return [100 * np.percentile(out, 2.5), 100 * np.percentile(out, 97.5)]

gated = lambda m: [[t for t in DIMS[d] if m[t]] for d in sorted(DIMS)]
print("A overall", ci([g for g in gated(A) if g], lambda d: overall(A, d)))
print("A d2", ci([gated(A)[1]], lambda d: dim_value(A, d[0])))
print("B overall", ci([g for g in gated(B) if g], lambda d: overall(B, d)))
def diff(d):
    x, y = overall(B, d), overall(A, d)
    return None if x is None or y is None else x - y
print("B-A", ci([DIMS[d] for d in sorted(DIMS)], diff))
v = np.array(values([DIMS[d] for d in sorted(DIMS)], diff))
print("p_higher B over A", (np.sum(v > 1e-12) + np.sum(np.abs(v) <= 1e-12) / 2) / len(v))
