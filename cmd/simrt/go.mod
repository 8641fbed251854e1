module github.com/simrt/simrt/cmd/simrt

go 1.26.0

require (
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/simrt/simrt v0.0.0
	golang.org/x/tools v0.52.0
)

require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pandatix/go-abnf v0.5.3 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.73.1 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/simrt/simrt/cmd/simrtvet v0.0.0
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.44.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

// The replace directives build the CLI against this checkout. Before a
// release, require tagged versions instead and drop them: go install
// github.com/simrt/simrt/cmd/simrt@version refuses a go.mod with replace
// directives.
replace github.com/simrt/simrt => ../..

replace github.com/simrt/simrt/cmd/simrtvet => ../simrtvet
