"""Known-truth arenas for battles mode (issue 26): the full study behind docs/battles.md's table.

Runs :func:`leaderboard.studies.battles_coverage.run_study` (simulated arenas with uneven
pairings, ties and a near tie at the top, each rated by ``leaderboard.analyze_battles``) and
prints, per design, the share of arenas where every true rank is inside its simultaneous rank set
and the true best is in tier 1 (the issue's criterion, target >= 95%), the coverage of the 95%
rating intervals (the percentile interval of the smoothed bootstrap shown, the basic one of the
same redraws, the sandwich), and, in the designs with a 15-battle model, that model's coverage,
placement and tier, each with its Monte Carlo standard error, as a Markdown table.

    python benchmarks/study_battles_coverage.py [--arenas 400] [--replicates 1000] [--seed 0]
        [--designs uneven sparse thin] [--csv per_arena.csv]

400 arenas per design with 1,000 replicates took 3-4 minutes a design on the shared 2-core machine
(load average 9-14).
"""
from __future__ import annotations

import argparse
import time

from leaderboard.studies.battles_coverage import DESIGNS, run_study, summary

MEASURES = (("joint", "all true ranks in their sets and the true best in tier 1"),
            ("shown", "rating interval shown (percentile, smoothed bootstrap)"),
            ("basic", "basic (reflected) interval of the same redraws"),
            ("sandwich", "sandwich interval"),
            ("thin_shown", "the 15-battle model's interval shown"),
            ("thin_placed", "the 15-battle model placed"),
            ("thin_tier1", "the 15-battle model in tier 1"),
            ("thin_tier1_unbacked", "... in tier 1 with its interval below the leader"))


def markdown(table) -> str:
    """The summary as a Markdown table: one row per measure, one column per design."""
    designs = list(table.index)
    lines = ["| measure | " + " | ".join(
        f"{d} ({DESIGNS[d].models + (1 if DESIGNS[d].thin_battles else 0)} models, "
        f"{DESIGNS[d].battles + DESIGNS[d].thin_battles:,} battles)" for d in designs)
             + " |", "|---|" + "---:|" * len(designs)]
    for key, words in MEASURES:
        cells = [f"{100 * table.loc[d, key]:.1f}% ± {100 * table.loc[d, key + '_se']:.1f}"
                 if table.loc[d, key] == table.loc[d, key] else "-" for d in designs]
        lines.append(f"| {words} | " + " | ".join(cells) + " |")
    lines.append("| mean size of tier 1 | " + " | ".join(
        f"{table.loc[d, 'tier1_size']:.2f}" for d in designs) + " |")
    lines.append("| arenas (refused and redrawn) | " + " | ".join(
        f"{int(table.loc[d, 'arenas'])} ({int(table.loc[d, 'refused'])})" for d in designs)
        + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arenas", type=int, default=400, help="arenas per design")
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--designs", nargs="+", choices=sorted(DESIGNS), default=list(DESIGNS))
    parser.add_argument("--csv", help="also write one row per arena here")
    args = parser.parse_args()
    start = time.perf_counter()
    study = run_study(arenas=args.arenas, replicates=args.replicates, seed=args.seed,
                      designs=tuple(args.designs))
    if args.csv:
        study.to_csv(args.csv, index=False)
    print(markdown(summary(study)))
    print(f"\n± one Monte Carlo standard error (per-arena values, arenas independent); "
          f"{args.replicates:,} replicates, seed {args.seed}, "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
