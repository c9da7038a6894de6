"""The sizes of the public and private test slices, from whichever options the user gave.

A leaderboard file carries scores, not sizes, so post-mortems take them from the command line:
``--n-public N --n-private M`` (two slices, or two test sets in a two-stage competition), or
``--n-test T --public-fraction F`` (one test set split by Kaggle's Usage). Alone, ``--n-test`` keeps
its older meaning: the rows of the split that ranks the board.
"""
from __future__ import annotations

from dataclasses import dataclass

from leaderboard.errors import InputError


@dataclass(frozen=True)
class SliceSizes:
    """Rows in each slice; None where unknown.

    Attributes
    ----------
    ranking : int or None
        Rows of the split that ranks the board (the noise of the intervals and tiers).
    public, private : int or None
        Rows of each slice (the noise of the shake-up baseline).
    two_stage : bool
        The public board was scored on other data than the private one (a stage-1 test set).
    """


    ranking: int | None
    public: int | None
    private: int | None
    two_stage: bool = False

    @property
    def known(self) -> bool:
        """Both slices' sizes are known, so the shake-up's noise can be simulated."""
        return self.public is not None and self.private is not None


def resolve_sizes(*, n_test: int | None = None, n_public: int | None = None,
                  n_private: int | None = None, public_fraction: float | None = None,
                  split: str = "private", two_stage: bool = False) -> SliceSizes:
    """Turn the size options into :class:`SliceSizes`, or a one-line error when they disagree.

    Examples
    --------
    >>> resolve_sizes(n_test=1000, public_fraction=0.25)
    SliceSizes(ranking=750, public=250, private=750, two_stage=False)
    >>> resolve_sizes(n_public=30, n_private=90, split="public").ranking
    30
    >>> resolve_sizes(n_test=500).known
    False
    """
    for name, value in (("--n-test", n_test), ("--n-public", n_public),
                        ("--n-private", n_private)):
        if value is not None and value < 2:
            raise InputError(f"{name} must be at least 2, got {value}")
    if public_fraction is not None:
        if two_stage:
            raise InputError("--public-fraction splits one test set; a two-stage competition has two "
                             "test sets: give --n-public and --n-private")
        if n_test is None:
            raise InputError("--public-fraction needs --n-test (the rows of the whole test set)")
        if n_public is not None or n_private is not None:
            raise InputError("give either --n-test with --public-fraction, or --n-public and "
                             "--n-private, not both")
        if not 0 < public_fraction < 1:
            raise InputError(f"--public-fraction must be strictly between 0 and 1, got "
                             f"{public_fraction:g}")
        n_public = round(n_test * public_fraction)
        n_private = n_test - n_public
        if min(n_public, n_private) < 2:
            raise InputError(f"--public-fraction {public_fraction:g} of --n-test {n_test} leaves "
                             f"{min(n_public, n_private)} row(s) in one slice; each needs at least 2")
    elif n_public is not None or n_private is not None:
        if n_test is not None and n_public is not None and n_private is not None \
                and n_test != n_public + n_private:
            raise InputError(f"--n-test {n_test} is not --n-public + --n-private "
                             f"({n_public} + {n_private}); give the slices' sizes only")
    elif two_stage:
        raise InputError("--two-stage needs the sizes of both test sets: --n-public and --n-private")
    else:
        return SliceSizes(ranking=n_test, public=None, private=None)
    ranking = n_private if split == "private" else n_public
    return SliceSizes(ranking=ranking if ranking is not None else n_test, public=n_public,
                     private=n_private, two_stage=two_stage)
