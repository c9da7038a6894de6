"""Generate the bundled submissions example: a solution file and every team's prediction file.

Run ``python data/make_submissions_example.py OUT_DIR``; ``leaderboard analyze --example
submissions`` runs it into a temporary folder. Deterministic (fixed seed, fixed zip timestamps: the
same numpy gives byte-identical files). Not committed (600 KB of random digits); it writes:

``example_solution.csv``
    ``id,target,Usage``: 3000 test rows, 10% positives, 30% ``Public`` / 70% ``Private``
    (stratified by label), plus 60 ``Ignored`` rows that never count.
``example_submissions.zip``
    One ``<team>.csv`` (``id,target``: the predicted probability, 4 decimals) per team of the
    competition in ``make_example.py`` (same teams, same binormal model with shared row difficulty),
    plus what real submission folders contain: a file with a missing id, one with a NaN, one that
    repeats an id, one whose prediction column is misnamed, and a ``README.txt`` that is not a submission.
``example_submissions.json``
    The settings to analyse it with (metric AUC).
``submissions/``
    Run as a script, also the zip's files in a folder (the manual's commands read both).
"""
from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_example import COARSE, N_POSITIVE, N_TEST, PUBLIC_FRACTION, _predict, teams  # noqa: E402

SEED = 20241121
N_IGNORED = 60
# Zip members get a fixed timestamp so the archive is byte-identical run after run.
_STAMP = (2024, 5, 1, 12, 0, 0)


def _probability(score: np.ndarray) -> np.ndarray:
    # A logistic squash keeps the order (AUC unchanged up to rounding) and looks like real output.
    return 1.0 / (1.0 + np.exp(-(score - 2.0)))


def _csv(ids: np.ndarray, values: list[str]) -> bytes:
    lines = ["id,target"] + [f"{i},{v}" for i, v in zip(ids, values)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def simulate(rng: np.random.Generator) -> dict:
    """Labels, the Usage column and every team's predicted probabilities."""
    n = N_TEST + N_IGNORED
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, N_POSITIVE + N_IGNORED // 10, replace=False)] = 1
    usage = np.full(n, "Private", dtype=object)
    ignored = rng.choice(n, N_IGNORED, replace=False)
    usage[ignored] = "Ignored"
    for label in (0, 1):  # stratified public slice among the scored rows
        idx = np.flatnonzero((y == label) & (usage != "Ignored"))
        usage[rng.choice(idx, int(round(PUBLIC_FRACTION * len(idx))), replace=False)] = "Public"
    z = rng.standard_normal(n)
    predictions = {name: np.round(_probability(_predict(rng, auc, y, z, name == COARSE)), 4)
                   for name, auc in teams()}
    return {"y": y, "usage": usage, "predictions": predictions}


def main(out_dir: str | Path, folder: bool = False) -> list[Path]:
    """Write the solution, the zip of submissions and the settings into ``out_dir`` (and with
    ``folder``, the zip's files in ``out_dir/submissions/``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    sim = simulate(rng)
    ids = np.arange(1, len(sim["y"]) + 1) + 10_000
    solution = out / "example_solution.csv"
    rows = ["id,target,Usage"] + [f"{i},{t},{u}" for i, t, u in zip(ids, sim["y"], sim["usage"])]
    solution.write_text("\n".join(rows) + "\n", encoding="utf-8")

    members: dict[str, bytes] = {}
    for k, (name, p) in enumerate(sim["predictions"].items()):
        # Submissions need not follow the solution's row order: every fifth team shuffles its rows.
        order = rng.permutation(len(ids)) if k % 5 == 4 else np.arange(len(ids))
        members[f"submissions/{name}.csv"] = _csv(ids[order], [f"{v:.4f}" for v in p[order]])
    base = [f"{v:.4f}" for v in sim["predictions"]["Mateo G."]]
    members["submissions/late night fix.csv"] = _csv(ids[:-1], base[:-1])        # one id missing
    blank = list(base)
    blank[41] = "nan"
    members["submissions/uncalibrated_boost.csv"] = _csv(ids, blank)             # NaN on line 43
    repeated = ids.copy()
    repeated[100] = repeated[99]
    members["submissions/copy-paste error.csv"] = _csv(repeated, base)           # id repeated
    renamed = _csv(ids, base).replace(b"id,target", b"id,prediction", 1)
    members["submissions/wrong header.csv"] = renamed                             # no 'target'
    members["submissions/README.txt"] = b"Final submissions of every team.\n"
    archive = out / "example_submissions.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for member, data in members.items():
            zf.writestr(zipfile.ZipInfo(member, date_time=_STAMP), data,
                        compress_type=zipfile.ZIP_DEFLATED)
    archive.write_bytes(buffer.getvalue())
    if folder:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(out)

    scored = sim["usage"] != "Ignored"
    settings = {"solution": solution.name, "submissions": archive.name, "metric": "auc",
                "description": (f"Simulated competition: {len(sim['predictions'])} teams' "
                                f"predicted probabilities for {int(scored.sum())} scored rows "
                                f"({N_POSITIVE / N_TEST:.0%} positives, "
                                f"{PUBLIC_FRACTION:.0%} public), {N_IGNORED} ignored rows and "
                                "four files a scorer must reject and one to skip. Made by "
                                "data/make_submissions_example.py.")}
    meta = out / "example_submissions.json"
    meta.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return [solution, archive, meta] + ([out / "submissions"] if folder else [])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python data/make_submissions_example.py OUT_DIR")
    for written in main(sys.argv[1], folder=True):
        print(written)
