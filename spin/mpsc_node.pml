/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/mpsc_node.pml - the push/pop protocol of conq_mpsc_intrusive
 * (include/conq/mpsc_intrusive.h; conq_mpsc_linked runs the same one), in
 * Promela, for an exhaustive search by Spin.
 *
 * What is modelled, as the header implements it:
 *  - node 0 is the embedded dummy `head`; nodes 1..NP*K the producers'
 *    (producer i pushes nodes i*K+1 .. i*K+K, in that order); next[n] is
 *    node n's link (0 = NULL), tail the last node (0 = &head: empty);
 *  - push [MI1]/[MI2]: next[node] = NULL; prev = exchange(tail, node); then
 *    next[prev] = node (the link, one step later: the bubble between);
 *  - pop (strict, and relaxed where the consumer chooses so): node =
 *    next[0] [MI3]; NULL: tail == 0 [MI4] -> empty, else wait for the link
 *    (strict) or give up (relaxed). Then nxt = next[node]; NULL: clear
 *    next[0], CAS tail node -> 0 [MI5]: success -> node popped (queue
 *    empty); failure -> wait for next[node] (strict) or put next[0] back
 *    and give up (relaxed); then next[0] = nxt.
 *
 * Spin explores every interleaving under sequential consistency (each
 * shared access one step); the memory orders are the litmus tests' and
 * TSan's job (docs/memory-model.md, [MI1]..[MI5]).
 *
 * Safety (assert): each node arrives once, each producer's in order, and
 * (one consumer) all of them; a pop answers "empty" only when no node is
 * pushed (exchanged) and not popped; no producer touches a node after the
 * consumer popped it (the memory-safety claim: a popped node is the
 * caller's at once); invalid end states catch a lost node (the consumer
 * waits forever).
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  the consumer CASes tail back to head before clearing head.next
 *   2  a producer links onto the tail it read before its exchange (link,
 *      then exchange)
 *   3  on a failed CAS the consumer returns the node at once, without
 *      waiting for its successor's link
 */

#ifndef BUG
#define BUG 0
#endif

#define NP 2
#define K  2
#define NN 5                    /* nodes: head + NP * K */

byte next[NN];
byte tail = 0;
/* Ghosts: nodes exchanged onto the queue, nodes popped, popped flags. */
byte g_pushed = 0, g_popped = 0;
bool popped[NN];

proctype producer(byte id)
{
	byte k = 1, node, prev;
	do
	:: k > K -> break
	:: else ->
		node = id * K + k;
		assert(!popped[node]);
		next[node] = 0;
#if BUG == 2
		prev = tail;
		assert(!popped[prev]);
		next[prev] = node;
		d_step { tail = node; g_pushed++ }
#else
		/* [MI1] the exchange */
		d_step { prev = tail; tail = node; g_pushed++ }
		/* [MI2] the link: our last access to prev */
		d_step { assert(!popped[prev]); next[prev] = node }
#endif
		k++
	od
}

byte last[NP];                  /* last seq received per producer */

inline deliver(n)
{
	d_step {
		assert(n != 0 && !popped[n]);
		popped[n] = true;
		g_popped++;
		assert((n - 1) % K + 1 == last[(n - 1) / K] + 1);
		last[(n - 1) / K]++
	}
}

active proctype consumer()
{
	byte got = 0, node, nxt, t;
	bool relaxed;
	run producer(0);
	run producer(1);
	do
	:: got == NP * K -> break
	:: else ->
		if
		:: relaxed = false
		:: relaxed = true
		fi;
		/* [MI3] head.next */
		node = next[0];
		if
		:: node == 0 ->
			/* [MI4] tail: &head means empty */
			d_step {
				t = tail;
				if
				:: t == 0 -> assert(g_pushed == g_popped)
				:: else -> skip
				fi
			}
			if
			:: t == 0 -> goto again
			:: t != 0 && relaxed -> goto again
			:: t != 0 && !relaxed ->
				(next[0] != 0); node = next[0]
			fi
		:: else -> skip
		fi;
		/* [MI3] node->next */
		nxt = next[node];
		if
		:: nxt == 0 ->
#if BUG == 1
			d_step {
				if
				:: tail == node -> tail = 0; t = 1
				:: else -> t = 0
				fi
			}
			next[0] = 0;
#else
			next[0] = 0;
			/* [MI5] CAS tail node -> &head */
			d_step {
				if
				:: tail == node -> tail = 0; t = 1
				:: else -> t = 0
				fi
			}
#endif
			if
			:: t == 1 -> deliver(node); got++; goto again
			:: else -> skip
			fi;
#if BUG == 3
			deliver(node); got++; goto again;
#endif
			if
			:: relaxed -> next[0] = node; goto again
			:: else -> (next[node] != 0); nxt = next[node]
			fi
		:: else -> skip
		fi;
		next[0] = nxt;
		deliver(node);
		got++;
again:		skip
	od;
	/* Every node arrived; nothing is left. */
	assert(g_popped == NP * K && tail == 0 && next[0] == 0)
}
