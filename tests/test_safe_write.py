"""Outputs are replaced whole or not at all (leaderboard/safe_write.py).

The page and the JSON of a large board are written a block of rows at a time; a run that fails,
is stopped or fills the disk midway must leave the last run's output as it was, and no stray
file beside it. Links and hard links are written through, as before.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from leaderboard import safe_write
from leaderboard.errors import InputError


def _pieces_then(error: BaseException):
    yield "<html>" + "x" * 100
    yield "more rows"
    raise error


@pytest.mark.parametrize("error", [RuntimeError("made up"), KeyboardInterrupt()])
def test_a_write_failing_midway_leaves_the_earlier_file_whole_and_nothing_beside_it(
        tmp_path, monkeypatch, error):
    """Fails on the old code, which opened and emptied the file, then wrote the first pieces."""
    monkeypatch.setattr(safe_write, "CHARS_PER_WRITE", 4)   # every piece written as it comes
    path = tmp_path / "report.html"
    path.write_text("the earlier report", encoding="utf-8")
    with pytest.raises(type(error)):
        safe_write.write_pieces(path, _pieces_then(error))
    assert path.read_text(encoding="utf-8") == "the earlier report"
    assert os.listdir(tmp_path) == ["report.html"]


def test_a_full_disk_midway_is_one_line_and_the_earlier_file_stays(tmp_path):
    """A file-size limit (as a full disk) stops the second write: the error is the package's
    one-line InputError naming the file (it was a bare OSError from the streamed writers), and
    the earlier file is whole."""
    path = tmp_path / "report.json"
    path.write_text("earlier", encoding="utf-8")
    script = textwrap.dedent(f"""
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
        from leaderboard import safe_write
        from leaderboard.errors import InputError
        safe_write.CHARS_PER_WRITE = 600
        try:
            safe_write.write_pieces({str(path)!r}, ["a" * 700, "b" * 700])
        except InputError as error:
            print(error)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"cannot write {path}: "), out.stdout
    assert "large" in out.stdout.lower(), out.stdout   # EFBIG: "File too large"
    assert path.read_text(encoding="utf-8") == "earlier"
    assert os.listdir(tmp_path) == ["report.json"]


def test_a_replaced_file_keeps_its_mode_and_a_new_one_gets_the_umask(tmp_path):
    old_mask = os.umask(0o027)
    try:
        fresh = tmp_path / "new.html"
        safe_write.write_text(fresh, "new")
        assert fresh.stat().st_mode & 0o777 == 0o640
        kept = tmp_path / "kept.html"
        kept.write_text("old", encoding="utf-8")
        kept.chmod(0o604)
        safe_write.write_text(kept, "replaced")
        assert kept.stat().st_mode & 0o777 == 0o604
        assert kept.read_text(encoding="utf-8") == "replaced"
    finally:
        os.umask(old_mask)


def test_links_are_written_through_not_replaced(tmp_path):
    target = tmp_path / "target.html"
    target.write_text("t", encoding="utf-8")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    safe_write.write_text(link, "through the link")
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "through the link"
    hard = tmp_path / "hard.html"
    os.link(target, hard)
    safe_write.write_text(hard, "through the hard link")
    assert target.read_text(encoding="utf-8") == "through the hard link"
    assert sorted(os.listdir(tmp_path)) == ["hard.html", "link.html", "target.html"]


def test_a_missing_folder_is_still_one_line(tmp_path):
    with pytest.raises(InputError, match="cannot write .*No such file or directory"):
        safe_write.write_text(tmp_path / "absent" / "r.html", "x")
