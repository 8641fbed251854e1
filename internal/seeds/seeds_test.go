package simtest

import (
	"slices"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []uint64
	}{
		{"7", []uint64{7}},
		{"0..3", []uint64{0, 1, 2, 3}},
		{"1, 5,10..12", []uint64{1, 5, 10, 11, 12}},
	} {
		set, err := parseSeeds(c.in)
		if err != nil {
			t.Fatalf("parseSeeds(%q): %v", c.in, err)
		}
		got := slices.Collect(shard{0, 1}.Pick(set))
		if !slices.Equal(got, c.want) {
			t.Errorf("parseSeeds(%q) = %v, want %v", c.in, got, c.want)
		}
		if back, _ := parseSeeds(set.String()); !slices.Equal(back, set) {
			t.Errorf("String of %q does not parse back: %q", c.in, set.String())
		}
	}
	for _, bad := range []string{"", "x", "5..1", "1..", "-1", "1,,2"} {
		if _, err := parseSeeds(bad); err == nil {
			t.Errorf("parseSeeds(%q) succeeded", bad)
		}
	}
}

func TestShardsCoverEverySeedOnce(t *testing.T) {
	set, _ := parseSeeds("0..99,1000..1036,5000")
	want := slices.Collect(shard{0, 1}.Pick(set))
	for n := uint64(1); n <= 9; n++ {
		seen := map[uint64]int{}
		total := 0
		for i := range n {
			sh := shard{i, n}
			got := slices.Collect(sh.Pick(set))
			if uint64(len(got)) != sh.Len(set.Len()) {
				t.Fatalf("shard %d/%d: Len %d, picked %d", i, n, sh.Len(set.Len()), len(got))
			}
			for _, s := range got {
				seen[s]++
			}
			total += len(got)
		}
		if total != len(want) {
			t.Fatalf("%d shards picked %d seeds, want %d", n, total, len(want))
		}
		for _, s := range want {
			if seen[s] != 1 {
				t.Fatalf("%d shards: seed %d picked %d times", n, s, seen[s])
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	if sh, err := parseShard("2/5"); err != nil || sh != (shard{2, 5}) {
		t.Errorf("parseShard(2/5) = %v, %v", sh, err)
	}
	for _, bad := range []string{"5/5", "1/0", "1", "a/b", "-1/3"} {
		if _, err := parseShard(bad); err == nil {
			t.Errorf("parseShard(%q) succeeded", bad)
		}
	}
}

func TestFlagsWinOverEnvironment(t *testing.T) {
	given := map[string]string{"seeds": "3..4", "shard": "1/2"}
	env := map[string]string{"SIMRT_SEEDS": "0..999", "SIMRT_SEED": "42", "SIMRT_KEEPGOING": "1"}
	st, err := resolve(func(s *setting) (string, bool) {
		if v, ok := given[s.name]; ok {
			return v, true
		}
		v, ok := env[s.env()]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.seeds.String() != "3..4" || st.shard != (shard{1, 2}) || !st.hasSeed || st.seed != 42 || !st.keepGoing {
		t.Errorf("settings = %+v", st)
	}
	if _, err := resolve(func(s *setting) (string, bool) { return "nope", s.name == "keepgoing" }); err == nil {
		t.Error("a bad boolean was accepted")
	}
}

func TestReplayCommand(t *testing.T) {
	got := replayCommand("TestX/case_1.5", 17)
	want := `go test -run '^TestX$/^case_1\.5$' ./simtest -simrt.seed=17`
	if got != want {
		t.Errorf("replayCommand = %s, want %s", got, want)
	}
}
