"""The generic interpreter: a checked rule file compiled once into closures, run by a small VM.

Nothing in this package knows any particular game.
"""
