package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/scanner"
	gotoken "go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/simrt/simrt/cmd/simrt/internal/plainrewrite"
	"github.com/simrt/simrt/plaingo/stdgen"
)

// simrtModule is the core module, whose package plaingo runs rewritten code
// and whose plaingo/_goroot holds the overlaid standard-library files.
const simrtModule = "github.com/simrt/simrt"

// plainBuildVersion identifies how overlays are built; cached overlays key
// on it.
const plainBuildVersion = "plainbuild-3"

// plainTag is the build tag under which package plaingo exists.
const plainTag = "simrt_plain"

// plainSetup is what a build of plain Go under the simulator needs: the
// overlay file and, when the user's module does not require simrt, a
// go.mod of its own that does.
type plainSetup struct {
	Overlay string // overlay.json
	Modfile string // -modfile
	// Rewritten counts the files the overlay replaces by rewritten copies;
	// Cached reports whether the whole overlay came from the cache.
	Rewritten int
	Cached    bool
}

// flags returns the go command flags of the setup.
func (s *plainSetup) flags() []string {
	return []string{"-overlay=" + s.Overlay, "-tags=" + plainTag, "-vet=off", "-modfile=" + s.Modfile, "-mod=mod"}
}

// plainEnv is the environment of every go command of a plain build: cgo is
// off (refused: it cannot run under the simulator).
func plainEnv() []string { return append(os.Environ(), "CGO_ENABLED=0") }

// buildPlain makes the overlay that runs the packages matched by patterns,
// in dir, as plain Go under the simulator.
func buildPlain(dir string, patterns []string, log io.Writer) (*plainSetup, error) {
	cache, err := plainCacheDir()
	if err != nil {
		return nil, err
	}
	mi, err := locateSimrt(dir)
	if err != nil {
		return nil, err
	}
	goroot, version, err := goEnv(dir)
	if err != nil {
		return nil, err
	}
	static, err := staticOverlay(mi.root, goroot, version, cache)
	if err != nil {
		return nil, err
	}
	modfile, err := mi.writeModfile(cache)
	if err != nil {
		return nil, err
	}
	base := filepath.Join(cache, "base-"+hashStrings(overlayLines(static)...)+".json")
	if err := writeOverlay(base, static); err != nil {
		return nil, err
	}
	flagsFor := func(modfile string) []string {
		return []string{"-tags=" + plainTag, "-overlay=" + base, "-modfile=" + modfile, "-mod=mod"}
	}
	// The graph's fingerprint: every file of every package in the build.
	graph, err := listGraph(dir, patterns, flagsFor(modfile))
	if err != nil {
		return nil, err
	}
	if err := refuseCgo(graph); err != nil {
		return nil, err
	}
	// Modules in the module cache whose packages need rewriting are
	// rewritten in copies, which the modfile replaces them with: go
	// refuses to overlay files under GOMODCACHE.
	if mi.replaceTo, err = copyCachedModules(dir, graph, cache); err != nil {
		return nil, err
	}
	if len(mi.replaceTo) > 0 {
		if modfile, err = mi.writeModfile(cache); err != nil {
			return nil, err
		}
	}
	setup := &plainSetup{Modfile: modfile}
	buildFlags := flagsFor(modfile)
	key := hashStrings(append([]string{plainrewrite.Version, plainBuildVersion, version, base, modfile, strings.Join(patterns, "\x00"), dir}, graphLines(graph)...)...)
	setup.Overlay = filepath.Join(cache, "overlay-"+key+".json")
	if _, err := os.Stat(setup.Overlay); err == nil {
		setup.Cached = true
		return setup, nil
	}
	start := time.Now()
	replace, err := rewriteGraph(dir, patterns, buildFlags, static, cache, log)
	if err != nil {
		return nil, err
	}
	setup.Rewritten = len(replace)
	for k, v := range static {
		if _, ok := replace[k]; !ok {
			replace[k] = v
		}
	}
	if err := writeOverlay(setup.Overlay, replace); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "simrt: rewrote %d files for plain Go in %.1fs (cached in %s)\n", setup.Rewritten, time.Since(start).Seconds(), cache)
	return setup, nil
}

// plainCacheDir returns the directory of rewritten files and overlays.
func plainCacheDir() (string, error) {
	dir := os.Getenv("SIMRT_PLAIN_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("simrt: no cache directory for rewritten files (set SIMRT_PLAIN_CACHE): %v", err)
		}
		dir = filepath.Join(base, "simrt", "plain")
	}
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// modInfo is the user's module as the plain build changes it: its go.mod
// and go.sum, and whether simrt must be added to them.
type modInfo struct {
	root      string // the simrt module's directory
	mod, sum  []byte
	addSimrt  bool
	rootSum   []byte
	replaceTo map[string]string // module path => directory of its rewritable copy
}

// locateSimrt finds the core module: the one the user's module requires,
// or else SIMRT_ROOT, or else the one this command was built from.
func locateSimrt(dir string) (*modInfo, error) {
	gomod, err := goCmd(dir, "env", "GOMOD")
	if err != nil {
		return nil, err
	}
	gomod = strings.TrimSpace(gomod)
	if gomod == "" || gomod == os.DevNull {
		return nil, fmt.Errorf("simrt: %s is not in a module", dir)
	}
	m := &modInfo{}
	if m.mod, err = os.ReadFile(gomod); err != nil {
		return nil, err
	}
	m.sum, _ = os.ReadFile(strings.TrimSuffix(gomod, ".mod") + ".sum")
	out, err := goCmd(dir, "list", "-m", "-f", "{{.Dir}}", simrtModule)
	if err == nil && strings.TrimSpace(out) != "" {
		m.root = strings.TrimSpace(out)
		return m, nil
	}
	m.root = os.Getenv("SIMRT_ROOT")
	if m.root == "" {
		m.root = builtFrom()
	}
	if m.root == "" {
		return nil, errors.New("simrt: cannot find the simrt module: require github.com/simrt/simrt in your go.mod, or set SIMRT_ROOT to a checkout")
	}
	if _, err := os.Stat(filepath.Join(m.root, "plaingo", "_goroot")); err != nil {
		return nil, fmt.Errorf("simrt: %s is not a simrt checkout with plain-Go support: %v", m.root, err)
	}
	m.addSimrt = true
	m.rootSum, _ = os.ReadFile(filepath.Join(m.root, "go.sum"))
	return m, nil
}

// writeModfile writes the go.mod (and go.sum) the plain build uses
// through -modfile: the user's, plus simrt when it does not require it,
// plus a replace of each module whose copy is rewritten.
func (m *modInfo) writeModfile(cache string) (string, error) {
	mod := append([]byte(nil), m.mod...)
	sum := append([]byte(nil), m.sum...)
	if m.addSimrt {
		mod = append(mod, fmt.Sprintf("\nrequire %s v0.0.0\n\nreplace %s => %s\n", simrtModule, simrtModule, m.root)...)
		sum = append(append(sum, '\n'), m.rootSum...)
	}
	paths := make([]string, 0, len(m.replaceTo))
	for p := range m.replaceTo {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		mod = append(mod, fmt.Sprintf("\nreplace %s => %s\n", p, m.replaceTo[p])...)
	}
	modfile := filepath.Join(cache, "mod-"+hashStrings(string(mod), string(sum)), "go.mod")
	if err := os.MkdirAll(filepath.Dir(modfile), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(modfile, mod, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(strings.TrimSuffix(modfile, ".mod")+".sum", sum, 0o644); err != nil {
		return "", err
	}
	return modfile, nil
}

// builtFrom returns the directory of the simrt module this command was
// built against, when the build recorded an absolute replace.
func builtFrom() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path == simrtModule && m.Replace != nil && filepath.IsAbs(m.Replace.Path) {
			return m.Replace.Path
		}
	}
	return ""
}

func goEnv(dir string) (goroot, version string, err error) {
	out, err := goCmd(dir, "env", "GOROOT", "GOVERSION")
	if err != nil {
		return "", "", err
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return "", "", fmt.Errorf("simrt: unexpected go env output %q", out)
	}
	return f[0], f[1], nil
}

func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = plainEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// staticOverlay maps each file of plaingo/_goroot/all/src to its place
// under goroot/src, and the standard-library files stdgen makes from
// goroot's sources for version, written under cache (content-addressed, so
// an unchanged Go writes nothing and the build cache stays warm).
func staticOverlay(root, goroot, version, cache string) (map[string]string, error) {
	m := map[string]string{}
	src := filepath.Join(root, "plaingo", "_goroot", "all", "src")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".s") {
			return nil
		}
		rel, _ := filepath.Rel(src, path)
		m[filepath.Join(goroot, "src", rel)] = path
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("simrt: overlaid standard library for %s: %v", version, err)
	}
	files, err := stdgen.Generate(goroot, version)
	if err != nil {
		return nil, fmt.Errorf("simrt: %v", err)
	}
	for rel, text := range files {
		sum := sha256.Sum256(text)
		dst := filepath.Join(cache, "std", hex.EncodeToString(sum[:8]), filepath.FromSlash(rel))
		if _, err := os.Stat(dst); err != nil {
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return nil, err
			}
			if err := writeFileAtomic(dst, text); err != nil {
				return nil, err
			}
		}
		m[filepath.Join(goroot, "src", filepath.FromSlash(rel))] = dst
	}
	return m, nil
}

func overlayLines(m map[string]string) []string {
	var lines []string
	for k, v := range m {
		data, _ := os.ReadFile(v)
		lines = append(lines, k+"\x00"+hashStrings(string(data)))
	}
	sort.Strings(lines)
	return lines
}

func writeOverlay(path string, replace map[string]string) error {
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, so that a concurrent simrt test never reads half a file.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func hashStrings(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		io.WriteString(h, p)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// listedPackage is what go list says of one package of the build.
type listedPackage struct {
	ImportPath                string
	Dir                       string
	Standard                  bool
	GoFiles                   []string
	CgoFiles                  []string
	TestGoFiles, XTestGoFiles []string
	Imports                   []string
	Module                    *struct {
		Path, Version, Dir string
		Main               bool
	}
}

// listGraph lists every package the build of patterns (tests included)
// compiles.
func listGraph(dir string, patterns, buildFlags []string) ([]listedPackage, error) {
	args := append([]string{"list", "-e", "-deps", "-test", "-json=ImportPath,Dir,Standard,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Imports,Module"}, buildFlags...)
	out, err := goCmd(dir, append(args, patterns...)...)
	if err != nil {
		return nil, err
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// refuseCgo fails the build of a graph with a package that uses cgo.
func refuseCgo(graph []listedPackage) error {
	for _, p := range graph {
		if len(p.CgoFiles) > 0 && !p.Standard {
			return fmt.Errorf("simrt: package %s uses cgo (%s): cgo cannot run under the simulator, and plain-Go mode builds with CGO_ENABLED=0", p.ImportPath, strings.Join(p.CgoFiles, ", "))
		}
	}
	return nil
}

// graphLines fingerprints the graph: every file, by content for the
// packages outside GOROOT and by size and time for those in it.
func graphLines(graph []listedPackage) []string {
	var lines []string
	for _, p := range graph {
		for _, group := range [][]string{p.GoFiles, p.TestGoFiles, p.XTestGoFiles} {
			for _, f := range group {
				path := filepath.Join(p.Dir, f)
				line := p.ImportPath + "\x00" + path
				if p.Standard {
					if st, err := os.Stat(path); err == nil {
						line += fmt.Sprintf("\x00%d\x00%d", st.Size(), st.ModTime().UnixNano())
					}
				} else if data, err := os.ReadFile(path); err == nil {
					line += "\x00" + hashStrings(string(data))
				}
				lines = append(lines, line)
			}
		}
	}
	sort.Strings(lines)
	return lines
}

// skipRewrite reports whether the package keeps its files: the runtime,
// the hook package and what it imports, testing (its tests drive the
// simulations), and simrt's own packages, which run the simulator.
func skipRewrite(p *packages.Package) bool {
	path := p.PkgPath
	switch {
	case path == "runtime", strings.HasPrefix(path, "runtime/"), strings.HasPrefix(path, "internal/runtime/"),
		path == plainrewrite.HookImport, path == "unsafe", path == "sync/atomic",
		path == "testing", strings.HasPrefix(path, "testing/internal/"):
		return true
	case p.Module != nil && p.Module.Path == simrtModule:
		return true
	}
	return false
}

// rewriteGraph type-checks the build of patterns and rewrites every file
// that needs it, writing the copies into cache. It returns the overlay's
// replacements: original path (or, for an overlaid file, its GOROOT path)
// to rewritten copy.
func rewriteGraph(dir string, patterns, buildFlags []string, static map[string]string, cache string, log io.Writer) (map[string]string, error) {
	overlay := map[string][]byte{}
	for dst, src := range static {
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		overlay[dst] = data
	}
	var loadFlags []string
	for _, f := range buildFlags {
		if !strings.HasPrefix(f, "-overlay=") {
			loadFlags = append(loadFlags, f)
		}
	}
	cfg := &packages.Config{
		Overlay: overlay,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedDeps | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
		Dir:        dir,
		Env:        plainEnv(),
		BuildFlags: loadFlags,
		Tests:      true,
		Fset:       gotoken.NewFileSet(),
	}
	roots, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var errs []string
	rootSet := map[*packages.Package]bool{}
	for _, p := range roots {
		rootSet[p] = true
	}
	// The packages of other modules are rewritten only when the user's
	// code reaches them other than through simrt's own packages (whose
	// dependencies, Prometheus' client, run as simrt runs them).
	reach := map[*packages.Package]bool{}
	var walk func(p *packages.Package)
	walk = func(p *packages.Package) {
		if reach[p] || (p.Module != nil && p.Module.Path == simrtModule) {
			return
		}
		reach[p] = true
		for _, q := range p.Imports {
			walk(q)
		}
	}
	for _, p := range roots {
		walk(p)
	}
	modcache, _ := goCmd(dir, "env", "GOMODCACHE")
	modcache = strings.TrimSpace(modcache)
	var inCache []string
	replace := map[string]string{}
	done := map[string]bool{}
	packages.Visit(roots, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
		if skipRewrite(p) || p.TypesInfo == nil || (p.Module != nil && !reach[p]) {
			return
		}
		if p.Module != nil && modcache != "" && p.Module.Dir != "" && strings.HasPrefix(p.Module.Dir, modcache+string(filepath.Separator)) {
			if needsRewrite(p) {
				inCache = append(inCache, p.PkgPath)
			}
			return
		}
		for i, file := range p.Syntax {
			name := cfg.Fset.File(file.Pos()).Name()
			if done[name] {
				continue
			}
			done[name] = true
			if err := rewriteOne(cfg.Fset, file, name, p, rootSet[p] && strings.HasSuffix(name, "_test.go"), static, cache, replace); err != nil {
				errs = append(errs, err.Error())
			}
			_ = i
		}
	})
	if len(inCache) > 0 {
		sort.Strings(inCache)
		fmt.Fprintf(log, "simrt: not rewritten (in the module cache, which an overlay cannot replace; their goroutines and channels stay native): %s\n", strings.Join(inCache, ", "))
	}
	if len(errs) > 0 {
		if len(errs) > 10 {
			errs = append(errs[:10], fmt.Sprintf("and %d more", len(errs)-10))
		}
		return nil, fmt.Errorf("simrt: loading the packages to rewrite:\n\t%s", strings.Join(errs, "\n\t"))
	}
	return replace, nil
}

// rewriteOne rewrites the file name of p, if it needs it, into cache.
func rewriteOne(fset *gotoken.FileSet, file *ast.File, name string, p *packages.Package, wrapTests bool, static map[string]string, cache string, replace map[string]string) error {
	srcPath := name
	if s, ok := static[name]; ok {
		srcPath = s
	}
	src, err := os.ReadFile(srcPath)
	if err != nil {
		return err
	}
	if tf := fset.File(file.Pos()); tf == nil || tf.Size() != len(src) {
		return fmt.Errorf("simrt: %s changed while it was being rewritten", name)
	}
	res, err := plainrewrite.Rewrite(plainrewrite.File{Fset: fset, Syntax: file, Src: src, Info: p.TypesInfo, WrapTests: wrapTests})
	if err != nil {
		return err
	}
	if !res.Changed {
		return nil
	}
	out := filepath.Join(cache, "files", hashStrings(plainrewrite.Version, name, string(res.Src))+"-"+filepath.Base(name))
	if _, err := os.Stat(out); err != nil {
		if err := os.WriteFile(out, res.Src, 0o644); err != nil {
			return err
		}
	}
	replace[name] = out
	return nil
}

// needsRewrite reports whether a file of p has syntax the rewrite
// changes (a quick look: the go keyword, a channel arrow, select, close).
func needsRewrite(p *packages.Package) bool {
	found := false
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt, *ast.SendStmt, *ast.SelectStmt:
				found = true
			case *ast.UnaryExpr:
				found = found || n.Op == gotoken.ARROW
			}
			return !found
		})
	}
	return found
}

// copyCachedModules copies each module of the module cache that has a
// package the user's code reaches (other than through simrt's packages)
// with syntax to rewrite, into cache, and returns the replacements: module
// path to copy.
func copyCachedModules(dir string, graph []listedPackage, cache string) (map[string]string, error) {
	modcache, err := goCmd(dir, "env", "GOMODCACHE")
	if err != nil {
		return nil, err
	}
	modcache = strings.TrimSpace(modcache) + string(filepath.Separator)
	byPath := map[string]*listedPackage{}
	for i := range graph {
		byPath[graph[i].ImportPath] = &graph[i]
	}
	reach := map[string]bool{}
	var walk func(p *listedPackage)
	walk = func(p *listedPackage) {
		if reach[p.ImportPath] || p.Module != nil && p.Module.Path == simrtModule {
			return
		}
		reach[p.ImportPath] = true
		for _, q := range p.Imports {
			if lp := byPath[q]; lp != nil {
				walk(lp)
			}
		}
	}
	for i := range graph {
		if p := &graph[i]; p.Module != nil && p.Module.Main {
			walk(p)
		}
	}
	out := map[string]string{}
	for _, p := range graph {
		m := p.Module
		if !reach[p.ImportPath] || m == nil || m.Main || m.Dir == "" || !strings.HasPrefix(m.Dir, modcache) {
			continue
		}
		if _, ok := out[m.Path]; ok || !scanNeedsRewrite(p.Dir, p.GoFiles) {
			continue
		}
		dst := filepath.Join(cache, "mods", hashStrings(m.Path, m.Version))
		if err := copyTree(m.Dir, dst); err != nil {
			return nil, fmt.Errorf("simrt: copying %s@%s to rewrite it: %v", m.Path, m.Version, err)
		}
		out[m.Path] = dst
	}
	return out, nil
}

// scanNeedsRewrite reports whether one of files has a token the rewrite
// looks for (go, <-, select, close, Gosched), without type-checking.
func scanNeedsRewrite(dir string, files []string) bool {
	for _, name := range files {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return true
		}
		fset := gotoken.NewFileSet()
		var sc scanner.Scanner
		sc.Init(fset.AddFile(name, -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := sc.Scan()
			if tok == gotoken.EOF {
				break
			}
			if tok == gotoken.GO || tok == gotoken.ARROW || tok == gotoken.SELECT ||
				tok == gotoken.IDENT && (lit == "close" || lit == "Gosched") {
				return true
			}
		}
	}
	return false
}

// copyTree copies the module directory src to dst (once: an existing dst
// is the same version's copy), writable, through a temporary directory.
func copyTree(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "copy-")
	if err != nil {
		return err
	}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(tmp, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(dst); statErr == nil {
			return nil // another build made it meanwhile
		}
		return err
	}
	return nil
}
