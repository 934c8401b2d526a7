"""Where each step of context management starts, for small and large windows."""

from __future__ import annotations

from agentcli.context.thresholds import thresholds


def test_a_200k_model_with_the_default_answer_room():
    limits = thresholds(200_000, 32_000)
    assert limits.effective == 180_000  # the reserve is capped at 20k
    assert limits.auto_compact == 167_000  # 13k below the effective window
    assert limits.blocking == 177_000  # 3k below it
    assert limits.microcompact == int(167_000 * 0.8)
    assert limits.microcompact_min_saving == 10_000
    assert limits.microcompact < limits.auto_compact < limits.blocking < limits.effective < limits.window


def test_a_small_window_scales_every_margin():
    limits = thresholds(16_000, 32_000)
    assert limits.effective == 12_000  # a quarter of the window is kept for the answer
    assert limits.auto_compact == 10_800
    assert limits.blocking == 11_400
    assert limits.microcompact == 8_640


def test_a_short_answer_reserves_less():
    assert thresholds(200_000, 4_000).effective == 196_000


def test_the_percentage_setting_moves_auto_compact_but_never_past_blocking():
    assert thresholds(200_000, 32_000, 50).auto_compact == 90_000
    assert thresholds(200_000, 32_000, 100).auto_compact == thresholds(200_000, 32_000).blocking
    assert thresholds(200_000, 32_000, 0.1).auto_compact == 1_800  # at least 1 %


def test_a_1m_window():
    limits = thresholds(1_000_000, 32_000)
    assert limits.effective == 980_000 and limits.auto_compact == 967_000
