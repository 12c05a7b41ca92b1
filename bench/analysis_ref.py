#!/usr/bin/env python3
"""numpy/scipy twin of Tandem's productivity analysis (research/analysis/summary.ts).

Used two ways:
  * reference values: `python3 bench/analysis_ref.py <dataset-dir> --json out.json` writes the
    summary.json layout (fixture keys plus cost_definitions, feature_counts, features_opening,
    tasks.*.probing_pz) so held-out fixtures can be checked against scipy;
  * benchmark baseline: `bench/analysis.ts` runs it on the same generated data and compares wall time.

Definitions follow tests/fixtures/analysis-reference/README.md. Never imported by the project at runtime.
"""
import argparse
import csv
import json
import math
import os
import sys
import time

import numpy as np
from scipy import stats

LAMBDAS = [0.5, 0.75, 1.0, 1.5, 2.0]
COST_DEFS = ["weighted", "user_tokens", "agent_tokens", "total_tokens", "total_turns", "user_turns"]
SPEAKERS = ["user", "agent", "combined"]
OPENING = 0.3


def num(s):
    s = s.strip()
    return float(s) if s != "" else math.nan


def read_sessions(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        header = [h.strip() for h in next(reader)]
        rows = [r for r in reader if r]
    col = {h: i for i, h in enumerate(header)}
    ids = [r[col["session_id"]].strip() for r in rows]
    tasks = [r[col["task"]].strip() for r in rows]
    quality = np.array([num(r[col["quality"]]) for r in rows]) if "quality" in col else np.full(len(rows), np.nan)
    counts = {c: np.array([float(r[col[c]]) for r in rows]) for c in ["user_tokens", "agent_tokens", "user_turns", "agent_turns"]}
    items = sorted(h[len("likert_"):] for h in header if h.startswith("likert_"))
    likert = {it: np.array([num(r[col["likert_" + it]]) for r in rows]) for it in items}
    return ids, tasks, quality, counts, likert


def read_annotations(path, index):
    """Columns of annotations.csv; friction and grounding cells are interned to small ints on the way."""
    sess, turn, spk, fric, ground = [], [], [], [], []
    fric_codes, ground_codes = {}, {}
    with open(path, encoding="utf-8-sig") as f:
        header = f.readline().rstrip("\r\n").split(",")
        c = [header.index(h) for h in ["session_id", "turn", "speaker", "friction", "grounding"]]
        for line in f:
            p = line.rstrip("\r\n").split(",")
            if len(p) < 5:
                continue
            sess.append(index[p[c[0]]])
            turn.append(int(p[c[1]]))
            spk.append(1 if p[c[2]] == "agent" else 0)
            fric.append(fric_codes.setdefault(p[c[3]], len(fric_codes)))
            ground.append(ground_codes.setdefault(p[c[4]], len(ground_codes)))
    as_int = lambda v: np.array(v, dtype=np.int64)
    return as_int(sess), as_int(turn), as_int(spk), (as_int(fric), list(fric_codes)), (as_int(ground), list(ground_codes))


def cost_of(d, counts, lam):
    ut, at, uturn, aturn = counts["user_tokens"], counts["agent_tokens"], counts["user_turns"], counts["agent_turns"]
    return {"weighted": ut + lam * at, "user_tokens": ut, "agent_tokens": at, "total_tokens": ut + at,
            "total_turns": uturn + aturn, "user_turns": uturn}[d]


def within_z(groups, x):
    z = np.full(len(x), np.nan)
    for idx in groups.values():
        v = x[idx]
        if len(v) < 2:
            continue  # a task's only scored session has no SD (ddof=1): z stays NaN (null)
        m = math.fsum(v) / len(v)  # exactly rounded mean, as the TypeScript's compensated sum
        sd = math.sqrt(math.fsum((v - m) ** 2) / (len(v) - 1))
        z[idx] = (v - m) / sd if sd > 0 else 0.0
    return z


def spear(x, y):
    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    r = stats.spearmanr(x, y)
    return {"rho": float(r.statistic), "p": float(r.pvalue)}


def partial(c, s, q):
    n = len(c)
    if n < 4:
        return None
    rc, rs, rq = stats.rankdata(c), stats.rankdata(s), stats.rankdata(q)
    A = np.column_stack([np.ones(n), rq])
    ec = rc - A @ np.linalg.lstsq(A, rc, rcond=None)[0]
    es = rs - A @ np.linalg.lstsq(A, rs, rcond=None)[0]
    if np.ptp(ec) < 1e-9 or np.ptp(es) < 1e-9:
        return None
    r = float(stats.pearsonr(ec, es).statistic)
    t = r * math.sqrt((n - 3) / ((1 + r) * (1 - r))) if abs(r) < 1 else math.inf
    return {"n": n, "rho": r, "p": float(2 * stats.t.sf(abs(t), n - 3))}


def holm(ps):
    """statsmodels multipletests(method='holm'), skipping None."""
    idx = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    out, run, m = [None] * len(ps), 0.0, len(idx)
    for k, (p, i) in enumerate(idx):
        run = max(run, min(1.0, (m - k) * p))
        out[i] = run
    return out


def bh(ps):
    """statsmodels multipletests(method='fdr_bh'), skipping None."""
    idx = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    out, run, m = [None] * len(ps), 1.0, len(idx)
    for k in range(m - 1, -1, -1):
        p, i = idx[k]
        run = min(run, m * p / (k + 1))
        out[i] = min(1.0, run)
    return out


def fkey(x):
    return str(float(x))


def analyze(d, lam=0.5, replicates=1000, seed=1):
    ids, tasks, quality, counts, likert = d["sessions"]
    n = len(ids)
    scored = np.flatnonzero(~np.isnan(quality))
    groups = {}
    for i in scored:
        groups.setdefault(tasks[i], []).append(i)
    groups = {t: np.array(groups[t]) for t in sorted(groups)}
    cost = cost_of("weighted", counts, lam)
    zq, zc = within_z(groups, quality), within_z(groups, cost)
    pz = zq - zc
    out = {"n_sessions": n, "n_scored": int(len(scored)), "lambda": lam, "sessions": {}}
    opt = lambda x: None if math.isnan(x) else float(x)
    for i in scored:
        quad = ("productive_success" if zc[i] < 0 else "costly_success") if zq[i] >= 0 else ("cheap_failure" if zc[i] < 0 else "unproductive_failure")
        if math.isnan(pz[i]):
            quad = None
        out["sessions"][ids[i]] = {"cost": float(cost[i]), "z_quality": opt(zq[i]), "z_cost": opt(zc[i]), "pz": opt(pz[i]), "quadrant": quad}
    ranked = scored[~np.isnan(pz[scored])]  # sessions with a Pz

    # dialogue features per session: counts[s, speaker, label]
    feats = None
    if d.get("annotations") is not None:
        sess, turn, spk, fric, ground = d["annotations"]
        (fr_inv, fr_u), (gr_inv, gr_u) = fric, ground
        labels = sorted({x for x in fr_u if x not in ("", "none")} | {g for gs in gr_u for g in gs.split(";") if g not in ("", "none")})
        labels_all = sorted(labels + ["any_friction"])
        L = len(labels_all)
        lid = {l: i for i, l in enumerate(labels_all)}
        af = lid["any_friction"]
        # opening flag: position within the session (ordered by turn) < ceil(0.3 * n_turns)
        order = np.lexsort((np.arange(len(sess)), turn, sess))
        s_sorted = sess[order]
        nturns = np.bincount(sess, minlength=n)
        first = np.concatenate([[0], np.cumsum(nturns)[:-1]])
        pos = np.arange(len(sess)) - first[s_sorted]
        opening = np.empty(len(sess), dtype=bool)
        opening[order] = pos < np.ceil(OPENING * nturns[s_sorted])
        # (row, label) pairs, vectorised over the distinct friction values and grounding strings
        pairs_r, pairs_l = [], []
        for ui, val in enumerate(fr_u):
            if val in ("", "none"):
                continue
            rows = np.flatnonzero(fr_inv == ui)
            pairs_r += [rows, rows]
            pairs_l += [np.full(len(rows), lid[val]), np.full(len(rows), af)]
        for ui, val in enumerate(gr_u):
            rows = np.flatnonzero(gr_inv == ui)
            for g in set(val.split(";")):
                if g not in ("", "none"):
                    pairs_r.append(rows)
                    pairs_l.append(np.full(len(rows), lid[g]))
        rows_s = np.concatenate(pairs_r) if pairs_r else np.zeros(0, dtype=np.int64)
        rows_l = np.concatenate(pairs_l) if pairs_l else np.zeros(0, dtype=np.int64)
        # a label counts once per turn (friction and grounding may name the same label)
        uniq = np.unique(rows_s * (L + 1) + rows_l)
        rows_s, rows_l = uniq // (L + 1), uniq % (L + 1)
        flat = (sess[rows_s] * 3 + spk[rows_s]) * L + rows_l
        cnt = np.bincount(flat, minlength=n * 3 * L).astype(float).reshape(n, 3, L)
        m = opening[rows_s]
        ocnt = np.bincount(flat[m], minlength=n * 3 * L).astype(float).reshape(n, 3, L)
        tr = np.bincount(sess * 3 + spk, minlength=n * 3).astype(float).reshape(n, 3)
        otr = np.bincount((sess * 3 + spk)[opening], minlength=n * 3).astype(float).reshape(n, 3)
        for a in (cnt, ocnt):
            a[:, 2, :] = a[:, 0, :] + a[:, 1, :]
        for a in (tr, otr):
            a[:, 2] = a[:, 0] + a[:, 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            # no turns of the speaker: the rate is missing (NaN), not 0
            rate = np.where(tr[:, :, None] > 0, cnt / tr[:, :, None], np.nan)
            orate = np.where(otr[:, :, None] > 0, ocnt / otr[:, :, None], np.nan)
        feats = {"labels": labels_all, "rate": rate, "count": cnt, "opening_rate": orate}

    out["tasks"] = {}
    items = sorted(likert)
    for t, idx in groups.items():
        spread = []
        for qv in np.unique(quality[idx]):
            cs = cost[idx][quality[idx] == qv]
            qn = float(qv)
            spread.append({"quality": int(qn) if qn.is_integer() else qn, "n": int(len(cs)), "min": float(cs.min()), "max": float(cs.max()),
                           "ratio": None if cs.min() == 0 else float(cs.max() / cs.min())})
        part = {}
        for it in items:
            ok = idx[~np.isnan(likert[it][idx])]
            part[it] = partial(cost[ok], likert[it][ok], quality[ok])
        entry = {"n": int(len(idx)), "spearman_qc": spear(quality[idx], cost[idx]), "cost_spread": spread, "partial": part}
        if feats is not None and "probing" in feats["labels"]:
            pr = feats["rate"][idx, 1, feats["labels"].index("probing")]
            ok = ~np.isnan(pr) & ~np.isnan(pz[idx])
            r = spear(pr[ok], pz[idx][ok])
            entry["probing_pz"] = r and {"n": int(ok.sum()), **r}
        out["tasks"][t] = entry

    def agreement(vectors):
        res = {}
        for a, va in vectors.items():
            for b, vb in vectors.items():
                r = spear(va[ranked], vb[ranked])
                res[f"{a}|{b}"] = None if r is None else r["rho"]
        return res

    def pz_for(dfn, l):
        c = cost_of(dfn, counts, l)
        return within_z(groups, quality) - within_z(groups, c)

    out["sensitivity_lambda"] = agreement({fkey(l): pz_for("weighted", l) for l in LAMBDAS})
    out["cost_definitions"] = agreement({dfn: pz_for(dfn, lam) for dfn in COST_DEFS})

    k = math.ceil(len(ranked) / 4)
    sid = np.array(ids, dtype=object)
    bottom = sorted(ranked, key=lambda i: (pz[i], ids[i]))[:k]
    top = sorted(ranked, key=lambda i: (-pz[i], ids[i]))[:k]
    out["quartiles"] = {"top": sorted(sid[top].tolist()), "bottom": sorted(sid[bottom].tolist())}

    def compare(values):
        res = {}
        for si, sp in sorted(enumerate(SPEAKERS), key=lambda e: e[1]):
            for li, lab in enumerate(feats["labels"]):
                a, b = values[top, si, li], values[bottom, si, li]
                a, b = a[~np.isnan(a)], b[~np.isnan(b)]  # missing rates (speaker without turns) left out
                ss = (np.sum((a - a.mean()) ** 2) if len(a) else 0.0) + (np.sum((b - b.mean()) ** 2) if len(b) else 0.0)
                pooled = math.sqrt(ss / (len(a) + len(b) - 2)) if len(a) and len(b) and len(a) + len(b) >= 3 else 0.0
                # scipy's default method='auto': exact without ties when a sample has <= 8 values
                mw = stats.mannwhitneyu(a, b, alternative="two-sided", method="auto") if len(a) and len(b) else None
                ties = len(np.unique(np.concatenate([a, b]))) < len(a) + len(b)
                method = None if mw is None else ("asymptotic" if (len(a) > 8 and len(b) > 8) or ties else "exact")
                res[f"{sp}:{lab}"] = {"top_mean": float(a.mean()) if len(a) else None, "bottom_mean": float(b.mean()) if len(b) else None,
                                      "top_sem": float(stats.sem(a)) if len(a) > 1 else None,
                                      "bottom_sem": float(stats.sem(b)) if len(b) > 1 else None,
                                      "cohen_d": None if pooled == 0 else float((a.mean() - b.mean()) / pooled),
                                      "p": None if mw is None else (1.0 if np.isnan(mw.pvalue) else float(mw.pvalue)),
                                      "u": None if mw is None else float(mw.statistic),
                                      "method": method, "n_top": int(len(a)), "n_bottom": int(len(b))}
        keys = list(res)
        ps = [res[k]["p"] for k in keys]
        for name, adj in (("p_holm", holm), ("p_bh", bh)):
            for k, v in zip(keys, adj(ps)):
                res[k][name] = v
        return res

    if feats is not None and k > 0:
        out["features"] = compare(feats["rate"])
        out["feature_counts"] = compare(feats["count"])
        out["features_opening"] = compare(feats["opening_rate"])
    out["likert_correlations"] = {}
    for x in range(len(items)):
        for y in range(x + 1, len(items)):
            a, b = likert[items[x]], likert[items[y]]
            ok = ~np.isnan(a) & ~np.isnan(b)
            r = spear(a[ok], b[ok])
            out["likert_correlations"][f"{items[x]}|{items[y]}"] = r and {"n": int(ok.sum()), **r}

    # seeded percentile bootstrap (numpy RNG: intervals comparable in size, not draw-for-draw equal)
    rng = np.random.default_rng(seed)
    boot = {"spearman_qc": {}, "quartile_difference": {}}
    if replicates > 0:
        for t, idx in groups.items():
            q, c = quality[idx], cost[idx]
            draws = rng.integers(0, len(idx), size=(replicates, len(idx)))
            rq = stats.rankdata(q[draws], axis=1)
            rc = stats.rankdata(c[draws], axis=1)
            rq -= rq.mean(axis=1, keepdims=True)
            rc -= rc.mean(axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                rho = (rq * rc).sum(1) / np.sqrt((rq * rq).sum(1) * (rc * rc).sum(1))
            rho = rho[np.isfinite(rho)]
            boot["spearman_qc"][t] = {"low": float(np.percentile(rho, 2.5)), "high": float(np.percentile(rho, 97.5)), "replicates": int(len(rho))} if len(rho) else None
        if feats is not None and k > 0:
            for key in ["agent:probing", "user:probing", "agent:any_friction", "user:any_friction", "combined:any_friction"]:
                sp, lab = key.split(":")
                if lab not in feats["labels"]:
                    continue
                v = feats["rate"][:, SPEAKERS.index(sp), feats["labels"].index(lab)]
                a, b = v[np.array(top)], v[np.array(bottom)]
                a, b = a[~np.isnan(a)], b[~np.isnan(b)]
                diff = a[rng.integers(0, len(a), size=(replicates, len(a)))].mean(1) - b[rng.integers(0, len(b), size=(replicates, len(b)))].mean(1)
                boot["quartile_difference"][key] = {"low": float(np.percentile(diff, 2.5)), "high": float(np.percentile(diff, 97.5)), "replicates": replicates}
    out["bootstrap"] = boot
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--lambda", dest="lam", type=float, default=0.5)
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args()
    t0 = time.perf_counter()
    sessions = read_sessions(os.path.join(args.dataset, "sessions.csv"))
    index = {s: i for i, s in enumerate(sessions[0])}
    ann_path = os.path.join(args.dataset, "annotations.csv")
    annotations = read_annotations(ann_path, index) if os.path.exists(ann_path) else None
    t1 = time.perf_counter()
    out = analyze({"sessions": sessions, "annotations": annotations}, args.lam, args.bootstrap)
    t2 = time.perf_counter()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    import resource
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"read_s": t1 - t0, "compute_s": t2 - t1, "total_s": time.perf_counter() - t0,
                      "cpu_s": ru.ru_utime + ru.ru_stime, "max_rss_mb": ru.ru_maxrss / 1024}))


if __name__ == "__main__":
    sys.exit(main())
