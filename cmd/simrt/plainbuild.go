package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
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
)

// simrtModule is the core module, whose package plaingo runs rewritten code
// and whose plaingo/_goroot holds the overlaid standard-library files.
const simrtModule = "github.com/simrt/simrt"

// plainBuildVersion identifies how overlays are built; cached overlays key
// on it.
const plainBuildVersion = "plainbuild-2"

// plainTag is the build tag under which package plaingo exists.
const plainTag = "simrt_plain"

// plainSetup is what a build of plain Go under the simulator needs: the
// overlay file and, when the user's module does not require simrt, a
// go.mod of its own that does.
type plainSetup struct {
	Overlay string // overlay.json
	Modfile string // -modfile, or ""
	// Rewritten counts the files the overlay replaces by rewritten copies;
	// Cached reports whether the whole overlay came from the cache.
	Rewritten int
	Cached    bool
}

// flags returns the go command flags of the setup.
func (s *plainSetup) flags() []string {
	f := []string{"-overlay=" + s.Overlay, "-tags=" + plainTag, "-vet=off"}
	if s.Modfile != "" {
		f = append(f, "-modfile="+s.Modfile, "-mod=mod")
	}
	return f
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
	root, modfile, err := locateSimrt(dir, cache)
	if err != nil {
		return nil, err
	}
	goroot, version, err := goEnv(dir)
	if err != nil {
		return nil, err
	}
	static, err := staticOverlay(root, goroot, version)
	if err != nil {
		return nil, err
	}
	setup := &plainSetup{Modfile: modfile}
	base := filepath.Join(cache, "base-"+hashStrings(overlayLines(static)...)+".json")
	if err := writeOverlay(base, static); err != nil {
		return nil, err
	}
	buildFlags := []string{"-tags=" + plainTag, "-overlay=" + base}
	if modfile != "" {
		buildFlags = append(buildFlags, "-modfile="+modfile, "-mod=mod")
	}
	// The graph's fingerprint: every file of every package in the build.
	graph, err := listGraph(dir, patterns, buildFlags)
	if err != nil {
		return nil, err
	}
	if err := refuseCgo(graph); err != nil {
		return nil, err
	}
	key := hashStrings(append([]string{plainrewrite.Version, plainBuildVersion, version, base, strings.Join(patterns, "\x00"), dir}, graphLines(graph)...)...)
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

// locateSimrt finds the core module: the one the user's module requires,
// or else SIMRT_ROOT, or else the one this command was built from. When
// the user's module does not require it, it returns a go.mod (for
// -modfile) that does, with a replace to its directory.
func locateSimrt(dir, cache string) (root, modfile string, err error) {
	out, err := goCmd(dir, "list", "-m", "-f", "{{.Dir}}", simrtModule)
	if err == nil && strings.TrimSpace(out) != "" {
		return strings.TrimSpace(out), "", nil
	}
	root = os.Getenv("SIMRT_ROOT")
	if root == "" {
		root = builtFrom()
	}
	if root == "" {
		return "", "", errors.New("simrt: cannot find the simrt module: require github.com/simrt/simrt in your go.mod, or set SIMRT_ROOT to a checkout")
	}
	if _, err := os.Stat(filepath.Join(root, "plaingo", "_goroot")); err != nil {
		return "", "", fmt.Errorf("simrt: %s is not a simrt checkout with plain-Go support: %v", root, err)
	}
	gomod, err := goCmd(dir, "env", "GOMOD")
	if err != nil {
		return "", "", err
	}
	gomod = strings.TrimSpace(gomod)
	if gomod == "" || gomod == os.DevNull {
		return "", "", fmt.Errorf("simrt: %s is not in a module", dir)
	}
	mod, err := os.ReadFile(gomod)
	if err != nil {
		return "", "", err
	}
	sum, _ := os.ReadFile(strings.TrimSuffix(gomod, ".mod") + ".sum")
	rootSum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	mod = append(mod, fmt.Sprintf("\nrequire %s v0.0.0\n\nreplace %s => %s\n", simrtModule, simrtModule, root)...)
	sum = append(append(sum, '\n'), rootSum...)
	modfile = filepath.Join(cache, "mod-"+hashStrings(string(mod), string(sum)), "go.mod")
	if err := os.MkdirAll(filepath.Dir(modfile), 0o755); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(modfile, mod, 0o644); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(strings.TrimSuffix(modfile, ".mod")+".sum", sum, 0o644); err != nil {
		return "", "", err
	}
	return root, modfile, nil
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

// staticOverlay maps each file of plaingo/_goroot/all/src and
// plaingo/_goroot/<go1.N>/src to its place under goroot/src.
func staticOverlay(root, goroot, version string) (map[string]string, error) {
	release := version
	if i := strings.Index(release, "."); i >= 0 {
		if j := strings.Index(release[i+1:], "."); j >= 0 {
			release = release[:i+1+j]
		}
	}
	m := map[string]string{}
	for _, sub := range []string{"all", release} {
		src := filepath.Join(root, "plaingo", "_goroot", sub, "src")
		err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == src && sub != "all" {
					return fs.SkipAll // no files for this release
				}
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
	Module                    *struct{ Path string }
}

// listGraph lists every package the build of patterns (tests included)
// compiles.
func listGraph(dir string, patterns, buildFlags []string) ([]listedPackage, error) {
	args := append([]string{"list", "-e", "-deps", "-test", "-json=ImportPath,Dir,Standard,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Module"}, buildFlags...)
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
