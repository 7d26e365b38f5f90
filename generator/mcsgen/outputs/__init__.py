"""What runs produce for people and programs: CSV runs read back, figures.

- plot.py  figures of runs (q, qdot, |c|, energy; diag(R); tangent bases; events)
"""
