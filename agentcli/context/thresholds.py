"""Where in the context window each step of context management starts.

Derived from the window and the answer's reserve, so one table serves 200k and 1M models alike:

- *effective* window: the window minus a reserve for the answer (the smaller of max_tokens, 20k and a quarter of
  the window);
- *auto-compact* threshold: a margin below the effective window (the smaller of 13k and a tenth of it), or the
  settings' percentage of the effective window;
- *blocking* limit: a smaller margin below it (the smaller of 3k and a twentieth); past it nothing is sent until
  the history has been compacted;
- *microcompact* threshold: 80 % of the auto-compact threshold; old tool results are cleared from there on, when
  that saves at least a twentieth of the window;
- *compaction target*: the most a compaction's result may hold (a quarter of the window, at most 50k), whatever
  was compacted and however many times, so a long session never ratchets up.
"""

from __future__ import annotations

from dataclasses import dataclass

ANSWER_RESERVE_CAP = 20_000
AUTO_COMPACT_MARGIN = 13_000
BLOCKING_MARGIN = 3_000
MICROCOMPACT_FRACTION = 0.8
COMPACT_TARGET_SHARE = 4
COMPACT_TARGET_CAP = 50_000


@dataclass(frozen=True)
class Thresholds:
    window: int
    effective: int
    auto_compact: int
    blocking: int
    microcompact: int

    @property
    def microcompact_min_saving(self) -> int:
        return self.window // 20

    @property
    def compact_target(self) -> int:
        """The bound on a compacted history (summary, carried-over messages and files, kept tail), besides the
        user context and a prompt still waiting for its answer."""
        return min(self.window // COMPACT_TARGET_SHARE, COMPACT_TARGET_CAP)


def thresholds(window: int, max_tokens: int, auto_compact_percent: float | None = None) -> Thresholds:
    """The limits for a model with ``window`` tokens answering with up to ``max_tokens``.

    ``auto_compact_percent`` (1–100, from settings) moves the auto-compact threshold to that share of the
    effective window; it never goes past the blocking limit.
    """
    reserve = min(max_tokens, ANSWER_RESERVE_CAP, window // 4)
    effective = window - reserve
    blocking = effective - min(BLOCKING_MARGIN, effective // 20)
    auto = effective - min(AUTO_COMPACT_MARGIN, effective // 10)
    if auto_compact_percent is not None:
        auto = min(blocking, int(effective * max(1.0, min(100.0, auto_compact_percent)) / 100))
    return Thresholds(
        window=window,
        effective=effective,
        auto_compact=auto,
        blocking=blocking,
        microcompact=int(auto * MICROCOMPACT_FRACTION),
    )
