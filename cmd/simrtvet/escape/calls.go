package escape

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// funcs are the package-level functions that escape the simulator, with
// what to use instead, by package path and name.
var funcs = map[string]map[string]string{
	"time": {
		"Now":       "reads the wall clock; use ctx.Now()",
		"Since":     "reads the wall clock; use ctx.Now().Sub(t)",
		"Until":     "reads the wall clock; use t.Sub(ctx.Now())",
		"Sleep":     "sleeps in real time, outside the simulator; use ctx.Sleep(d)",
		"After":     "waits in real time on a native channel; use simrt.After in a simrt.Select",
		"AfterFunc": "runs f on a native goroutine in real time; use a task that calls ctx.Sleep",
		"Tick":      "ticks in real time on a native channel; use simrt.NewTicker",
		"NewTimer":  "waits in real time on a native channel; use simrt.After or simrt.Timeout",
		"NewTicker": "ticks in real time on a native channel; use simrt.NewTicker",
	},
	"runtime": {
		"Gosched": "yields to the Go scheduler, not to the simulator; park on a simrt primitive or ctx.Sleep",
	},
	"crypto/rand": {
		"Read":  "reads unseeded randomness; read from ctx (a seeded io.Reader) instead",
		"Int":   "reads unseeded randomness; pass ctx as the io.Reader of math/big or crypto",
		"Prime": "reads unseeded randomness; pass ctx as the io.Reader",
		"Text":  "reads unseeded randomness; build the text from ctx.Rand()",
	},
	"os": fileIO("Open", "OpenFile", "Create", "CreateTemp", "ReadFile", "WriteFile", "ReadDir",
		"Mkdir", "MkdirAll", "MkdirTemp", "Remove", "RemoveAll", "Rename", "Stat", "Lstat",
		"Truncate", "Chmod", "Chtimes", "Link", "Symlink", "Readlink", "OpenRoot", "OpenInRoot"),
	"net": netIO("Dial", "DialTimeout", "DialTCP", "DialUDP", "DialIP", "DialUnix",
		"Listen", "ListenTCP", "ListenUDP", "ListenIP", "ListenUnix", "ListenUnixgram", "ListenPacket",
		"ListenMulticastUDP", "LookupHost", "LookupIP", "LookupAddr", "LookupCNAME", "LookupMX",
		"LookupNS", "LookupPort", "LookupSRV", "LookupTXT", "LookupNetIP", "ResolveTCPAddr",
		"ResolveUDPAddr", "ResolveIPAddr", "ResolveUnixAddr", "FileConn", "FileListener", "FilePacketConn"),
}

func fileIO(names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = "does real file I/O; use the context's Storage (ctx.Open)"
	}
	return m
}

func netIO(names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = "does real network I/O; use the context's Network (ctx.Dial, ctx.Bind)"
	}
	return m
}

// methods are the methods that escape the simulator, by the receiver's
// package path and type name, then method name ("*" for every method).
var methods = map[string]map[string]map[string]string{
	"sync": {
		"Mutex":     {"Lock": "blocks outside the simulator; use simrt.Mutex", "TryLock": "is a native lock; use simrt.Mutex"},
		"RWMutex":   {"Lock": "blocks outside the simulator; use simrt.RWMutex", "RLock": "blocks outside the simulator; use simrt.RWMutex", "TryLock": "is a native lock; use simrt.RWMutex", "TryRLock": "is a native lock; use simrt.RWMutex"},
		"WaitGroup": {"Wait": "blocks outside the simulator; use simrt.WaitGroup", "Go": "starts a native goroutine; use simrt.WaitGroup or simrt.Spawn"},
		"Cond":      {"Wait": "blocks outside the simulator; use a simrt.Signal or simrt.Chan"},
	},
	"os": {
		"File": {"*": "does real file I/O; use the context's Storage"},
	},
	"net": {
		"Dialer":       {"*": "does real network I/O; use the context's Network"},
		"ListenConfig": {"*": "does real network I/O; use the context's Network"},
		"Resolver":     {"*": "does real network I/O; use the context's Resolver"},
	},
}

// randFuncs are the math/rand functions that build a generator instead of
// drawing from the global one.
var randFuncs = map[string]bool{"New": true, "NewSource": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true}

// selector checks a reference pkg.Name or x.Method.
func (c *checker) selector(sel *ast.SelectorExpr) {
	info := c.pass.TypesInfo
	if s := info.Selections[sel]; s != nil {
		if s.Kind() != types.MethodVal {
			return
		}
		named := receiverNamed(s.Obj().(*types.Func))
		if named == nil || named.Obj().Pkg() == nil {
			return
		}
		byType := methods[named.Obj().Pkg().Path()][named.Obj().Name()]
		why, ok := byType[sel.Sel.Name]
		if !ok {
			why, ok = byType["*"]
		}
		if ok && !(named.Obj().Name() == "File" && sel.Sel.Name == "Name") {
			c.report(sel.Pos(), sel.End(), nil, named.Obj().Pkg().Name()+"."+named.Obj().Name()+"."+sel.Sel.Name+" "+why)
		}
		return
	}
	obj := info.Uses[sel.Sel]
	if obj == nil || obj.Pkg() == nil {
		return
	}
	if _, isPkg := info.Uses[identOf(sel.X)].(*types.PkgName); !isPkg {
		return
	}
	path, name := obj.Pkg().Path(), obj.Name()
	qual := obj.Pkg().Name() + "." + name
	switch obj := obj.(type) {
	case *types.Var:
		if path == "crypto/rand" && name == "Reader" {
			c.report(sel.Pos(), sel.End(), nil, "crypto/rand.Reader is unseeded randomness; read from ctx (a seeded io.Reader) instead")
		}
	case *types.Func:
		if path == "math/rand" || path == "math/rand/v2" {
			if !randFuncs[name] {
				c.report(sel.Pos(), sel.End(), nil, qual+" draws from the global, unseeded generator; use ctx.Rand()")
			}
			return
		}
		if why, ok := funcs[path][name]; ok {
			c.report(sel.Pos(), sel.End(), c.clockFix(sel, obj), qual+" "+why)
		}
	}
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}

// receiverNamed returns the named type of fn's receiver, through a pointer.
func receiverNamed(fn *types.Func) *types.Named {
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return nil
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := t.(*types.Named)
	return n
}

// clockFix rewrites time.Now, time.Since and time.Sleep to the clock of a
// variable named ctx in scope, when it has the methods the rewrite needs.
func (c *checker) clockFix(sel *ast.SelectorExpr, fn *types.Func) []analysis.SuggestedFix {
	var repl string
	var needs []string
	switch fn.Name() {
	case "Now":
		repl, needs = "ctx.Now", []string{"Now"}
	case "Since":
		repl, needs = "ctx.Now().Sub", []string{"Now"}
	case "Sleep":
		repl, needs = "ctx.Sleep", []string{"Sleep"}
	default:
		return nil
	}
	scope := c.pass.Pkg.Scope().Innermost(sel.Pos())
	if scope == nil {
		return nil
	}
	_, obj := scope.LookupParent("ctx", sel.Pos())
	v, ok := obj.(*types.Var)
	if !ok {
		return nil
	}
	for _, m := range needs {
		if !hasClockMethod(v.Type(), m) {
			return nil
		}
	}
	return []analysis.SuggestedFix{{
		Message:   "use " + repl + " (the runtime's clock)",
		TextEdits: []analysis.TextEdit{{Pos: sel.Pos(), End: sel.End(), NewText: []byte(repl)}},
	}}
}

// hasClockMethod reports whether t has the method name with the signature
// of time.Now (Now() time.Time) or time.Sleep (Sleep(time.Duration)).
func hasClockMethod(t types.Type, name string) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, name)
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	isTime := func(t types.Type, want string) bool {
		n, ok := t.(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == want
	}
	switch name {
	case "Now":
		return sig.Params().Len() == 0 && sig.Results().Len() == 1 && isTime(sig.Results().At(0).Type(), "Time")
	case "Sleep":
		return sig.Params().Len() == 1 && sig.Results().Len() == 0 && isTime(sig.Params().At(0).Type(), "Duration")
	}
	return false
}

// callName is the name a call is made by: f for f(x), m for x.m(y).
func callName(call *ast.CallExpr) string {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.IndexExpr: // a generic function, instantiated
		if id, ok := f.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

// writes reports whether a call with nargs arguments says by its name
// that it writes to an output: Write..., Print..., Fprint..., Send...,
// TrySend, Encode..., Append..., or a logging call (Log, Logf, Error,
// Errorf, Fatal, Fatalf) with arguments, so that err.Error() is not one.
func writes(name string, nargs int) bool {
	for _, p := range []string{"Write", "Print", "Fprint", "Send", "TrySend", "Encode", "Append"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "Log", "Logf", "Error", "Errorf", "Fatal", "Fatalf":
		return nargs > 0
	}
	return false
}
