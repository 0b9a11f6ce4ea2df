"""Play in the browser: ``choco serve`` (see docs/web.md).

* :mod:`.views` - per game, ``view(game, state, seat)``: what one seat (or a spectator,
  seat None) may see, as JSON-ready data; ``target(game, state, action)``: where a move
  is made on the board.
* :mod:`.sessions` - live games: seats and their tokens, bots played one move at a time,
  idle games expiring.
* :mod:`.store` - finished games saved as the env's JSON record; replay frames.
* :mod:`.catalog` - what the lobby offers: envs, their options, the bots that can be made.
* :mod:`.app` - the HTTP app (FastAPI): the JSON API and the pages.
* :mod:`.serve` - the ``choco serve`` command.

Nothing here is imported by the rest of the package: the web layer sits on top.
"""
