package audit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/simrt/simrt/telemetry/audit"
)

// TestAllIsEveryConstant checks All against the constants declared in
// label.go, so a new label cannot be left out of it, and that no two
// labels share a value (two kinds of event would audit alike).
func TestAllIsEveryConstant(t *testing.T) {
	declared := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "label.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok {
				t.Fatalf("constant %s is not a string literal", v.Names[0])
			}
			value, _ := strconv.Unquote(lit.Value)
			declared[value] = true
		}
	}
	seen := map[audit.Label]bool{}
	for _, l := range audit.All() {
		if seen[l] {
			t.Errorf("All lists %q twice", l)
		}
		seen[l] = true
		if !declared[string(l)] {
			t.Errorf("All lists %q, which label.go does not declare", l)
		}
	}
	if len(seen) != len(declared) {
		t.Errorf("All has %d labels, label.go declares %d distinct values", len(seen), len(declared))
	}
}

// TestValuesAreTheWireForm pins a few values: they are hashed into every
// audit state, so changing one moves every golden fingerprint.
func TestValuesAreTheWireForm(t *testing.T) {
	for l, want := range map[audit.Label]string{
		audit.ProcessTask: "process_task", audit.SendAttempt: "send_attempt",
		audit.WriteAt: "write_at", audit.StorageDiskFault: "storage_disk_fault",
		audit.NetHealAll: "net_heal_all", audit.HostReset: "host_reset",
	} {
		if string(l) != want {
			t.Errorf("label %q, want %q", l, want)
		}
	}
}
