package simtest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/nemesis"
)

// decisionsAround is how many decisions either side of the inevitable one
// its report lists.
const decisionsAround = 4

// findInevitable looks for the moment a failed seed's failure became
// inevitable: the shortest prefix of its decision stream such that runs
// replaying that prefix and continuing with fresh seeds nearly all fail
// the same way. Every continuation runs the failing run's fault schedule
// (sched, when its Nemesis ran one): only the decisions after the prefix
// are fresh. It logs the decision that ends the prefix, the decisions and
// the events around it; when no prefix meets the threshold, not even the
// whole stream, it says so, with the best share it measured.
func findInevitable(t *testing.T, name string, seed uint64, st settings, orig *decision.Stream, sched *nemesis.Schedule) {
	t.Helper()
	p := newProber(t, name, 0, st)
	class, out, err := p.run(probe{stream: orig, schedule: sched, seed: seed, mark: -1})
	switch {
	case err != nil:
		t.Errorf("simrt: inevitable: %v", err)
		return
	case class == "":
		t.Errorf("simrt: inevitable: seed %d, replaying its recorded stream in a fresh process, passed: "+
			"the failure depends on something outside the simulation\n%s", seed, out)
		return
	}
	var runErr error
	seen := map[[2]int]bool{} // (prefix, continuation): failed the same way
	rate := func(prefix, stopEarly int) (failed, ran int) {
		s := &decision.Stream{Decisions: orig.Decisions[:prefix]}
		return continuations(st.continuations, st.inevitableRate, stopEarly, func(i int) bool {
			if f, ok := seen[[2]int{prefix, i}]; ok {
				return f
			}
			got, _, err := p.run(probe{stream: s, schedule: sched, seed: continuationSeed(seed, i), mark: -1})
			if err != nil && runErr == nil {
				runErr = err
			}
			seen[[2]int{prefix, i}] = got == class
			return got == class
		})
	}
	res := searchInevitable(len(orig.Decisions), func(prefix int) bool {
		failed, _ := rate(prefix, 1)
		return runErr == nil && reaches(failed, st.continuations, st.inevitableRate)
	})
	if runErr != nil {
		t.Errorf("simrt: inevitable: %v", runErr)
		return
	}
	var b strings.Builder
	at, _ := rate(res, 0)
	if runErr != nil {
		t.Errorf("simrt: inevitable: %v", runErr)
		return
	}
	if !reaches(at, st.continuations, st.inevitableRate) {
		// The search takes the whole stream to hold; measured, it does
		// not: no point made the failure inevitable.
		best, bestAt := at, res
		for _, k := range measured(seen, st.continuations) {
			if f, _ := rate(k, 0); f > best || f == best && k < bestAt {
				best, bestAt = f, k
			}
		}
		fmt.Fprintf(&b, "simrt: seed %d (%s) became inevitable at no point of its %d decisions: no prefix made %.0f%% of %d continuations fail the same way, "+
			"not even the whole stream (%d of %d); the best share measured was %d of %d, after %s\n",
			seed, class, len(orig.Decisions), 100*st.inevitableRate, st.continuations, at, st.continuations, best, st.continuations, prefixName(bestAt))
		b.WriteString("  the failure depends on decisions to its very end (a race the last decisions settle), or on something the continuations change\n")
		fmt.Fprintf(&b, "(%d runs)", p.runs)
		t.Logf("%s", b.String())
		return
	}
	if res == 0 {
		cause := "the failure is in the test's setup, not in its schedule"
		if sched != nil {
			cause = fmt.Sprintf("the failure is decided by its fault schedule (%d faults, kept in every continuation) or the test's setup, not by its decisions; -simrt.shrink finds the faults that matter", len(sched.Events))
		}
		fmt.Fprintf(&b, "simrt: seed %d (%s) fails whatever its decisions: %d of %d fresh seeds fail the same way (threshold %.0f%%); %s\n",
			seed, class, at, st.continuations, 100*st.inevitableRate, cause)
		t.Logf("%s", b.String())
		return
	}
	before, _ := rate(res-1, 0)
	d := orig.Decisions[res-1]
	fmt.Fprintf(&b, "simrt: seed %d (%s) became inevitable at decision #%d of %d (%s):\n", seed, class, res-1, len(orig.Decisions), decisionString(d))
	fmt.Fprintf(&b, "  replaying decisions #0..#%d, then fresh seeds: %d of %d runs fail the same way (threshold %.0f%%)\n",
		res-1, at, st.continuations, 100*st.inevitableRate)
	if res == 1 {
		fmt.Fprintf(&b, "  replaying none of them: %d of %d\n", before, st.continuations)
	} else {
		fmt.Fprintf(&b, "  replaying one fewer (#0..#%d): %d of %d\n", res-2, before, st.continuations)
	}
	b.WriteString("  (binary search over the prefix length: it assumes that once a prefix makes the failure nearly certain, longer ones do too)\n")
	b.WriteString("decisions around it:\n")
	for i := max(0, res-1-decisionsAround); i < min(len(orig.Decisions), res+decisionsAround); i++ {
		mark := "  "
		if i == res-1 {
			mark = "> "
		}
		fmt.Fprintf(&b, "%s#%d %s\n", mark, i, decisionString(orig.Decisions[i]))
	}
	markFile := filepath.Join(p.dir, "mark.txt")
	if _, _, err := p.run(probe{stream: orig, seed: seed, mark: res - 1, markFile: markFile}); err != nil {
		t.Errorf("simrt: inevitable: %v", err)
		return
	}
	if ev, err := os.ReadFile(markFile); err == nil {
		b.WriteString("events of the run around it: ")
		b.Write(ev)
	}
	fmt.Fprintf(&b, "(%d runs)", p.runs)
	t.Logf("%s", b.String())
}

// measured returns the prefix lengths of seen for which all n
// continuations ran, ascending.
func measured(seen map[[2]int]bool, n int) []int {
	count := map[int]int{}
	for k := range seen {
		count[k[0]]++
	}
	var ks []int
	for k, c := range count {
		if c == n {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// prefixName names a prefix of k decisions.
func prefixName(k int) string {
	if k == 0 {
		return "none of its decisions"
	}
	return fmt.Sprintf("decisions #0..#%d", k-1)
}

// searchInevitable returns the smallest prefix length in [0, n] for which
// inevitable holds, by binary search; n itself (the whole stream, which is
// the failing run) is taken to hold.
func searchInevitable(n int, inevitable func(prefix int) bool) int {
	if inevitable(0) {
		return 0
	}
	lo, hi := 0, n // inevitable(lo) is false, inevitable(hi) true
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if inevitable(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// continuations runs fails for i in [0, n) and counts the failures. With
// stopEarly set it stops as soon as the outcome against rate is settled.
func continuations(n int, rate float64, stopEarly int, fails func(i int) bool) (failed, ran int) {
	need := int(math.Ceil(rate * float64(n)))
	for i := range n {
		ran++
		if fails(i) {
			failed++
		}
		if stopEarly != 0 && (failed >= need || failed+n-ran < need) {
			break
		}
	}
	return failed, ran
}

// reaches reports whether failed of n meets rate.
func reaches(failed, n int, rate float64) bool {
	return failed >= int(math.Ceil(rate*float64(n)))
}

// continuationSeed returns the seed of continuation i of seed: the
// splitmix64 of both, so that continuations differ from the seed and from
// each other. The same continuations are used at every prefix length, so
// that two lengths are compared on the same futures.
func continuationSeed(seed uint64, i int) uint64 {
	z := seed ^ (uint64(i)+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// decisionString renders a decision: its kind, its value, whether it is
// the kind's default, and what it decided where the kind says so without
// the run (a yield, a spawn, a Buggify draw: their probabilities are the
// Config's, so the draw is shown against the defaults). A task's own draw
// (rand) is its value.
func decisionString(d decision.Decision) string {
	s := fmt.Sprintf("%s %#016x", d.Kind, d.Value)
	if d.IsDefault() {
		s += " (default)"
	}
	if d.Kind == decision.KindRand {
		return s
	}
	return s + ": " + decisionMeaning(d)
}

// decisionMeaning says what d decided, in words.
func decisionMeaning(d decision.Decision) string {
	u := float64(d.Value>>11) * 0x1p-53 // the draw in [0, 1), as the runtime reads it
	byDefault := func(p float64, yes, no string) string {
		if d.Value < uint64(p*(1<<64)) {
			return yes
		}
		return no
	}
	switch d.Kind {
	case decision.KindYield:
		return fmt.Sprintf("scheduling point: draw %.4f, %s", u,
			byDefault(deterministic.DefaultYieldProbability, "the task yielded (below the default YieldProbability 0.05)", "the task went on (at the default YieldProbability 0.05)"))
	case decision.KindSpawn:
		return fmt.Sprintf("spawn: draw %.4f, %s", u,
			byDefault(deterministic.DefaultYieldProbability, "the new task ran first (below the default YieldProbability 0.05)", "the creator went on (at the default YieldProbability 0.05)"))
	case decision.KindBuggify:
		return fmt.Sprintf("Buggify draw %.4f: %s", u, byDefault(0.25, "fires or enables a site at the default probability 0.25", "holds a site at the default probability 0.25"))
	case decision.KindSchedule:
		if d.IsDefault() {
			return "ready list: a shuffle step that keeps the order"
		}
		return fmt.Sprintf("ready list: a shuffle step, draw %.4f (swaps the k-th task with the one at ⌊draw·k⌋)", u)
	case decision.KindSelect:
		if d.IsDefault() {
			return "Select: tries its first case first"
		}
		return fmt.Sprintf("Select: draw %.4f (tries case ⌊draw·n⌋ of n first)", u)
	case decision.KindFault:
		return fmt.Sprintf("fault model: draw %.4f (a fault, loss or delay when below its probability)", u)
	case decision.KindPriority:
		return "PCT: a priority or change-point draw"
	}
	return d.Kind.String()
}
