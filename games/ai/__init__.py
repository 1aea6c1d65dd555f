"""The computer opponent: a generic game-tree search and one evaluation per game.

``games.ai.levels.choose_move`` is the entry point for the web app and the CLI;
``games.ai.search`` is the search itself, usable with any ``Game`` and ``Evaluation``.
"""
