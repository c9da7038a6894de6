"""Every board and solution in ../shared/data, as Python-API calls (issue 25 item 6).

:func:`cases` lists one :class:`Case` per ranking that can be cut from the shared data: each
scores-only board on each of its score columns (public and private where both exist, the
mle_dojo boards' separate public and private files), and the two solutions with real submission
files (Titanic, 48 files; insults, 27 files, on its public and private rows) in submissions mode.

Most boards do not publish their test-set size, prevalence or (mle_dojo) metric. The settings
below are stated assumptions of the right order, as in tests/pipelines/test_real_boards.py: an mle_dojo
board's metric comes from the scikit-learn scorer its scoring code imports (``_index.csv``) and,
where it imports none, from its direction and the range of its scores (a score in [0, 1] that
rises: the bounded universe of ``dice``; one that falls and is never negative: ``rmse``; ...),
on 5,000 test rows. What the test checks, that no interval excludes its own score unnamed, must
hold whatever the settings.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

PP = "kaggle_public_private"
DOJO = "mle_dojo_leaderboards"
DOJO_N_TEST = 5000

# Kaggle boards with public and private scores: the settings of tests/pipelines/test_real_boards.py
_KAGGLE = {
    "data-science-bowl-2017": dict(metric="logloss", prevalence=0.26, two_stage=True,
                                   n_public=198, n_private=506),
    "mlsp-2014-mri": dict(metric="auc", n_public=30, n_private=90, prevalence=0.5),
    "ultrasound-nerve-segmentation": dict(metric="dice", n_test=5508, public_fraction=0.2),
    "siim-acr-pneumothorax-segmentation": dict(metric="dice", two_stage=True, n_public=1377,
                                               n_private=3205),
    "2021-prostate": dict(metric="qwk", classes=6, n_test=1000, public_fraction=0.5),
    "2021-rsna-intracranial": dict(metric="logloss", prevalence=0.14, two_stage=True,
                                   n_public=78545, n_private=121232),
    "2021-rsna-pneumonia": dict(metric="map", two_stage=True, n_public=1000, n_private=3000),
    "2021-siim-covid19": dict(metric="map", n_test=1263, public_fraction=0.5),
    "mlcontest": dict(metric="accuracy", n_test=54, public_fraction=0.5),
    "prostate-cancer": dict(metric="auc", n_test=200, public_fraction=0.3, prevalence=0.5),
    "trabit2019-imaging-biomarkers": dict(metric="mae", n_test=300, public_fraction=0.5),
    "uninadmc-bls-2": dict(metric="f1", n_test=500, public_fraction=0.5, prevalence=0.5),
}

# the scikit-learn scorer an mle_dojo competition imports -> this project's metric and settings
_SKLEARN = {
    "roc_auc_score": dict(metric="auc", prevalence=0.3), "roc_curve": dict(metric="auc",
                                                                            prevalence=0.3),
    "f1_score": dict(metric="f1", prevalence=0.1), "recall_score": dict(metric="recall",
                                                                        prevalence=0.1),
    "log_loss": dict(metric="logloss", prevalence=0.3), "accuracy_score": dict(metric="accuracy"),
    "mean_absolute_error": dict(metric="mae"), "median_absolute_error": dict(metric="medae"),
    "mean_squared_error": dict(metric="rmse"), "mean_squared_log_error": dict(metric="rmsle"),
    "r2_score": dict(metric="r2"), "cohen_kappa_score": dict(metric="qwk", classes=5),
    "matthews_corrcoef": dict(metric="mcc", prevalence=0.1),
}


@dataclass(frozen=True)
class Case:
    """One ranking to analyse: ``mode`` ``"scores"`` calls :func:`leaderboard.analyze` on
    ``path`` with ``kwargs``; ``"submissions"`` calls :func:`leaderboard.analyze_submissions`
    with the solution ``path`` and the folder ``submissions``."""

    name: str
    mode: str
    path: Path
    kwargs: dict = field(default_factory=dict, hash=False)
    submissions: Path | None = None
    drop_blank: tuple[str, ...] = ()

    def data(self):
        """The board: its path, or (``drop_blank``) the table without the rows whose columns
        ``drop_blank`` are empty (a ranking column must be complete; the row is not a team)."""
        if not self.drop_blank:
            return self.path
        import pandas as pd

        table = pd.read_csv(self.path, dtype=str, keep_default_na=False)
        keep = (table[list(self.drop_blank)].apply(lambda c: c.str.strip()) != "").all(axis=1)
        return table[keep].reset_index(drop=True)


def _dojo_settings(scorer: str, higher: bool, scores: list[float]) -> dict:
    from leaderboard.metrics import get_metric

    low, high = min(scores), max(scores)
    if scorer in _SKLEARN:
        settings = dict(_SKLEARN[scorer])
        if settings["metric"] == "auc" and low < 0:
            settings["metric"] = "gini"     # DontGetKicked: Gini, 2 AUC - 1, from roc_auc_score
        metric = get_metric(settings["metric"])
        if metric.lower_bound <= low and high <= metric.upper_bound:
            return settings
        # multi-modal-gesture-recognition imports accuracy_score but ranks an error (999999 for
        # a failed submission): the scores' range decides, as for a competition importing none
    if higher and 0 <= low and high <= 1:
        return dict(metric="dice")              # a share in [0, 1]: the bounded universe
    if higher and -1 <= low and high <= 1:
        return dict(metric="mcc", prevalence=0.3)   # a correlation
    if higher and high <= 1:
        return dict(metric="r2")                # unbounded below, at most 1
    if not higher and low >= 0:
        return dict(metric="rmse")              # an error, never negative
    return dict(metric="log_mae")               # a log error (negative): not simulable


def _dojo_cases(root: Path) -> list[Case]:
    out = []
    with (root / DOJO / "_index.csv").open(encoding="utf-8") as index:
        rows = list(csv.DictReader(index))
    for row in rows:
        higher = row["higher_is_better"] == "True"
        for part in ("public", "private"):
            path = root / DOJO / f"{row['competition']}__{part}_leaderboard.csv"
            with path.open(encoding="utf-8") as board:
                scores = [float(r["score"]) for r in csv.DictReader(board) if r["score"]]
            settings = _dojo_settings(row["sklearn_imports"], higher, scores)
            out.append(Case(f"dojo/{row['competition']}/{part}", "scores", path,
                            dict(settings, n_test=DOJO_N_TEST, team_col="rank",
                                 higher_is_better=higher)))
    return out


def _kaggle_cases(root: Path) -> list[Case]:
    out = []
    for name, settings in _KAGGLE.items():
        path = root / PP / f"{name}__public_private.csv"
        for split in ("private", "public"):
            # 2021-prostate: one team's public rank could not be resolved (MANIFEST.txt)
            out.append(Case(f"kaggle/{name}/{split}", "scores", path,
                            dict(settings, split=split), drop_blank=(f"{split}_score",)))
    out.append(Case("kaggle/2021-vinbigdata-chest/private", "scores",
                    root / PP / "2021-vinbigdata-chest__private_only.csv",
                    dict(metric="map", n_test=3000)))
    downloads = root / "kaggle_lb_downloads"
    out.append(Case("download/nlp-getting-started/public", "scores",
                    downloads / "nlp-getting-started__publicleaderboard.csv",
                    dict(metric="f1", n_test=3263, prevalence=0.43)))
    out.append(Case("download/sberbank/public", "scores",
                    downloads / "sberbank-russian-housing-market__publicleaderboard.csv",
                    dict(metric="rmsle", n_test=7662)))
    champs = root / "champs_scalar_coupling"
    out.append(Case("champs/history/public", "scores",
                    champs / "champs-scalar-coupling-publicleaderboard_with_dummies.csv",
                    dict(metric="log_mae")))
    for split in ("private", "public"):
        out.append(Case(f"champs/joined/{split}", "scores",
                        champs / "champs__top_teams_public_vs_private_joined.csv",
                        dict(metric="log_mae", public_col="public_best_score",
                             private_col="private_score", split=split)))
    out.append(Case("champs/by-type/private", "scores",
                    champs / "top_teams_private_scores_by_type.csv",
                    dict(metric="log_mae", team_col=" name", score_col=" scores(total)"),
                    drop_blank=(" name",)))   # blank rows separate the table's sections
    return out


def _submission_cases(root: Path) -> list[Case]:
    titanic, insults = root / "kaggle_titanic", root / "kaggle_insults"
    out = [Case("titanic/submissions", "submissions", titanic / "solution.csv",
                dict(metric="accuracy"), titanic / "submissions")]
    for split in ("private", "public"):
        out.append(Case(f"insults/submissions/{split}", "submissions", insults / "solution.csv",
                        dict(metric="auc", split=split), insults / "submissions"))
    return out


def cases(root: Path) -> list[Case]:
    """Every case the shared data at ``root`` holds (none when it is absent)."""
    if not root.is_dir():
        return []
    return [*_kaggle_cases(root), *_submission_cases(root), *_dojo_cases(root)]
