//simrt:allow-file the command line parses flags and starts the production runtime

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// options is what the command line asks for.
type options struct {
	cfg  Config
	data string
	bump string // with -bump ADDR: bump the counter at ADDR and exit
}

// parseFlags parses the command line: -node NAME -peers n1=ADDR,n2=ADDR,...
// [-data DIR], or -bump ADDR.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("node", "", "this node's name, one of -peers")
	peers := fs.String("peers", "", "every node as NAME=HOST:PORT, comma-separated, in a fixed order (the same on every node)")
	data := fs.String("data", "", "storage directory (default: a new one under the temporary directory)")
	gossip := fs.Duration("gossip", 100*time.Millisecond, "how often a node sends its counts to its peers")
	bump := fs.String("bump", "", "client: bump the counter at HOST:PORT, print the total and exit")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *bump != "" {
		if _, err := netip.ParseAddrPort(*bump); err != nil {
			return options{}, fmt.Errorf("-bump: %w", err)
		}
		return options{bump: *bump}, nil
	}
	o := options{data: *data, cfg: Config{Self: -1, Gossip: *gossip}}
	seen := map[string]bool{}
	for part := range strings.SplitSeq(*peers, ",") {
		n, a, ok := strings.Cut(part, "=")
		if !ok || n == "" {
			return options{}, fmt.Errorf("-peers: %q is not NAME=HOST:PORT", part)
		}
		if seen[n] {
			return options{}, fmt.Errorf("-peers: node %q named twice", n)
		}
		seen[n] = true
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			return options{}, fmt.Errorf("-peers: node %s: %w", n, err)
		}
		if n == *name {
			o.cfg.Self = len(o.cfg.Addrs)
		}
		o.cfg.Addrs = append(o.cfg.Addrs, ap)
	}
	if o.cfg.Self < 0 {
		return options{}, fmt.Errorf("-node %q is not one of -peers", *name)
	}
	if err := o.cfg.check(); err != nil {
		return options{}, err
	}
	return o, nil
}

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(2)
	}
	realtime.Main(realtime.Config{StorageDirectory: o.data}, func(ctx simrt.Context) error {
		if o.bump != "" {
			c, err := Dial(ctx, netip.MustParseAddrPort(o.bump))
			if err != nil {
				return err
			}
			defer c.Close()
			t, err := c.Bump()
			if err != nil {
				return err
			}
			fmt.Println(t)
			return nil
		}
		realtime.StopOnSignal(ctx, 5*time.Second)
		return Run(ctx, o.cfg) // the same main the simulated nodes run
	})
}
