"""Checks and studies of a generated model (later: audit, statics and modes drivers).

- check.py  the finite-difference self-check of every derived term (`./mcsgen check`)
"""
