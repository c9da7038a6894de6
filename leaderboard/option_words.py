"""The command line's help of each table parameter it offers without a default of its own
(None, or False for a flag), by parameter name, or ``"command:name"`` where a command words it
its own way (the parameter table, :data:`leaderboard.params.OPTIONS`, takes them; every
command's option of these names is made by :func:`leaderboard.cli.common.add_parameter`).
Held apart from :mod:`leaderboard.params` for length; it imports nothing but the standard
library."""
from __future__ import annotations

import importlib
from typing import TypeVar


_Listed = TypeVar("_Listed", bound="Listed")


class Listed(str):
    """An option's help that lists a registry's members where it says ``{listed}``, filled when
    the help is shown: argparse writes an option's help as ``help % values``, and this ``%``
    imports ``source`` (``"module:function"``, returning the members' words) and joins them,
    so the registry loads for ``--help`` only, never to parse the options (issue 27), and this
    table stays light.

    Examples
    --------
    >>> text = Listed("methods: {listed} (default %(default)s)",
    ...               "leaderboard.tiers.methods:method_words", "; ")
    >>> (text % {"default": "holm"}).split(": ")[1].split(",")[0], text.endswith("%(default)s)")
    ('rank-sets', True)
    """

    source: str
    joiner: str

    def __new__(cls: type[_Listed], text: str, source: str, joiner: str = ", ") -> _Listed:
        made = super().__new__(cls, text)
        made.source, made.joiner = source, joiner
        return made

    def __mod__(self, values):
        module, name = self.source.split(":")
        words = self.joiner.join(getattr(importlib.import_module(module), name)())
        return str.replace(self, "{listed}", words) % values


#: The help of each option without a default, by parameter name or ``command:name``.
WORDS: dict[str, str] = {
    "analyze:metric": Listed("metric that ranks the board (several, comma separated, on the same "
                             "predictions: one page for all): {listed}",
                             "leaderboard.metrics:metric_names"),
    "choose:metric": Listed("the metric: {listed}",
                            "leaderboard.metrics:metric_names"),
    "compare:metric": "the metric (default: mean with --items)",
    "plan:metric": Listed("the metric: {listed} (required, but with --from per-item results or "
                          "battles)",
                          "leaderboard.metrics:metric_names"),
    "analyze:n_test": "rows in the test set that ranks the board",
    "plan:n_test": "rows in the test set: gives its minimum detectable difference",
    "analyze:prevalence": "share of positives in that test set (binary metrics)",
    "choose:prevalence": "share of positives (binary metrics, scores only)",
    "plan:prevalence": "share of positives (binary metrics)",
    "team_col": "column of team names (default: detected)",
    "analyze:score_col": "column of scores (default: detected)",
    "choose:score_col": "column of public scores in --public-scores",
    "public_col": "column of public-board scores",
    "private_col": "column of private-board scores",
    "analyze:n_public": "rows of the public slice (the board teams saw)",
    "choose:n_public": "rows of the public board the scores come from",
    "analyze:n_private": "rows of the private slice (the final board)",
    "choose:n_private": "rows of the private board that will decide (default: the solution's "
                        "private rows, else --n-public)",
    "analyze:public_fraction": "with --n-test as the whole test set: the share of its rows on the "
                               "public board (e.g. 0.3)",
    "plan:public_fraction": "share of the test rows that score the public board, e.g. 0.3",
    "two_stage": "the public board was scored on other data (a stage-1 test set), not on a slice of "
                 "the private test set",
    "instances": "SWE-bench: the split's instance ids (one per line, or a JSON list); needed when "
                 "results.json lists only the resolved ones",
    "analyze:cluster_col": "items of one cluster (passage, conversation) are resampled together; "
                           "with --battles, battles of one cluster (prompt, question, voter)",
    "compare:cluster_col": "--items: items of one cluster resampled together",
    "category_col": "each item's category (subject, task): tiers within each category and the macro "
                    "mean over categories",
    "harness_filter": "--items as a folder of lm-evaluation-harness sample logs: the filter to read "
                      "when they hold several",
    "sample_col": "several values per model and item (pass@1 from n generations, repeated judge "
                  "scores), one per sample: the item's mean is the unit; the report says what the "
                  "samples add to the noise",
    "cost_col": "each row's cost (dollars, tokens, seconds): cost per model with intervals from the "
                "scores' replicates, and the cost-accuracy frontier",
    "published": "scores the models' maintainers published, as published: a CSV or a JSON list of "
                 "records (a board file such as SWE-bench's leaderboards.json too); each one "
                 "outside its model's interval is flagged, names absent from the data are counted "
                 "and listed",
    "published_col": "--published: the column of the published score (default: published, "
                     "published_score or score, else the one column of numbers)",
    "published_model_col": "--published: the column naming the models (default: the column whose "
                           "values name the most models of the data, else model or the first)",
    "beta": "beta of the fbeta metrics, 0 or more (default 1)",
    "costs": "cost matrix of expected_cost, rows = true class, columns = predicted class, e.g. "
             "'0,1;5,0' (default: 0/1 costs, the error rate)",
    "judge_col": "column of the voter or judge (found by name if not given; shown, not modelled)",
    "date_col": "column of the date (found by name if not given)",
    "anchor": "a model whose rating is fixed at --anchor-rating (default: the models' mean is)",
    "calibrate:quiet": "no progress bar",
    "quiet": "no progress bar or summary",
    "static_charts": "also draw the page's charts as static SVG, for readers without JavaScript "
                     "(off: the page's script draws every chart, on screen and for print, and the "
                     "chart renderer, ~0.7 s of CPU, never starts)",
    "compare:quiet": "print nothing (the exit status says it)",
    "plan:quiet": "no progress bar, and no terminal output when -o or --json writes the result",
    "choose:id_col": "id column of the solution and submissions",
    "id_col": "id column of the solution and submissions (default: detected)",
    "choose:target_col": "target column(s) of the solution",
    "target_col": "target column of the solution (repeat for several; default: all but id, Usage "
                  "and --group-col)",
    "choose:pred_col": "prediction column(s) of the submissions",
    "pred_col": "prediction column of the submissions (repeat for several; default: the target "
                "column names)",
    "group_col": "solution column of group ids, resampled together (--resample grouped)",
    "universe": "universe that simulates the metric (default: binormal for binary metrics, with the "
                "minority class's scores twice as spread for AUC, Gini and average precision "
                "(--spread); binomial for accuracy, bounded for mean Dice and IoU (the largest "
                "noise a mean of [0, 1] values can have), multiclass with --classes, residuals for "
                "regression; linspace is the seed articles' AUC universe)",
    "classes": "multi-class: number of classes, equally common",
    "class_shares": "multi-class: each class's share of the test set, e.g. 0.5,0.3,0.2",
    "kurtosis": "regression: the residuals' kurtosis, if known (from a validation set: 3 for normal "
                "residuals, more for heavier tails); sets the residuals' shape instead of "
                "--residuals and --df, and narrows a verdict that otherwise depends on the tails",
    "spread": "binormal universe, AUC, Gini and average precision: the minority class's score SD "
              "over the majority's (default 2, the noisiest real-model shape of the noise study; 1: "
              "equal SDs)",
    "workers": "start a local Dask cluster of N worker processes and split the submissions among "
               "them (the numbers are the same as without it)",
    "scheduler": "use the running Dask scheduler at ADDRESS (tcp://host:8786); its workers read the "
                 "submission files themselves, so they must be readable at the same paths on every "
                 "worker",
    "allow_perfect": "let the gate pass when an entry scores perfectly while the other does not (by "
                     "default that is flagged as a likely leak of the solution and the gate does "
                     "not pass)",
    "plan:score": "true score of the weaker entry (required without --from)",
    "delta": "difference in true score to detect (the better entry is --score + delta in the "
             "metric's better direction)",
    "separate": "k of the second question: how many units until the current top k each stand alone "
                "in tiers 1 to k (default 3)",
    "boards": "simulated boards per size (default 200; a share's Monte Carlo SE is about sqrt(0.16 "
              "/ boards) at 0.8)",
    "grid": "every combination of the lists; any list not given takes the seeds' values (27 cases "
            "for AUC)",
}
