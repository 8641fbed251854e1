package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestParseFlags checks the command line: good input gives the node's
// config, bad input a clear error, never a panic.
func TestParseFlags(t *testing.T) {
	peers := "n1=127.0.0.1:7101,n2=127.0.0.1:7102,n3=127.0.0.1:7103"
	o, err := parseFlags([]string{"-node", "n2", "-peers", peers, "-data", "/tmp/x"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.cfg.Self != 1 || len(o.cfg.Addrs) != 3 || o.cfg.Addrs[2].Port() != 7103 || o.data != "/tmp/x" {
		t.Fatalf("parsed %+v", o)
	}
	if o, err := parseFlags([]string{"-bump", "127.0.0.1:7101"}, &bytes.Buffer{}); err != nil || o.bump != "127.0.0.1:7101" {
		t.Fatalf("-bump: %+v, %v", o, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-node", "n4", "-peers", peers}, `-node "n4" is not one of -peers`},
		{[]string{"-node", "n1", "-peers", "n1=127.0.0.1:7101,n1=127.0.0.1:7102"}, `node "n1" named twice`},
		{[]string{"-node", "n1", "-peers", "n1:7101"}, `is not NAME=HOST:PORT`},
		{[]string{"-node", "n1", "-peers", "n1=localhost"}, `-peers: node n1:`},
		{[]string{"-node", "n1", "-peers", peers, "-gossip", "-1s"}, `negative gossip interval`},
		{[]string{"-bump", "nowhere"}, `-bump:`},
		{[]string{"-node", "n1", "-peers", peers, "extra"}, `unexpected argument "extra"`},
	} {
		_, err := parseFlags(c.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
}

// TestConfigCheck checks Run's config validation.
func TestConfigCheck(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no node addresses"},
		{Config{Self: 3, Addrs: addrs}, "node index 3 not in [0, 3)"},
		{Config{Self: 0, Addrs: append(addrs[:2:2], addrs[2:][0:0]...)}, ""},
	} {
		err := c.cfg.check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
}
