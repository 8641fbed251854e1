package simtest

import "testing"

// SeedCrypto makes every simulation that Run, Explore and CheckDeterminism
// start under t for the rest of t draw all of crypto/... (crypto/rand, key
// generation, TLS handshakes) from a ChaCha8 generator seeded with the
// simulation's seed, through testing/cryptotest.SetGlobalRandom.
//
// Go ignores a caller's random reader in most of crypto by default, and some
// key generators (X25519, ECDSA) read one extra random byte on purpose, so a
// simulation that makes keys or speaks TLS cannot be reproduced by passing
// ctx as the reader. SetGlobalRandom is what works for every primitive, but
// it is process-wide: with SeedCrypto, Explore runs one seed at a time (get
// parallelism from several processes, for example one per -simrt.shard),
// and t must not be parallel. The flag -simrt.cryptorand (SIMRT_CRYPTORAND)
// does the same for every test of the binary.
//
// SeedCrypto works through t.Setenv, so it panics in a parallel test.
func SeedCrypto(t *testing.T) {
	t.Helper()
	t.Setenv(flagCrypto.env(), "1")
}
