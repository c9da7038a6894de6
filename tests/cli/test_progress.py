"""The progress bar draws on a terminal only, and never with --quiet."""
import io

from leaderboard.progress import Progress


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_bar_draws_on_a_terminal_and_ends_the_line():
    stream = FakeTerminal()
    bar = Progress("simulating", stream=stream)
    bar.start(4)
    for _ in range(4):
        bar.advance()
    bar.close()
    text = stream.getvalue()
    assert "simulating [" in text and "100.0%" in text and text.endswith("\n")


def test_bar_is_silent_when_quiet_or_not_a_terminal():
    for stream, quiet in ((FakeTerminal(), True), (io.StringIO(), False)):
        bar = Progress("simulating", stream=stream, quiet=quiet)
        bar.start(3)
        bar.advance(3)
        bar.close()
        assert stream.getvalue() == ""
