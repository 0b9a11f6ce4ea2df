"""One mutation per rule of Chocolates (rules.py, cards.py, components.py, records.py): each breaks
that one rule by an exact text replacement; ``python -m tests.mutations chocolates`` runs
tests/games/chocolates against each and every one must be killed by a named rule test."""

from __future__ import annotations

from tests.mutations import Mutation

RULES = "choco_envs/games/chocolates/rules.py"
CARDS = "choco_envs/games/chocolates/cards.py"
COMPONENTS = "choco_envs/games/chocolates/components.py"
RECORDS = "choco_envs/games/chocolates/records.py"


def rule(name: str, old: str, new: str, what: str, path: str = RULES) -> Mutation:
    return Mutation(name, path, old, new, what)


def card(name: str, old: str, new: str, what: str) -> Mutation:
    """A mutation of the table's geometry or a card's prediction (cards.py)."""
    return Mutation(name, CARDS, old, new, what)


MUTATIONS = [
    # ------------------------------------------------------------------ setup
    rule(
        "setup_no_chocolate_shuffle",
        "        shuffle(rng, layout)\n",
        "",
        "Shuffle all the chocolates",
    ),
    rule(
        "setup_no_card_shuffle",
        "        shuffle(rng, pile)\n",
        "",
        "Shuffle all the Prediction cards",
    ),
    rule(
        "display_of_two",
        "DISPLAY_SIZE = 3\n",
        "DISPLAY_SIZE = 2\n",
        "Draw 3 cards ... to form the display",
    ),
    rule(
        "nougat_supply_23",
        "NOUGAT_SUPPLY = 24\n",
        "NOUGAT_SUPPLY = 23\n",
        "24 Nougat cube tiles",
        COMPONENTS,
    ),
    # ------------------------------------------------------------------ turn order
    rule(
        "counter_clockwise",
        "s.current = (s.current + 1) % self.num_players",
        "s.current = (s.current - 1) % self.num_players",
        "The game is played in clockwise order",
    ),
    rule(
        "second_take_in_a_turn_in_the_mask",
        "return not s.took_card and len(s.cards[s.current]) < self.card_limit",
        "return len(s.cards[s.current]) < self.card_limit",
        "take 1 Prediction card (optional), then reveal: one take a turn (mask)",
    ),
    rule(
        "second_take_in_a_turn_applied",
        "        if s.took_card:\n            raise",
        "        if False:\n            raise",
        "one take a turn (apply refuses a second)",
    ),
    rule(
        "take_does_not_hold_the_turn",
        "        s.took_card = True\n",
        "        s.took_card = False\n",
        "after a take the same player reveals",
    ),
    rule(
        "took_card_kept_after_reveal",
        "        s.took_card = False\n        if pos < GRID_CELLS:",
        "        if pos < GRID_CELLS:",
        "the next player may take again",
    ),
    rule(
        "reveal_twice",
        "if s.revealed[pos]:\n            raise self.illegal",
        "if False:\n            raise self.illegal",
        "Flip any 1 chocolate face up (a face-down one)",
    ),
    # ------------------------------------------------------------------ the take and its nougats
    rule(
        "take_without_its_nougats",
        "s.nougats[player] += s.display_nougats[slot]",
        "s.nougats[player] += 0",
        "take 1 Prediction card, and any Nougat cubes on it",
    ),
    rule(
        "taken_nougats_stay_on_the_slot",
        "        s.display_nougats[slot] = 0\n",
        "",
        "the cubes go with the card",
    ),
    rule(
        "nougat_on_the_taken_slot_too",
        "if other != slot and s.display[other] >= 0 and s.supply > 0:",
        "if s.display[other] >= 0 and s.supply > 0:",
        "1 Nougat cube onto each of the remaining Prediction cards",
    ),
    rule(
        "nougat_from_an_empty_supply",
        "if other != slot and s.display[other] >= 0 and s.supply > 0:",
        "if other != slot and s.display[other] >= 0:",
        "Rulings: none once the supply is empty",
    ),
    rule(
        "nougat_on_an_empty_slot",
        "if other != slot and s.display[other] >= 0 and s.supply > 0:",
        "if other != slot and s.supply > 0:",
        "cubes go onto the remaining cards (not an empty slot)",
    ),
    rule(
        "no_refill",
        "s.display[slot] = draw(rng, s.pile, s.pile_unordered) if s.pile else -1",
        "s.display[slot] = -1",
        "bring the display back up to 3 Prediction cards",
    ),
    rule(
        "empty_slot_taken",
        "        if card < 0:\n            raise",
        "        if False:\n            raise",
        "Rulings: the display is refilled while the pile lasts; an empty slot holds no card",
    ),
    rule(
        "side_not_recorded",
        "s.cards[player] = (*s.cards[player], 2 * card + side)",
        "s.cards[player] = (*s.cards[player], 2 * card)",
        "decide whether to place the card face up or face down",
    ),
    # ------------------------------------------------------------------ card limit and the end
    rule(
        "limit_4_players_is_4",
        "CARD_LIMIT = {2: 4, 3: 4, 4: 3}",
        "CARD_LIMIT = {2: 4, 3: 4, 4: 4}",
        "third card in a 4-player game",
    ),
    rule(
        "limit_3_players_is_3",
        "CARD_LIMIT = {2: 4, 3: 4, 4: 3}",
        "CARD_LIMIT = {2: 4, 3: 3, 4: 3}",
        "fourth card in a 2 or 3-player game",
    ),
    rule(
        "take_at_the_limit_in_the_mask",
        "len(s.cards[s.current]) < self.card_limit",
        "len(s.cards[s.current]) <= self.card_limit",
        "Rulings: at most 4 cards (mask)",
    ),
    rule(
        "take_at_the_limit_applied",
        "if len(s.cards[player]) >= self.card_limit:\n",
        "if len(s.cards[player]) > self.card_limit:\n",
        "Rulings: at most 4 cards (apply)",
    ),
    rule(
        "limit_never_triggers",
        "if len(s.cards[player]) >= self.card_limit and s.final_turns < 0:",
        "if len(s.cards[player]) > self.card_limit and s.final_turns < 0:",
        "reaching the limit triggers the end",
    ),
    rule(
        "second_seat_restarts_the_final_turns",
        "if len(s.cards[player]) >= self.card_limit and s.final_turns < 0:",
        "if len(s.cards[player]) >= self.card_limit:",
        "issue 17: another seat at the limit in the final round restarts nothing",
    ),
    rule(
        "final_round_one_turn_too_many",
        "s.final_turns = self.num_players - 1",
        "s.final_turns = self.num_players",
        "all other players take one more turn",
    ),
    rule(
        "final_round_one_turn_short",
        "s.final_turns = self.num_players - 1",
        "s.final_turns = self.num_players - 2",
        "all other players take one more turn",
    ),
    rule(
        "final_round_never_ends",
        "        if s.final_turns == 0:\n            self._end(s)",
        "        if s.final_turns == -2:\n            self._end(s)",
        "after the other players' one more turn the game ends",
    ),
    rule(
        "final_round_never_counts_down",
        "        if s.final_turns > 0:\n            s.final_turns -= 1\n",
        "",
        "one more turn each",
    ),
    rule(
        "sixteenth_reveal_waits_for_the_final_round",
        "            if s.grid_hidden == 0:\n",
        "            if s.grid_hidden == 0 and s.final_turns < 0:\n",
        "issue 17: the 16th grid reveal ends the game at once, even once the end is triggered",
    ),
    rule(
        "beside_reveal_counts_as_grid",
        "        if pos < GRID_CELLS:\n            s.grid_hidden -= 1",
        "        if pos <= GRID_CELLS:\n            s.grid_hidden -= 1",
        "all 16 chocolates in the grid (not those next to it)",
    ),
    rule(
        "no_flip_at_the_end",
        "        s.revealed[:] = ALL_FACE_UP\n",
        "",
        "Flip all remaining chocolates face up",
    ),
    # ------------------------------------------------------------------ scoring and ties
    rule(
        "wrong_side_costs_nothing",
        "PREDICTION_CARDS[card].points(side) * (2 * right - 1)",
        "PREDICTION_CARDS[card].points(side) * right",
        "For each incorrect Prediction you deduct the points",
    ),
    rule(
        "false_side_read_as_true",
        "        right = truths[card] != bool(side)\n",
        "        right = truths[card]\n",
        "A 'false' Prediction can also be correct",
    ),
    rule(
        "points_of_the_other_side",
        "return self.false_points if side_false else self.true_points",
        "return self.true_points if side_false else self.false_points",
        "points indicated on the side face up",
        COMPONENTS,
    ),
    rule(
        "nougats_not_scored",
        "return [float(p + n) for p, n in zip(self.prediction_points(s), s.nougats, strict=True)]",
        "return [float(p) for p, n in zip(self.prediction_points(s), s.nougats, strict=True)]",
        "For each Nougat cube collected, you receive 1 point",
    ),
    rule(
        "ties_broken_by_seat",
        "        return (self.scores(s)[player],)\n",
        "        return (self.scores(s)[player], -player)\n",
        "In case of a tie, the players share the victory",
    ),
    # ------------------------------------------------------------------ hidden information
    rule(
        "determinize_keeps_the_chocolates",
        "        permute(rng, kinds)\n",
        "",
        "determinize resamples the face-down chocolates",
    ),
    rule(
        "determinize_keeps_the_pile",
        "        new.pile_unordered = True\n",
        "",
        "determinize resamples the pile order (left to its draws)",
    ),
    rule(
        "determinized_pile_drawn_from_the_top",
        "        s.display[slot] = draw(rng, s.pile, s.pile_unordered) if s.pile else -1\n",
        "        s.display[slot] = s.pile.pop() if s.pile else -1\n",
        "determinize: a determinized pile's draws are random cards of it",
    ),
    Mutation(
        "draw_takes_the_top_of_an_unordered_pile",
        "choco_envs/core/game.py",
        "    if unordered and len(pile) > 1:\n",
        "    if False:\n",
        "core.game.draw: an unordered pile's draw is a uniformly random card",
    ),
    Mutation(
        "draw_never_takes_the_last_card",
        "choco_envs/core/game.py",
        "    while j > last:\n",
        "    while j >= last:\n",
        "core.game.draw: every card of an unordered pile can be drawn",
    ),
    rule(
        "determinize_reads_the_truth",
        "    kinds = sorted(read_hidden(layout))\n",
        "    kinds = list(read_hidden(layout))\n",
        "a determinization depends only on what is public",
    ),
    rule(
        "determinize_reads_the_pile_order",
        "    cards = sorted(pile)\n",
        "    cards = list(pile)\n",
        "a determinization depends only on what is public (the pile's order too)",
    ),
    # ------------------------------------------------------------------ geometry (the rulings)
    card(
        "outer_area_without_the_bottom_row",
        "if i // 4 in (0, 3) or i % 4 in (0, 3))",
        "if i // 4 in (0,) or i % 4 in (0, 3))",
        "Rulings: the outer area is the 12 edge cells",
    ),
    card(
        "left_side_is_one_column",
        "if i % 4 < 2)",
        "if i % 4 < 1)",
        "Rulings: the left side is the two left columns",
    ),
    card(
        "diagonal_pairs_one_way",
        "for d in (-1, 1) if 0 <=",
        "for d in (1,) if 0 <=",
        "Rulings: diagonal neighbours (both diagonals)",
    ),
    card(
        "one_main_diagonal",
        "((0, 5, 10, 15), (3, 6, 9, 12))",
        "((0, 5, 10, 15), (0, 5, 10, 15))",
        "Rulings: one of the two main diagonals",
    ),
    card(
        "corners_wrong",
        "CORNERS: tuple[int, ...] = (0, 3, 12, 15)",
        "CORNERS: tuple[int, ...] = (0, 3, 12, 14)",
        "the four corners of the grid",
    ),
    card(
        "columns_are_not_lines",
        "LINES = ROWS + COLUMNS",
        "LINES = ROWS + ROWS",
        "in one of the rows or columns",
    ),
    # ------------------------------------------------------------------ the 29 cards (scalar)
    card(
        "card0_at_least_one_gold",
        "count(t, GOLD) == 1,",
        "count(t, GOLD) >= 0,",
        "card 0: Exactly 1 golden chocolate in the grid",
    ),
    card(
        "card1_counts_beside",
        "lambda t, s, b: count(t, GREEN) == 2,",
        "lambda t, s, b: count(t, GREEN) + b.count(GREEN) == 2,",
        "card 1: Exactly 2 green chocolates in the grid (not beside)",
    ),
    card(
        "card2_three_or_more",
        "count(t, WHITE) == 3,",
        "count(t, WHITE) >= 3,",
        "card 2: Exactly 3 white",
    ),
    card(
        "card3_whole_grid",
        "count(t, PINK, OUTER) == 2,",
        "count(t, PINK) == 2,",
        "card 3: pink in the outer area",
    ),
    card(
        "card4_four",
        "count(t, DARK, OUTER) == 3,",
        "count(t, DARK, OUTER) == 4,",
        "card 4: Exactly 3 dark in the outer area",
    ),
    card(
        "card5_triangular",
        "count(s, ROUND, OUTER) == 4,",
        "count(s, TRIANGULAR, OUTER) == 4,",
        "card 5: round chocolates",
    ),
    card(
        "card6_at_least",
        "count(s, TRIANGULAR, OUTER) == count(s, HEXAGONAL, OUTER),",
        "count(s, TRIANGULAR, OUTER) >= count(s, HEXAGONAL, OUTER),",
        "card 6: the exact same number",
    ),
    card(
        "card7_zero_is_not_equal",
        "lambda t, s, b: count(t, BROWN, LEFT) == count(t, BROWN, RIGHT),",
        "lambda t, s, b: count(t, BROWN, LEFT) == count(t, BROWN, RIGHT) > 0,",
        "Rulings: exact same number includes 0 = 0",
    ),
    card(
        "card8_not_strict",
        "count(t, DARK, LEFT) > count(t, DARK, RIGHT),",
        "count(t, DARK, LEFT) >= count(t, DARK, RIGHT),",
        "card 8 / Rulings: more is strict",
    ),
    card(
        "card9_right_side",
        "count(s, TRIANGULAR, LEFT) > count(s, TRIANGULAR, RIGHT),",
        "count(s, TRIANGULAR, RIGHT) > count(s, TRIANGULAR, LEFT),",
        "card 9: more in the left side than the right",
    ),
    card(
        "card10_not_strict",
        "count(s, ROUND) > count(s, TRIANGULAR),",
        "count(s, ROUND) >= count(s, TRIANGULAR),",
        "card 10: more round than triangular",
    ),
    card(
        "card11_whole_grid",
        "count(t, BROWN, LEFT) > count(t, WHITE, LEFT),",
        "count(t, BROWN) > count(t, WHITE),",
        "card 11: in the left side",
    ),
    card(
        "card12_left_side",
        "count(t, GREEN, RIGHT) > count(t, PINK, RIGHT),",
        "count(t, GREEN, LEFT) > count(t, PINK, LEFT),",
        "card 12: in the right side",
    ),
    card(
        "card13_pink_pink",
        "adjacent_pair(t, PINK, GREEN),",
        "adjacent_pair(t, PINK, PINK),",
        "card 13: adjacent pink and green",
    ),
    card(
        "card14_diagonal_counts",
        "(values[i] == a and values[j] == b) or (values[i] == b and values[j] == a)\n        for i, j in ORTHOGONAL_PAIRS",
        "(values[i] == a and values[j] == b) or (values[i] == b and values[j] == a)\n        for i, j in ORTHOGONAL_PAIRS + DIAGONAL_PAIRS",
        "Rulings: adjacent means orthogonally adjacent",
    ),
    card(
        "card15_two_dark",
        "largest_group(t, DARK) >= 3,",
        "largest_group(t, DARK) >= 2,",
        "card 15: at least 3 adjacent dark",
    ),
    card(
        "card15_straight_line_only",
        "            for nb in NEIGHBOURS[cell]:\n",
        "            for nb in [n for n in NEIGHBOURS[cell] if n // 4 == cell // 4]:\n",
        "note: more than 2 adjacent need not be in a straight line",
    ),
    card(
        "card16_three_round",
        "largest_group(s, ROUND) >= 4,",
        "largest_group(s, ROUND) >= 3,",
        "card 16: at least 4 adjacent round",
    ),
    card(
        "card17_round",
        "largest_group(s, TRIANGULAR) >= 4,",
        "largest_group(s, ROUND) >= 4,",
        "card 17: triangular",
    ),
    card(
        "card18_five",
        "largest_group(s, HEXAGONAL) >= 4,",
        "largest_group(s, HEXAGONAL) >= 5,",
        "card 18: at least 4 adjacent hexagonal",
    ),
    card(
        "card19_two",
        "return any(held.count(value) >= 3 for held in line_values(values))",
        "return any(held.count(value) >= 2 for held in line_values(values))",
        "card 19: at least 3 hexagonal in one line",
    ),
    card(
        "card20_four",
        "return any(max(held.count(v) for v in held) >= 3 for held in line_values(values))",
        "return any(max(held.count(v) for v in held) >= 4 for held in line_values(values))",
        "card 20: at least 3 of the same type in one line",
    ),
    card(
        "card21_two_of_three",
        "all_in_one_line(t, {WHITE, GREEN, PINK}),",
        "all_in_one_line(t, {WHITE, GREEN}),",
        "card 21: white, green and pink in one line",
    ),
    card(
        "card22_brown",
        "adjacent_pair(t, WHITE, WHITE),",
        "adjacent_pair(t, BROWN, BROWN),",
        "card 22: adjacent white",
    ),
    card(
        "card23_orthogonal",
        "any(t[i] == DARK and t[j] == DARK for i, j in DIAGONAL_PAIRS),",
        "any(t[i] == DARK and t[j] == DARK for i, j in ORTHOGONAL_PAIRS),",
        "card 23 / Rulings: connected in a diagonal line",
    ),
    card(
        "card24_three_types",
        "return len({values[i] for i in cells}) == len(cells)",
        "return len({values[i] for i in cells}) >= len(cells) - 1",
        "cards 24, 27: 4 different types",
    ),
    card(
        "card25_three",
        "count(s, TRIANGULAR, CORNERS) >= 2,",
        "count(s, TRIANGULAR, CORNERS) >= 3,",
        "card 25: at least 2 triangular in the corners",
    ),
    card(
        "card26_outer",
        "count(s, ROUND, CORNERS) >= 2,",
        "count(s, ROUND, OUTER) >= 2,",
        "card 26: in the four corners",
    ),
    card(
        "card27_diagonal",
        "lambda t, s, b: all_different(t, CORNERS),",
        "lambda t, s, b: all_different(t, MAIN_DIAGONALS[0]),",
        "card 27: the four corners",
    ),
    card(
        "card28_five",
        "lambda t, s, b: len(set(b)) >= 4,",
        "lambda t, s, b: len(set(b)) >= 5,",
        "card 28: at least 4 types next to the grid",
    ),
    card(
        "card28_grid",
        "lambda t, s, b: len(set(b)) >= 4,",
        "lambda t, s, b: len(set(t)) >= 4,",
        "Rulings: next to the grid means only those 5",
    ),
    rule(
        "card_points_swapped",
        '("Exactly 1 golden chocolate in the grid.", 2, 8),',
        '("Exactly 1 golden chocolate in the grid.", 8, 2),',
        "card 0 prints 2 / 8",
        COMPONENTS,
    ),
    rule(
        "card_points_changed",
        '("At least 4 adjacent hexagonal chocolates in the grid.", 7, 3),',
        '("At least 4 adjacent hexagonal chocolates in the grid.", 6, 4),',
        "card 18 prints 7 / 3",
        COMPONENTS,
    ),
    # ------------------------------------------------------------------ the 29 cards (vectorised)
    card(
        "matrix_group_of_three_is_two",
        "    return (m & ((a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d))) != 0\n",
        "    return (m & (a | b | c | d)) != 0\n",
        "card 15, vectorised: 3 adjacent",
    ),
    card(
        "matrix_group_of_four_without_paths",
        "    return (three | (two & _touching(two))) != 0\n",
        "    return three != 0\n",
        "cards 16-18, vectorised: 4 adjacent, not only a T",
    ),
    card(
        "matrix_wraps_rows",
        "m >> 4, (m << 4) & _FULL, (m >> 1) & _NOT_COLUMN_3, (m << 1) & _NOT_COLUMN_0",
        "m >> 4, (m << 4) & _FULL, m >> 1, (m << 1) & _NOT_COLUMN_0",
        "vectorised adjacency: row ends are not neighbours",
    ),
    card(
        "matrix_dark_diagonal_one_way",
        "(dark & (dark >> 5) & _NOT_COLUMN_3) | (dark & (dark >> 3) & _NOT_COLUMN_0)",
        "dark & (dark >> 5) & _NOT_COLUMN_3",
        "card 23, vectorised: both diagonals",
    ),
    card(
        "matrix_lines_three_of_a_type_four",
        "np.any([(in_lines(m) >= 3).any(axis=1) for m in t], axis=0),",
        "np.any([(in_lines(m) >= 4).any(axis=1) for m in t], axis=0),",
        "card 20, vectorised",
    ),
    card(
        "matrix_beside_three_types",
        "        beside_types >= 4,\n",
        "        beside_types >= 3,\n",
        "card 28, vectorised",
    ),
    card(
        "matrix_corners_repeat",
        "        one_of_each_type(_CORNERS),\n",
        "        one_of_each_type(_OUTER),\n",
        "card 27, vectorised",
    ),
    card(
        "matrix_popcount",
        "    x = (x + (x >> 4)) & 0x0F0F\n",
        "    x = (x + (x >> 4)) & 0x0F0E\n",
        "vectorised counts",
    ),
    # ------------------------------------------------------------------ the loader (records)
    rule(
        "record_chocolates_not_conserved",
        "    if have != want:\n        extra",
        "    if False:\n        extra",
        "the 21 chocolates, each once",
        RECORDS,
    ),
    rule(
        "record_card_twice",
        "        if len(where) > 1:\n",
        "        if False:\n",
        "each of the 29 cards in one place",
        RECORDS,
    ),
    rule(
        "record_card_missing",
        '    if missing:\n        raise RecordError(\n            f"{WHERE}.pile: card(s)',
        '    if False:\n        raise RecordError(\n            f"{WHERE}.pile: card(s)',
        "each of the 29 cards somewhere",
        RECORDS,
    ),
    rule(
        "record_empty_slot_with_a_pile",
        "    if s.pile and -1 in s.display:\n",
        "    if False:\n",
        "the display is refilled while the pile lasts",
        RECORDS,
    ),
    rule(
        "record_nougats_not_conserved",
        "    if total != NOUGAT_SUPPLY:\n",
        "    if False:\n",
        "the 24 nougat cubes, each once",
        RECORDS,
    ),
    rule(
        "record_supply_any",
        "    if s.supply != expected:\n",
        "    if False:\n",
        "each take moves 2 cubes from the supply",
        RECORDS,
    ),
    rule(
        "record_display_nougats_any",
        "        if cubes > takes:\n",
        "        if False:\n",
        "one cube a take on a display card",
        RECORDS,
    ),
    rule(
        "record_nougats_without_cards",
        "        if cubes and not held:\n",
        "        if False:\n",
        "cubes come only with a card",
        RECORDS,
    ),
    rule(
        "record_card_limit",
        "        if len(held) > game.card_limit:\n",
        "        if False:\n",
        "a player holds at most the card limit",
        RECORDS,
    ),
    rule(
        "record_grid_full_not_over",
        "    if s.grid_hidden == 0:\n        raise",
        "    if False:\n        raise",
        "the 16th grid reveal ends the game",
        RECORDS,
    ),
    rule(
        "record_any_seat_to_act",
        "    if s.current != reveals % n:\n",
        "    if s.current not in range(n):\n",
        "clockwise from player_0, one reveal a turn",
        RECORDS,
    ),
    rule(
        "record_took_card_without_a_card",
        "    if s.took_card and not s.cards[s.current]:\n",
        "    if False:\n",
        "a take gives a card",
        RECORDS,
    ),
    rule(
        "record_more_cards_than_turns",
        "        if len(held) > turns:\n",
        "        if False:\n",
        "at most one card a turn",
        RECORDS,
    ),
    rule(
        "record_limit_without_trigger",
        "        if at_limit:\n",
        "        if False:\n",
        "reaching the limit triggers the end",
        RECORDS,
    ),
    rule(
        "record_trigger_turn_without_take",
        "    if j == 0 and not s.took_card:\n",
        "    if False:\n",
        "the end is triggered by a take",
        RECORDS,
    ),
    rule(
        "record_trigger_seat_not_at_limit",
        "    if len(s.cards[trigger]) != limit:\n",
        "    if False:\n",
        "the trigger seat holds the limit",
        RECORDS,
    ),
    rule(
        "record_waiting_seat_at_limit",
        "        if seat in waiting:\n",
        "        if False:\n",
        "only the first to reach the limit triggers the end",
        RECORDS,
    ),
    rule(
        "record_over_with_a_seat",
        "    if s.current != -1:\n",
        "    if False:\n",
        "nobody acts once the game is over",
        RECORDS,
    ),
    rule(
        "record_over_face_down",
        "    if not all(s.revealed):\n",
        "    if False:\n",
        "Flip all remaining chocolates face up",
        RECORDS,
    ),
    rule(
        "record_over_end_flag",
        "    if reached != (s.final_turns >= 0):\n",
        "    if False:\n",
        "a finished game's end flag matches the card limit",
        RECORDS,
    ),
]
