"""Play-ranking distillation: an evaluator trained toward its own search values.

The step of the training recipe between self-play and calibration (``bgengine distill``):
:func:`collect` the network's own N-ply search values of the best plays of its self-play
decisions, :func:`mean_targets` of several depths, :func:`fit` the network to them (with a
loss on the equity differences between the plays of one decision), :func:`blend` several fits.
"""

from __future__ import annotations

from bgengine.training.distillation.fitting import blend, fit, phase_errors
from bgengine.training.distillation.targets import (CONTACT, EQUITY_WEIGHTS, PHASES, RACE,
                                           check_same_positions, collect, decision_groups,
                                           held_out_figures, load_decisions, mean_targets,
                                           pair_residuals, parse_experts, position_phases,
                                           sigmoid, split_decisions)
from bgengine.core.evaluator import Evaluator

__all__ = ["CONTACT", "RACE", "EQUITY_WEIGHTS", "PHASES", "Evaluator", "collect",
           "check_same_positions", "mean_targets", "decision_groups", "position_phases",
           "parse_experts", "split_decisions", "pair_residuals", "load_decisions",
           "held_out_figures", "sigmoid", "fit", "phase_errors", "blend"]
