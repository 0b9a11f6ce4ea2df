"""The human bot: a person at the terminal plays one seat.

It shows only that seat's view (``state_to_string`` for the seat), lists the legal moves
numbered from 1 with their names, and asks until it gets a move: a plain number from the
list (digits only) or a move's name as listed (case and spacing ignored). ``?`` or
``help`` shows the legend of the board's codes; ``q`` (or end of input) raises
:class:`Quit` (a KeyboardInterrupt, so no ``except Exception`` swallows it), which the
command line turns into a clean exit (code 0; Ctrl-C's is 130). Input and output
streams are injectable, for tests and other front ends.
"""

from __future__ import annotations

import sys
from typing import IO

from choco_envs.bots.base import AgentView, Bot

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help", "legend")


class Quit(KeyboardInterrupt):
    """The person chose to stop (``q`` or end of input): an ending, not an interruption."""


class HumanBot(Bot):
    """Asks a person for every move of its seat."""

    name = "human"

    def __init__(
        self,
        seed: int | None = None,
        input_stream: IO[str] | None = None,
        output_stream: IO[str] | None = None,
    ) -> None:
        super().__init__(seed)
        self.input_stream = input_stream
        self.output_stream = output_stream

    def act_view(self, view: AgentView) -> int:
        legal = view.legal_actions
        names = [view.action_name(a) for a in legal]
        self._show(view, legal)
        while True:
            answer = self._ask(
                f"player_{view.seat}, your move [1-{len(legal)} or its name, ? for the "
                "legend, q to quit]: "
            )
            if answer.lower() in HELP_WORDS:
                self._say(view.game.legend() or "(this game's board needs no legend)")
                continue
            choice = parse_choice(answer, names)
            if choice is not None:
                return legal[choice]
            self._say(
                f"{answer!r} is not a move: type a number from 1 to {len(legal)} or a "
                "move's name as listed (? shows the legend)"
            )

    def _show(self, view: AgentView, legal: list[int]) -> None:
        self._say("")
        self._say(view.text())
        self._say("Legal moves:")
        width = len(str(len(legal)))
        for number, action in enumerate(legal, start=1):
            self._say(f"  {number:>{width}}) {view.action_name(action)}")

    def _ask(self, prompt: str) -> str:
        out = self.output_stream or sys.stdout
        out.write(prompt)
        out.flush()
        line = (self.input_stream or sys.stdin).readline()
        if not line:
            raise Quit("end of input")
        answer = line.strip()
        if answer.lower() in QUIT_WORDS:
            raise Quit("the human quit")
        return answer

    def _say(self, text: str) -> None:
        print(text, file=self.output_stream or sys.stdout)


def parse_choice(answer: str, names: list[str]) -> int | None:
    """The 0-based index of the move typed: a number in 1..len(names) written with digits
    0-9 only (``1_0`` or ``١`` is not 10 or 1), or a move's name (case and runs of spaces
    ignored). None if it is neither."""
    text = answer.strip()
    if text.isascii() and text.isdigit():
        number = int(text)
        return number - 1 if 1 <= number <= len(names) else None
    wanted = " ".join(text.lower().split())
    matches = [i for i, name in enumerate(names) if " ".join(name.lower().split()) == wanted]
    return matches[0] if len(matches) == 1 else None
