"""Extended thinking: flags over environment over the setting; budgets kept inside what the API accepts."""

from __future__ import annotations

from agentcli.config.thinking import DEFAULT_BUDGET, MIN_BUDGET, max_tokens_for, thinking_param


def test_nothing_asked_means_no_thinking():
    assert thinking_param(None, None, {}, None) is None


def test_flag_budget_wins_over_the_environment():
    assert thinking_param(None, 5000, {"MAX_THINKING_TOKENS": "9000"}, None) == {
        "type": "enabled",
        "budget_tokens": 5000,
    }


def test_environment_then_setting():
    assert thinking_param(None, None, {"MAX_THINKING_TOKENS": "9000"}, True)["budget_tokens"] == 9000
    assert thinking_param(None, None, {}, True) == {"type": "enabled", "budget_tokens": DEFAULT_BUDGET}


def test_modes():
    assert thinking_param("adaptive", 5000, {}, None) == {"type": "adaptive"}
    assert thinking_param("disabled", 5000, {"MAX_THINKING_TOKENS": "9000"}, True) is None
    assert thinking_param("enabled", None, {}, None)["budget_tokens"] == DEFAULT_BUDGET
    assert thinking_param(None, 0, {"MAX_THINKING_TOKENS": "9000"}, True) is None


def test_small_budgets_are_raised_and_max_tokens_leaves_room_for_the_answer():
    param = thinking_param(None, 10, {}, None)
    assert param["budget_tokens"] == MIN_BUDGET
    assert max_tokens_for({"type": "enabled", "budget_tokens": 40_000}, 32_000) > 40_000
    assert max_tokens_for(None, 32_000) == 32_000
    assert max_tokens_for({"type": "adaptive"}, 32_000) == 32_000
