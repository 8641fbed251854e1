// Package nemesis composes faults over the nodes of a simulated cluster:
// it draws a fault schedule from a seed, runs it, heals everything at a
// time T, checks liveness after the heal, and shrinks a failing schedule.
//
// A schedule is a list of timed events, one readable line each:
//
//	1.25s partition {n1,n2} | {n3,n4,n5} for 800ms
//	2.1s kill {n2} for 1.5s
//	3s clock-drift {n4} +0.0005 for 4s
//	10s heal
//
// Draw draws one from a generator (SeedRand(seed) keeps it apart from the
// run's own stream), as a Config describes: the enabled fault kinds with
// their weights and durations, the gap between faults and the heal time.
// Swarm testing is the default: each seed enables a random non-empty
// subset of the kinds with random weights (Groce et al., ISSTA 2012).
// WriteFile and ReadSchedule keep a schedule in a file in the same line
// format, so a failing seed's schedule can be replayed, shrunk (Shrink, by
// delta debugging) or edited by hand, and run instead of the seed's.
//
// Run (or Start, for any Cluster) spawns the task that applies each event
// at its time, undoes it For later and, at the heal time, undoes what is
// still active and brings every node back up. Liveness then checks that
// the system makes progress within a bound, and otherwise returns a
// *LivenessError listing every node's tasks and what each is blocked on.
package nemesis
