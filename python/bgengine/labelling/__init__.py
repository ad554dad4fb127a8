"""Rollout-labelled positions: sampling, labelling, the data store, and fitting to them.

``classes``
    the position classes every labelled position is tagged with;
``sampling``
    positions from self-play with starts diversified toward rare structures;
``store``
    pools of positions to label and stores of labels (compact, tracked in git);
``labeller``
    cubeless rollouts of a pool's positions into a store, sharded and resumable.
"""
