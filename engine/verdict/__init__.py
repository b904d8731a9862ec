"""The typed verdict: its model, the probabilistic decision, and how both analyses become one Verdict."""
