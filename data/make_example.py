"""Generate the bundled example: a simulated binary-classification competition scored by ROC AUC.

Run ``python data/make_example.py [out_dir]`` (default: this folder). The output is deterministic
(fixed seed; the same numpy gives byte-identical files) and is committed next to this script:

``example_leaderboard.csv``
    ``team,public_score,private_score`` for 40 teams, rows shuffled (not in rank order).
``example_leaderboard.json``
    The settings to analyse it with (metric, private test size, both slices' sizes for the
    post-mortem, and prevalence).
``example_kaggle_download.csv``
    The same competition as Kaggle's public-leaderboard download (``TeamId,TeamName,
    SubmissionDate,Score`` with a UTF-8 BOM): each team's improving submissions, 1 to 6 rows.

The model: 3000 test rows, exactly 300 positives (10%), split 30% public / 70% private *stratified*
by label, so both parts have 10% prevalence. Team t's prediction for row i is
``mu_t * y_i + sqrt(RHO) * z_i + sqrt(1 - RHO) * e_ti``: per class it is N(0, 1) or N(mu_t, 1), the
binormal model with true AUC ``Phi(mu_t / sqrt(2))``. ``z_i`` is shared by all teams (hard rows are
hard for everybody, as on a real leaderboard), ``e_ti`` is the team's own noise. The scores are the
AUCs observed on those rows, rounded to 5 decimals as Kaggle shows them.
"""
from __future__ import annotations

import csv
import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from statistics import NormalDist

import numpy as np

SEED = 20240517
N_TEST, N_POSITIVE, PUBLIC_FRACTION = 3000, 300, 0.30
RHO = 0.5  # share of each prediction's noise that is common to all teams
START = datetime(2024, 3, 1, 9, 0, 0)
DAYS = 60

# (name, true AUC). A near-tied top cluster, a middle pack, a tail with baselines. Names include
# HTML-special characters, a comma (CSV quoting) and non-ASCII letters on purpose.
TOP = [("Lunar Ensemble", 0.875), ("Équipe Zürich", 0.8725), ("Priya & Tomasz", 0.870),
       ("deep_forest_42", 0.8675), ("R&D <lab>", 0.865), ("Team Overfit (no more)", 0.8625)]
MIDDLE_NAMES = ["Hiroshi Tanaka", "blend-all-the-things", "Northwind Analytics",
                "Ana Lúcia Ferreira", "CatBoostin' Along", "Data, Drinks & Dreams", "Marek Nowak",
                "stacknet_v3", "The Validators", "Olufemi A.", "Kernel Panic", "zhang.wei",
                "Bayes Watch", "Sofia & the Seeds", "LightGBM enjoyers", "Random Restarts",
                "Chen Li", "NoLeakNoGain", "Ivan Petrov", "MedAI Study Group", "Fold Seven",
                "quantile crew", "Aditi Rao", "Heldout Heroes"]
TAIL = [("first_kaggle_comp", 0.78), ("Mateo G.", 0.77), ("late submission", 0.76),
        ("svm_rbf_tuned", 0.75), ("Gareth Jones", 0.73), ("kNN attempt", 0.71),
        ("Logistic regression baseline", 0.70), ("single-feature rule", 0.66),
        ("Naive Bayes baseline", 0.64), ("Random guess++", 0.60)]
# This entry outputs a coarse score (one decimal), so its AUC exercises tied predictions.
COARSE = "single-feature rule"


def teams() -> list[tuple[str, float]]:
    """The 40 (name, true AUC) pairs, best first."""
    middle = zip(MIDDLE_NAMES, np.round(np.linspace(0.852, 0.79, len(MIDDLE_NAMES)), 4))
    return TOP + [(n, float(a)) for n, a in middle] + TAIL


def auc(y: np.ndarray, s: np.ndarray) -> float:
    """ROC AUC by ranks (Mann-Whitney U); tied scores get the average rank, i.e. half credit."""
    _, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)
    avg_rank = np.cumsum(counts) - (counts - 1) / 2.0  # 1-based average rank of each distinct value
    ranks = avg_rank[inverse]
    n1 = int(y.sum())
    n0 = len(y) - n1
    return float((ranks[y == 1].sum() - n1 * (n1 + 1) / 2.0) / (n1 * n0))


def _predict(rng: np.random.Generator, true_auc: float, y: np.ndarray, z: np.ndarray,
             coarse: bool) -> np.ndarray:
    mu = np.sqrt(2.0) * NormalDist().inv_cdf(true_auc)
    s = mu * y + np.sqrt(RHO) * z + np.sqrt(1.0 - RHO) * rng.standard_normal(len(y))
    return np.round(s, 1) if coarse else s


def simulate(rng: np.random.Generator) -> dict:
    """Labels, the split and every team's final and earlier public/private AUCs."""
    y = np.zeros(N_TEST, dtype=int)
    y[rng.choice(N_TEST, N_POSITIVE, replace=False)] = 1
    public = np.zeros(N_TEST, dtype=bool)
    for label in (0, 1):  # stratified: 30% of each class is public
        idx = np.flatnonzero(y == label)
        public[rng.choice(idx, int(round(PUBLIC_FRACTION * len(idx))), replace=False)] = True
    z = rng.standard_normal(N_TEST)
    rows = []
    for name, true_auc in teams():
        s = _predict(rng, true_auc, y, z, name == COARSE)
        pub = round(auc(y[public], s[public]), 5)
        priv = round(auc(y[~public], s[~public]), 5)
        # Earlier, weaker attempts; Kaggle's download lists only a team's improvements.
        n_earlier = int(rng.integers(0, 6))
        deltas = np.sort(rng.uniform(0.005, 0.08, n_earlier))[::-1]
        history, best = [], -np.inf
        for d in deltas:
            sp = _predict(rng, max(true_auc - d, 0.52), y, z, name == COARSE)
            score = round(auc(y[public], sp[public]), 5)
            if best < score < pub:
                history.append(score)
                best = score
        rows.append({"team": name, "public": pub, "private": priv, "history": history + [pub]})
    return {"y": y, "public": public, "rows": rows}


def _kaggle_rows(rng: np.random.Generator, rows: list[dict]) -> list[tuple]:
    ids = rng.choice(900_000, len(rows), replace=False) + 100_000
    out = []
    for team_id, row in zip(ids, rows):
        k = len(row["history"])
        # Last submission in the second half of the window, earlier ones before it, in order.
        last = rng.uniform(0.4, 1.0) * DAYS * 86400
        times = np.sort(np.append(rng.uniform(0, last, k - 1), last)).astype(int)
        for t, score in zip(times, row["history"]):
            stamp = (START + timedelta(seconds=int(t))).strftime("%Y-%m-%d %H:%M:%S")
            out.append((int(team_id), row["team"], stamp, score))
    return sorted(out, key=lambda r: (r[2], r[0]))  # Kaggle's file is in date order


def _quote(text: str) -> str:
    # Kaggle quotes text fields that contain a space (and must quote commas and quotes).
    if any(ch in text for ch in ' ,"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def main(out_dir: str | Path | None = None) -> list[Path]:
    """Write the three example files into ``out_dir`` (default: this script's folder)."""
    out = Path(out_dir) if out_dir is not None else Path(__file__).resolve().parent
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    sim = simulate(rng)
    rows = sim["rows"]
    table = out / "example_leaderboard.csv"
    with open(table, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["team", "public_score", "private_score"])
        for i in rng.permutation(len(rows)):
            writer.writerow([rows[i]["team"], f"{rows[i]['public']:.5f}",
                             f"{rows[i]['private']:.5f}"])
    private_y = sim["y"][~sim["public"]]
    settings = {
        "file": table.name, "metric": "auc", "n_test": int(len(private_y)),
        "n_public": int(sim["public"].sum()), "n_private": int(len(private_y)),
        "prevalence": round(float(private_y.mean()), 6),
        "description": (f"Simulated binary-classification competition: {len(rows)} teams, "
                        f"{N_TEST} test rows at {N_POSITIVE / N_TEST:.0%} prevalence, split "
                        f"{PUBLIC_FRACTION:.0%} public / {1 - PUBLIC_FRACTION:.0%} private "
                        "(stratified). Scores are ROC AUCs observed on each split; six teams "
                        "at the top are within 0.0125 of each other in true AUC. "
                        "Made by data/make_example.py."),
    }
    meta = out / "example_leaderboard.json"
    meta.write_text(json.dumps(settings, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    kaggle = out / "example_kaggle_download.csv"
    lines = ["TeamId,TeamName,SubmissionDate,Score"]
    lines += [f"{i},{_quote(n)},{_quote(d)},{s:.5f}" for i, n, d, s in _kaggle_rows(rng, rows)]
    # utf-8-sig writes the byte-order mark that Kaggle's downloads start with.
    kaggle.write_text("\n".join(lines) + "\n", encoding="utf-8-sig", newline="")
    return [table, meta, kaggle]


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else None):
        print(written)
