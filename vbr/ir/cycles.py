"""The nodes of a directed graph that lie on a cycle, in time linear in its nodes and edges
(Tarjan's strongly connected components, iterative: a unit may have thousands of blocks, and a
search from each node, as before, took time quadratic in them)."""
from __future__ import annotations


def on_cycle(succ: list[list[int]]) -> set[int]:
    """The nodes 0..len(succ)-1 from which a path of one edge or more leads back to the node
    itself, `succ[n]` being node n's successors."""
    n = len(succ)
    index = [-1] * n  # the order each node was reached in
    low = [0] * n  # the lowest index reachable from it within its component's search
    on_stack = [False] * n
    stack: list[int] = []
    found: set[int] = set()
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]  # (node, the next of its successors to look at)
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            if i < len(succ[v]):
                work.append((v, i + 1))
                w = succ[v][i]
                if index[w] < 0:
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:  # v heads a component: pop it
                part = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    part.append(w)
                    if w == v:
                        break
                if len(part) > 1 or v in succ[v]:
                    found.update(part)
            if work:  # back in the node that reached v
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return found
