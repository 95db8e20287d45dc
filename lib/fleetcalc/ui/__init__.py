"""The UI layer: the panel builder, plots, diagrams and exercise checks.

It draws what physics computes and never re-types a formula.
"""
