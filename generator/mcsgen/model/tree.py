"""The spanning tree of a mechanism's joint graph (`coordinates: joint`, joint_coordinates.py).

The tree grows from the ground, breadth first: at each step it takes, among the joints that lead
from a body it has reached to one it has not, the one from the body nearest the ground, then the
one that leaves the fewest degrees of freedom (a fixed joint before a revolute or prismatic
one, a universal joint before a spherical one), then the
first in the file. A joint marked `cut: true`, a driven joint and a joint type
the tree cannot carry (TREE_TYPES: those with a motion written as coordinates) are never taken:
they stay constraint rows between their two bodies (cut joints). A body the tree does not reach
keeps its own body coordinates, as if joined to the ground by a free joint (a floating base), and
the tree grows on from it.
"""

from dataclasses import dataclass
from typing import Dict, List

from .joints import TREE_TYPES

# TREE_TYPES (joints.py): the joint types a tree joint may have, with the degrees of freedom
# each leaves (the tree's preference: fewer first), those whose entry gives the coordinates of
# its motion; the others are always cut (their rows between the bodies' poses)

# the tree `start:` values turn the bodies along (placement.py): the joints a start can be on
# and the fixed ones, as before universal joints joined the tree (a universal joint nearer the
# ground would make a started joint of a loop its cut)
PLACEMENT_TYPES = {"revolute": 1, "prismatic": 1, "fix": 0}


@dataclass(frozen=True)
class TreeJoint:
    joint: str  # its name
    parent: str  # the body nearer the ground (or "ground")
    child: str  # the body whose pose it gives


@dataclass
class SpanningTree:
    joints: List[TreeJoint]  # in the order the tree took them (parents before children)
    cuts: List[str]  # the other joints, in file order
    roots: List[str]  # bodies with their own (floating) coordinates, in file order
    parent_joint: Dict[str, TreeJoint]  # child body -> the tree joint that places it


def spanning_tree(bodies, joints, types=None) -> SpanningTree:
    """bodies: body names in file order (ground excluded); joints: [(name, type, body1, body2,
    may_be_tree)] in file order; types: the joint types the tree may take, with the degrees of
    freedom each leaves (default TREE_TYPES)."""
    types = TREE_TYPES if types is None else types
    reached = {"ground": 0}  # body -> depth
    taken, roots = [], []
    free = [j for j in joints if j[4] and j[1] in types]
    used = set()
    while True:
        best = None
        for index, (name, jtype, b1, b2, _) in enumerate(free):
            if name in used:
                continue
            for parent, child in ((b1, b2), (b2, b1)):
                if parent in reached and child not in reached:
                    key = (reached[parent], types[jtype], index)
                    if best is None or key < best[0]:
                        best = (key, name, parent, child)
        if best is None:
            # a body no joint reaches: the first one in the file becomes a floating root
            rest = [b for b in bodies if b not in reached]
            if not rest:
                break
            roots.append(rest[0])
            reached[rest[0]] = 1
            continue
        _, name, parent, child = best
        used.add(name)
        reached[child] = reached[parent] + 1
        taken.append(TreeJoint(name, parent, child))
    cuts = [j[0] for j in joints if j[0] not in used]
    return SpanningTree(taken, cuts, roots, {t.child: t for t in taken})


def free_rotations(topology, tree=None) -> List[str]:
    """The spherical joints of a joint-coordinate model's tree (topology: its
    joint_coordinates.Topology; tree: the tree, default the one it chose), in tree order: their
    Euler parameters are coordinates, with a norm row each."""
    tree = tree or topology.tree
    return [tj.joint for tj in tree.joints if topology.joints[tj.joint].type == "spherical"]
