/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A second look: a cell the rule does not believe from one measurement.
 * The rule lists them (crossover_rechecks(), crossover_member_rechecks(),
 * crossover_baseline_losses(), export_rechecks()), the probe measures
 * them again, fresh, the new cells replacing the old, and the rule
 * decides once, on what the second look gave.
 */
#ifndef PMEM_RULE_SECOND_LOOK_H
#define PMEM_RULE_SECOND_LOOK_H

#include <stdbool.h>
#include <stddef.h>

/* Why a size must be measured again before its decision is believed. */
enum second_look_why {
	SECOND_LOOK_ISLAND,	/* one size between two of another winner */
	SECOND_LOOK_EDGE,	/* one size at the grid's edge, the next differ */
	SECOND_LOOK_MEMBER,	/* a size of a member range: not the family's default */
	SECOND_LOOK_UNRESOLVED,	/* a tie that one member's wide interval makes */
	SECOND_LOOK_BASELINE_LOSS,	/* the baseline's strategy loses to the new decision */
	SECOND_LOOK_EXPORT_MOVE,	/* an export's move rests on the size */
};

#define SECOND_LOOK_MAX_CURVES 2

struct second_look {
	size_t op;		/* index into the target's ops (export moves), else 0 */
	size_t index;		/* into the op's sizes_bytes */
	enum second_look_why why;
	/*
	 * The family the first look claimed won the size by separation:
	 * fresh cells that give it again confirm the size
	 * (POLICY_CELL_CONFIRMED).  POLICY_FAMILY_NONE: no claim, the fresh
	 * cells are the size's second look (POLICY_CELL_REMEASURED).
	 */
	int verdict;
	/*
	 * The curves (indexes into the op's curves) the look compares: the
	 * side the first look found ahead, then the one it would displace
	 * (the other family's representative, the family's default, the
	 * baseline's strategy); for an export move the knob's two sides,
	 * none where it chooses between the families.
	 */
	int curves[SECOND_LOOK_MAX_CURVES];
	unsigned ncurves;
	/* measure every strategy measured at the size, not only the curves */
	bool every;
};

#endif /* PMEM_RULE_SECOND_LOOK_H */
