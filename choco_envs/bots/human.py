"""The human bot: a person at the terminal plays one seat.

It shows only that seat's view (``state_to_string`` for the seat), lists the legal moves
numbered from 1 with their names, and asks until it gets a valid number. ``q`` (or end of
input) raises KeyboardInterrupt, which the command line turns into a clean exit. Input and
output streams are injectable, for tests and other front ends.
"""

from __future__ import annotations

import sys
from typing import IO

from choco_envs.bots.base import AgentView, Bot

QUIT_WORDS = ("q", "quit", "exit")


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
        self._show(view, legal)
        while True:
            answer = self._ask(f"player_{view.seat}, your move [1-{len(legal)}, q to quit]: ")
            choice = parse_choice(answer, len(legal))
            if choice is not None:
                return legal[choice]
            self._say(f"{answer!r} is not a move: type a number from 1 to {len(legal)}")

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
            raise KeyboardInterrupt("end of input")
        answer = line.strip()
        if answer.lower() in QUIT_WORDS:
            raise KeyboardInterrupt("the human quit")
        return answer

    def _say(self, text: str) -> None:
        print(text, file=self.output_stream or sys.stdout)


def parse_choice(answer: str, count: int) -> int | None:
    """The 0-based index of a typed move number in 1..count, or None if it is not one."""
    try:
        number = int(answer)
    except ValueError:
        return None
    return number - 1 if 1 <= number <= count else None
