"""Byte-identical outputs before and after a move of code: run the same inputs through two
checkouts and diff everything they write (not a test; a tool for reviewable refactors, issue 42).

    python tests/same_outputs.py /work/main            # this checkout against /work/main
    python tests/same_outputs.py /work/main --keep /tmp/same   # keep both output trees

Each checkout runs in its own process (``PYTHONPATH`` = the checkout, so its ``leaderboard`` and
its ``tests`` are imported) over the same inputs, in the same working folder, so that paths in
messages agree. What is compared, per run: the exit status, standard output, standard error and
every file the run wrote (HTML, JSON, CSV, Markdown):

- every ``--example`` (``analyze --example``, ``analyze --example submissions``,
  ``choose --example``);
- the insults and Titanic submissions and a few real boards of ../shared/data (when present);
- per-item results (a CSV, a Parquet file, lm-evaluation-harness, HELM, Inspect and SWE-bench
  fixtures, costs and published scores) and battles (CSV and JSON lines), generated here;
- every case of the hostile catalogue (tests/hostile_more.py: the one-line error messages).

Exit status 0 when every output is identical, 1 with the list of differing files.
"""
from __future__ import annotations

import argparse
import filecmp
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parents[1]
DATA = HERE.parent / "shared" / "data"
FAST = ["--quiet", "--replicates", "200"]
_TEMPORARY = re.compile(rb"/tmp/leaderboard-example-[A-Za-z0-9_]+")
_BUILT = 1767225600.0   # the hostile cases' files are built at this time in both checkouts


def _real_runs(work: Path) -> list[tuple[str, list[str]]]:
    if not DATA.is_dir():
        return []
    ins, tit = DATA / "kaggle_insults", DATA / "kaggle_titanic"
    pp, dl = DATA / "kaggle_public_private", DATA / "kaggle_lb_downloads"
    dojo = DATA / "mle_dojo_leaderboards"
    return [
        ("insults", ["analyze", "--solution", str(ins / "solution.csv"), "--submissions",
                     str(ins / "submissions"), "--metric", "auc", *FAST]),
        ("titanic", ["analyze", "--solution", str(tit / "solution.csv"), "--submissions",
                     str(tit / "submissions"), "--metric", "accuracy", *FAST]),
        ("choose-insults", ["choose", "--solution", str(ins / "solution.csv"), "--submissions",
                            str(ins / "submissions"), "--metric", "auc", "--quiet"]),
        ("dsb2017", ["analyze", str(pp / "data-science-bowl-2017__public_private.csv"),
                     "--metric", "logloss", "--prevalence", "0.26", "--two-stage",
                     "--n-public", "198", "--n-private", "506", "--lower-is-better", *FAST]),
        ("mlsp", ["analyze", str(pp / "mlsp-2014-mri__public_private.csv"), "--metric", "auc",
                  "--n-public", "30", "--n-private", "90", "--prevalence", "0.5", *FAST]),
        ("sberbank", ["analyze", str(dl / "sberbank-russian-housing-market__publicleaderboard.csv"),
                      "--metric", "rmsle", "--n-test", "7662", "--lower-is-better", *FAST]),
        ("nlp", ["analyze", str(dl / "nlp-getting-started__publicleaderboard.csv"), "--metric",
                 "f1", "--n-test", "3263", "--prevalence", "0.43", *FAST]),
        ("champs", ["analyze", str(DATA / "champs_scalar_coupling" /
                                   "champs-scalar-coupling-publicleaderboard_with_dummies.csv"),
                    "--metric", "log_mae", "--n-test", "2000", *FAST]),
        ("champs-joined", ["analyze", str(DATA / "champs_scalar_coupling" /
                                          "champs__top_teams_public_vs_private_joined.csv"),
                           "--metric", "log_mae", "--n-test", "2000", "--public-col",
                           "public_best_score", "--private-col", "private_score", *FAST]),
        ("dojo", ["analyze", str(dojo / sorted(p.name for p in dojo.glob("*__private_leaderboard.csv"))[0]),
                  "--metric", "accuracy", "--n-test", "5000", "--team-col", "rank", *FAST]),
    ]


def _generated_runs(work: Path) -> list[tuple[str, list[str]]]:
    """Per-item results, benchmark logs and battles, written into ``work/inputs``."""
    import numpy as np
    import pandas as pd

    from tests.ingest.test_harness import _harness
    from tests.ingest.test_helm import _run
    from tests.ingest.test_inspect_logs import _json_log
    from tests.ingest.test_swebench import _details

    inputs = work / "inputs"
    inputs.mkdir(parents=True)
    rng = np.random.default_rng(7)
    rows = [(f"m{k}", f"q{i}", int(rng.random() < 0.5 + 0.05 * k), f"c{i // 10}",
             round(float(rng.random()), 3)) for k in range(5) for i in range(120)]
    items = pd.DataFrame(rows, columns=["model", "item", "value", "cluster", "usd"])
    items.to_csv(inputs / "items.csv", index=False)
    items.to_parquet(inputs / "items.parquet", index=False)
    (inputs / "published.csv").write_text("model,published\nm0,51%\nm1,0.52\nm4,0.7\n")
    _harness(inputs)
    for k, model in enumerate(("org/a", "org/b", "org/c")):
        _run(inputs / "helm", "boolq", model, (rng.random((80, 1)) < 0.5 + 0.1 * k).astype(float))
        _json_log(inputs / "inspect", model, "quiz",
                  [["C" if h else "I"] for h in rng.random(80) < 0.5 + 0.1 * k])
        _details(inputs / "swe", f"sys-{k}", {f"o__r-{i}": bool(rng.random() < 0.3 + 0.1 * k)
                                              for i in range(60)})
    models = ["a", "b", "c", "d"]
    battles = pd.DataFrame({"model_a": rng.choice(models, 400), "model_b": rng.choice(models, 400),
                            "winner": rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"],
                                                 400), "question_id": rng.integers(0, 60, 400)})
    battles.to_csv(inputs / "battles.csv", index=False)
    (inputs / "battles.jsonl").write_text("".join(json.dumps(r) + "\n" for r in
                                                  battles.to_dict("records")))
    it = str(inputs / "items.csv")
    return [
        ("items-csv", ["analyze", "--items", it, "--cluster-col", "cluster", *FAST]),
        ("items-parquet", ["analyze", "--items", str(inputs / "items.parquet"), *FAST]),
        ("items-costs", ["analyze", "--items", it, "--cost-col", "usd", *FAST]),
        ("items-published", ["analyze", "--items", it, "--published",
                             str(inputs / "published.csv"), *FAST]),
        ("harness", ["analyze", "--items", str(inputs / "out"), *FAST]),
        ("helm", ["analyze", "--items", str(inputs / "helm"), *FAST]),
        ("inspect", ["analyze", "--items", str(inputs / "inspect"), *FAST]),
        ("swebench", ["analyze", "--items", str(inputs / "swe"), *FAST]),
        ("battles-csv", ["analyze", "--battles", str(inputs / "battles.csv"), *FAST]),
        ("battles-jsonl", ["analyze", "--battles", str(inputs / "battles.jsonl"), *FAST]),
        ("compare-items", ["compare", "--items", it, "--baseline", "m0", "--candidate", "m4",
                           "--quiet", "--replicates", "200"]),
    ]


def _examples() -> list[tuple[str, list[str]]]:
    """Every bundled example (``leaderboard.choices.EXAMPLES`` where the checkout has it)."""
    import leaderboard.choices

    names = getattr(leaderboard.choices, "EXAMPLES", ("scores", "submissions"))
    return ([(f"example-{name}", ["analyze", "--example", name, *FAST]) for name in names]
            + [("example-choose", ["choose", "--example", "--quiet"])])


def _outputs(name: str, argv: list[str], folder: Path) -> list[str]:
    """The output options each command takes, into ``folder``."""
    if argv[0] == "compare":
        return ["--json", str(folder / "r.json"), "--markdown", str(folder / "r.md")]
    if argv[0] == "choose":
        return ["-o", str(folder / "report.html"), "--json", str(folder / "r.json")]
    return ["-o", str(folder / "report.html"), "--json", str(folder / "r.json"),
            "--csv", str(folder / "r.csv"), "--markdown", str(folder / "r.md")]


def _run_main(argv: list[str], stdout_file: Path | None = None) -> tuple[int, str, str]:
    from leaderboard.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = None
    if stdout_file is not None:   # the hostile cases that take file descriptor 1
        saved = os.dup(1)
        fd = os.open(stdout_file, os.O_WRONLY | os.O_CREAT
                     | (os.O_APPEND if stdout_file.exists() else 0), 0o644)
        os.dup2(fd, 1)
        os.close(fd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = exit_.code
    finally:
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)
    return code, out.getvalue(), err.getvalue()


def _record(dest: Path, work: Path, code, out: str, err: str, inputs: set[Path]) -> None:
    """The run's status, streams and written files, with the checkout's own path (the bundled
    example's files are named by it) and the generated example's temporary folder named alike."""
    tree = os.environ["PYTHONPATH"].encode()
    escaped = re.sub(rb"([/_.-])", rb"\\\1", tree)   # as the Markdown export writes a path

    def same(data: bytes) -> bytes:
        data = data.replace(tree, b"<checkout>").replace(escaped, b"<checkout>")
        return _TEMPORARY.sub(b"<example>", data)

    dest.mkdir(parents=True, exist_ok=True)
    (dest / "_run.txt").write_bytes(same(f"exit {code}\n--- stdout\n{out}--- stderr\n{err}"
                                         .encode("utf-8", "backslashreplace")))
    for path in sorted(work.rglob("*")):
        if path in inputs or path.is_symlink() or not path.is_file():
            continue
        target = dest / path.relative_to(work)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(same(path.read_bytes()))


def collect(out_dir: Path, work: Path, only: str | None) -> None:
    """Every run of this checkout, into ``out_dir`` (called in the checkout's own process)."""
    import numpy as np  # noqa: F401 - the hostile cases' builders need it

    from tests.hostile_more import all_cases

    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    runs = _examples() + _real_runs(work) + _generated_runs(work)
    for name, argv in runs:
        if only and only not in name:
            continue
        folder = work / "out" / name
        folder.mkdir(parents=True)
        code, out, err = _run_main(argv + _outputs(name, argv, folder))
        _record(out_dir / "runs" / name, folder, code, out, err, set())
        print(f"{name}: exit {code}", file=sys.stderr)
    with mock.patch("time.time", return_value=_BUILT):   # some cases compress when listed
        cases = all_cases()
    seen: dict[str, int] = {}
    for case in cases:
        # keyed by the case's own name, not its place in the catalogue: a case added or removed
        # on one side leaves every other case compared with itself
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{case.family}-{case.name}")[:80]
        seen[name] = seen.get(name, 0) + 1
        name += f"-{seen[name]}" if seen[name] > 1 else ""
        if only and only not in name:
            continue
        folder = work / "hostile" / name
        folder.mkdir(parents=True)
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            with mock.patch("time.time", return_value=_BUILT):   # zip and gzip stamp the time
                argv = case.build(folder)
            inputs = {p for p in folder.rglob("*")}
            code, out, err = _run_main(argv, case.stdout and folder / case.stdout)
        finally:
            os.chdir(cwd)
        _record(out_dir / "hostile" / name, folder, code, out, err, inputs - {
            folder / case.stdout} if case.stdout else inputs)
    print(f"{len(cases)} hostile cases", file=sys.stderr)


def _differences(a: Path, b: Path) -> list[str]:
    found = []

    def walk(cmp: filecmp.dircmp, prefix: str) -> None:
        found.extend(f"only in before: {prefix}{n}" for n in cmp.left_only)
        found.extend(f"only in after: {prefix}{n}" for n in cmp.right_only)
        for name in cmp.common_files:
            if not filecmp.cmp(Path(cmp.left) / name, Path(cmp.right) / name, shallow=False):
                found.append(f"differs: {prefix}{name}")
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(a, b), "")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", nargs="?", help="the other checkout (e.g. /work/main)")
    parser.add_argument("--keep", help="keep both output trees under this folder")
    parser.add_argument("--only", help="run only the cases whose name holds this")
    parser.add_argument("--collect", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.collect:
        collect(Path(args.collect), Path(args.work), args.only)
        return 0
    if not args.base:
        parser.error("give the checkout to compare with")
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="same-outputs-"))
    # one path for both checkouts (messages name it), its own per run: two runs at once on one
    # machine used to share it and overwrite each other's inputs
    work = Path(tempfile.mkdtemp(prefix="same-outputs-work-"))
    trees = {"before": Path(args.base).resolve(), "after": HERE}
    for label, tree in trees.items():
        if (root / label).exists():
            shutil.rmtree(root / label)
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0",
                   SOURCE_DATE_EPOCH="1767225600")   # the card's date, as tests/conftest.py
        command = [sys.executable, str(Path(__file__).resolve()), "--collect", str(root / label),
                   "--work", str(work)] + (["--only", args.only] if args.only else [])
        subprocess.run(command, cwd=tree, env=env, check=True)
    differences = _differences(root / "before", root / "after")
    for line in differences:
        print(line)
    runs = sum(1 for _ in (root / "after").glob("*/*"))
    print(f"{runs} runs compared, {len(differences)} differing files "
          f"({root}{'' if args.keep else ', removed' if not differences else ''})")
    shutil.rmtree(work, ignore_errors=True)
    if not args.keep and not differences:
        shutil.rmtree(root)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
