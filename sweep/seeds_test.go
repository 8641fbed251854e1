package sweep

import (
	"slices"
	"strings"
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
		set, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		got := slices.Collect(Shard{0, 1}.Pick(set))
		if !slices.Equal(got, c.want) {
			t.Errorf("Parse(%q) = %v, want %v", c.in, got, c.want)
		}
		if back, _ := Parse(set.String()); !slices.Equal(back, set) {
			t.Errorf("String of %q does not parse back: %q", c.in, set.String())
		}
	}
	for _, bad := range []string{"", "x", "5..1", "1..", "-1", "1,,2"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestShardsCoverEverySeedOnce(t *testing.T) {
	set, _ := Parse("0..99,1000..1036,5000")
	want := slices.Collect(Shard{0, 1}.Pick(set))
	for n := uint64(1); n <= 9; n++ {
		seen := map[uint64]int{}
		total := 0
		for i := range n {
			sh := Shard{i, n}
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
	if sh, err := ParseShard("2/5"); err != nil || sh != (Shard{2, 5}) {
		t.Errorf("ParseShard(2/5) = %v, %v", sh, err)
	}
	for _, bad := range []string{"5/5", "1/0", "1", "a/b", "-1/3"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) succeeded", bad)
		}
	}
}

func TestCompact(t *testing.T) {
	if got := Compact([]uint64{1, 2, 3, 5, 7, 8}).String(); got != "1..3,5,7..8" {
		t.Errorf("Compact = %q", got)
	}
}

func TestParseMergesOverlaps(t *testing.T) {
	for in, want := range map[string]string{
		"0..5,3..4":  "0..5",
		"3..4,0..5":  "0..5",
		"1,1,2":      "1..2",
		"0..3,4..6":  "0..6",
		"10..20,5,7": "5,7,10..20",
		"18446744073709551614..18446744073709551615,0..3": "0..3,18446744073709551614..18446744073709551615",
	} {
		set, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if set.String() != want {
			t.Errorf("Parse(%q) = %q, want %q", in, set.String(), want)
		}
	}
	set, _ := Parse("0..5,3..4")
	if got := slices.Collect(Shard{}.Pick(set)); !slices.Equal(got, []uint64{0, 1, 2, 3, 4, 5}) {
		t.Errorf("0..5,3..4 picks %v", got)
	}
}

func TestParseRefusesAllSeeds(t *testing.T) {
	for _, in := range []string{"0..18446744073709551615", "0..10,5..18446744073709551615"} {
		if set, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %v (Len %d), want an error", in, set, set.Len())
		} else if !strings.Contains(err.Error(), "2^64") {
			t.Errorf("Parse(%q): %v, want it to say 2^64", in, err)
		}
	}
	set, err := Parse("1..18446744073709551615")
	if err != nil || set.Len() != 1<<64-1 {
		t.Fatalf("Parse(1..max) = %v (Len %d), %v", set, set.Len(), err)
	}
	var got []uint64
	for s := range (Shard{}).Pick(set) {
		if got = append(got, s); len(got) == 3 {
			break
		}
	}
	if !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Errorf("1..max picks %v first", got)
	}
}
