package simtest

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"

	"github.com/simrt/simrt/deterministic"
	"testing"

	"github.com/simrt/simrt/sweep"
)

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
	if st.seeds.String() != "3..4" || st.shard != (sweep.Shard{I: 1, N: 2}) || !st.hasSeed || st.seed != 42 || !st.keepGoing {
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

// TestReplayCommandNamesTheRunner: plain-Go tests build only under simrt
// test, which names itself in SIMRT_TEST_COMMAND.
func TestReplayCommandNamesTheRunner(t *testing.T) {
	t.Setenv("SIMRT_TEST_COMMAND", "simrt test")
	got := replayCommand("TestX", 3)
	want := `simrt test -run '^TestX$' ./simtest -simrt.seed=3`
	if got != want {
		t.Errorf("replayCommand = %s, want %s", got, want)
	}
}

func TestSeedCryptoSwitchesCryptoOn(t *testing.T) {
	SeedCrypto(t)
	st, err := loadSettings()
	if err != nil || !st.crypto {
		t.Fatalf("after SeedCrypto: crypto %v, %v", st.crypto, err)
	}
}

func TestSeedCryptoMakesKeysRepeat(t *testing.T) {
	SeedCrypto(t)
	var keys [2][]byte
	for i := range keys {
		Run(t, deterministic.Config{Seed: 9}, func(t *testing.T, ctx *deterministic.Context) {
			k, err := ecdh.X25519().GenerateKey(rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			keys[i] = k.PublicKey().Bytes()
		})
	}
	if !bytes.Equal(keys[0], keys[1]) {
		t.Errorf("X25519 keys differ between two runs of seed 9: %x, %x", keys[0], keys[1])
	}
}
