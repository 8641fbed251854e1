package stdgen

// pins holds, per supported Go release, the Fingerprints of its hooks as
// reviewed when the overlay was written for it. A Go release whose sources
// give another fingerprint for a hook is refused by Generate, naming the
// hook: the overlay must be reviewed against the new declaration first.
var pins = map[string]map[string]string{
	"go1.26": {
		"sync.runtime_Semacquire":               "5210cbdb8bd0",
		"sync.runtime_SemacquireWaitGroup":      "06c50de6f534",
		"sync.runtime_SemacquireRWMutexR":       "e8848595fdca",
		"sync.runtime_SemacquireRWMutex":        "7365007a479c",
		"sync.runtime_Semrelease":               "8940794c80e4",
		"sync.runtime_notifyListAdd":            "d07f504afe83",
		"sync.runtime_notifyListWait":           "2d7556e3db96",
		"sync.runtime_notifyListNotifyAll":      "1c5ab6022669",
		"sync.runtime_notifyListNotifyOne":      "d62d2dbdde01",
		"sync.(*Pool).Get":                      "713efe993c6f",
		"sync.(*Pool).Put":                      "89262d1913aa",
		"sync.(*Mutex).Lock":                    "08d9e814e406",
		"sync.(*Mutex).Unlock":                  "d666efdc8509",
		"sync.(*RWMutex).Lock":                  "794ce0420b79",
		"sync.(*RWMutex).RLock":                 "11e48730e85b",
		"sync.(*Mutex).TryLock":                 "e532a196c29f",
		"sync.(*RWMutex).TryLock":               "c956c95c7003",
		"sync.(*RWMutex).TryRLock":              "9acd33803489",
		"internal/sync.runtime_SemacquireMutex": "5f6fd79aa8ba",
		"internal/sync.runtime_Semrelease":      "63aaea18be5c",
		"internal/sync.runtime_canSpin":         "d3d0352ca362",
		"internal/sync.runtime_nanotime":        "73da78d5ac74",
		"internal/sync.runtime_rand":            "a2a6d2a9ff8c",
		"time.Sleep":                            "515ed5d222b3",
		"time.newTimer":                         "21a1d681a78b",
		"time.stopTimer":                        "7c57d46b0236",
		"time.resetTimer":                       "7d991c51c87d",
		"time.now":                              "3c4d2a1573d8",
		"time.runtimeNow":                       "c8d7f6c40abf",
		"time.runtimeNano":                      "16b3c196383a",
		"math/rand.runtime_rand":                "2228d51b794a",
		"math/rand/v2.runtime_rand":             "a1124e7c42a7",
		"hash/maphash.runtime_rand":             "90d985f185ab",
		"crypto/internal/sysrand.Read":          "64bc5ff1d37b",
	},
}
