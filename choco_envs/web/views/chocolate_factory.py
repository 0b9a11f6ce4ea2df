"""Chocolate Factory on the page: for now the generic text view (:mod:`.text`): the seat's
``state_to_string`` in labelled panels, moves from the move list. Its rules and
observation are changing in this round; its drawn board follows once they land."""

from __future__ import annotations

from choco_envs.web.views.text import target, view

__all__ = ["target", "view"]
